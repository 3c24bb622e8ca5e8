"""Results layer: what a run leaves behind and how runs are judged.  May import core and measure.

Packages by job: ``files`` (store, journal, shards), ``compare`` (run vs run, across backends),
``compile_gate`` (compile items), ``report`` (every output format), ``nightly``, ``history``
(the SQLite store), ``export``.
"""
