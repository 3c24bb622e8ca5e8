"""The built-in GEMM (body.py, raster.py; splitk.py, ws.py), declared in sweep.py, its suites,
and the reader of GEMM records written before it was a ``kernel_sweep`` (records.py,
problem.py: no tilelang, no torch)."""
