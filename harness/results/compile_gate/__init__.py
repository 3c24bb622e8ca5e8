"""Compile items compared across runs: how they were built and timed, their values, whole-run
moves of their build times and their instruction-count verdicts.
"""
