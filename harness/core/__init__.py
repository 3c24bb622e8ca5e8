"""Core layer: what a benchmark case is and how a sweep declares cases.

Cases and configs, the Backend protocol, the backend registry, sweeps, search-space pruning, the on-chip budget
check and the JSON record schema.  Imports nothing else from harness/.
"""
