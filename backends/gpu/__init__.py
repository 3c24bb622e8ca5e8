"""What a tilelang GPU backend shares, whichever backend it is: not a backend itself (no entry point).

``plan`` (the pipeline plan read from tilelang's passes), ``plan_cache`` / ``func_cache`` over
``keyed_files`` (a built kernel's plan and IR on disk), ``timing`` / ``graph_timer`` (the timers)
and ``flush_choice`` (the L2 flush modes).  Nothing here imports a backend or a kernel family
(tests/test_backend_boundary.py).
"""
