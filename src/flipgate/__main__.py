from flipgate.cli import run

run()
