"""The blocksparse kernel: its bodies (body.py) and suites."""
