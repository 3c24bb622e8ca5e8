"""The built-in kernels, one package a family (gemm, flash_attention, gemv, rmsnorm, softmax,
blocksparse): its bodies, dialects, reference, vendor items, record words and suites together.

Contract: a family's modules import one another as ``tlbench.suites.<family>.<module>`` (the
link ``tlbench/suites -> ../suites``, as for harness/ and backends/), never by bare name, so a
checkout on ``PYTHONPATH`` and an installed wheel import the same names and a user's module
names never clash with them; ``tlbench.families`` entry points name the readers of older
records (``tlbench.suites.gemm.records:GEMM``).  pytest collects a suite as
``suites.<family>.test_*`` (this folder is a package).  conformance/ is no package: its suites
are users' suites.
"""
