"""`python -m flipgate`: the console script's entry point."""

from flipgate.launch import run

run()
