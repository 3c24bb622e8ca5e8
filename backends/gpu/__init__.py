"""What a tilelang GPU backend shares, whichever backend it is: the plan read from tilelang's
passes, its caches on disk, the timers and the L2 flush modes.  Not a backend itself (no entry
point); nothing here imports a backend or a kernel family (tests/test_backend_boundary.py).
"""
