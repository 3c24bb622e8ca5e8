"""The built-in GEMM (body.py, raster.py; splitk.py, ws.py), declared in sweep.py, its suites,
and the reader of older GEMM records (records.py, problem.py)."""
