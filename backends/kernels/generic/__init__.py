"""The backend half of ``kernel_sweep`` (harness/sweep_api/ is the user's API): a body traced
into a PrimFunc (factory.py), the tensors of a run (tensors.py), the rules' judging (judges.py,
output_errors.py) and the preflight on CPU torch (preflight*.py), reached by the harness only
through runtime.py, the ``tlbench.sweep_runtime`` entry point.  Importing this package imports
neither tilelang nor torch, and sets no environment variable.
"""
