"""The built-in kernels, one package a family: its bodies, dialects, reference, vendor items,
record words and suites together.

Contract: a family's modules import one another as ``tlbench.suites.<family>.<module>``;
pytest collects a suite as ``suites.<family>.test_*``.  conformance/ is no package: users' suites.
"""
