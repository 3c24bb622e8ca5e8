"""The gemv kernel: its bodies (body.py) and suites."""
