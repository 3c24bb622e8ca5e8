"""What a tilelang GPU backend shares, whichever backend it is: not a backend itself (no entry point).

- ``plan``: the pipeline plan read from tilelang's own TIR passes (a pass instrument on the lowering), and
  ``plan_cache`` / ``func_cache`` over ``keyed_files``: a built kernel's plan and IR kept on disk beside tilelang's
  cache;
- ``timing``: the L2 flush before each call, the kernel-timestamp timer (the profiler's activity records, grouped
  per call) and the CUDA-event timer; ``graph_timer``: K launches in one CUDA graph; ``flush_choice``: the flush
  modes and the split of a kernel stream at the flushes.
A GPU backend (backends/nvidia/) imports these; nothing here imports a backend or a kernel family
(tests/test_backend_boundary.py).  Importing this package imports nothing else.
"""
