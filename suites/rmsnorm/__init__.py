"""The rmsnorm kernel: its bodies (body.py) and suites."""
