"""Results layer: what a run leaves behind and how runs are judged.

Loading and writing pytest-benchmark JSON, run-vs-run and across-backend comparison,
the nightly gate, best-config files and the per-item table.  May import core and measure.
"""
