"""The backend half of ``kernel_sweep`` (harness/sweep_api/ is the user's API), reached by the
harness only through runtime.py, the ``tlbench.sweep_runtime`` entry point.  Importing this
package imports neither tilelang nor torch, and sets no environment variable.
"""
