"""Measurement layer: turning a case into samples (gate, compile, check, time).  Imports
harness.core only."""
