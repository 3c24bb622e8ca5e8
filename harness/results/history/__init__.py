"""The history store: every run in one SQLite file, judged against its own past.

One module per job: ``schema`` (open, create, migrate; WAL and write transactions),
``ingest`` (add runs idempotently, import a folder), ``query`` (testbeds and each case's
series over runs), ``steps`` (step detection), ``judge`` (a new run against the rolling
best / median of the last N runs), ``trend`` (the ``history show`` table).
"""
