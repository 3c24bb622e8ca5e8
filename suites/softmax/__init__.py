"""The softmax kernel: its bodies (body.py) and suites."""
