"""pytest layer: the pieces behind ``harness.plugin`` (hook specs, the one private
pytest-benchmark call, pytest-xdist support).  May import every layer below it.
"""
