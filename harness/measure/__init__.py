"""Measurement layer: turning a case into samples.

Statistics, the item runner (gate, compile, check, time) and the parallel compile pool.
May import harness.core only.
"""
