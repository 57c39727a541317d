from flipgate.launch import run

run()
