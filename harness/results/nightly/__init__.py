"""The nightly gate: run each suite in its own process, judge it against its baseline or
history, re-measure what was flagged, write the markdown and the night's costs.
"""
