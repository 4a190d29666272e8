# Runs a command with a pseudo-terminal as its standard input, as a person's terminal would
# give it, while its stdout and stderr stay this process's (pipes the test reads apart).
# What this process reads on its own stdin is typed into the terminal; then end of input (^D).
# Exits with the command's exit code. Test-only: `project-startup init` asks only on a TTY.
import os
import pty
import subprocess
import sys
import termios

typed = sys.stdin.buffer.read()
master, slave = pty.openpty()
# No echo: what is typed is not written back to the test's view of the terminal.
attrs = termios.tcgetattr(slave)
attrs[3] &= ~termios.ECHO
termios.tcsetattr(slave, termios.TCSANOW, attrs)
child = subprocess.Popen(sys.argv[1:], stdin=slave, close_fds=True)
os.close(slave)
os.write(master, typed + b"\x04")
code = child.wait()
os.close(master)
sys.exit(code if code >= 0 else 128 - code)
