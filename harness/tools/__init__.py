"""Campaign tools that need no backend, run as ``python -m tlbench.harness.tools.<name>`` by
results/ scripts.

Contract: each module reads and writes results files through the harness's layers, imports no
backend, and states its arguments, output and exit status.  ``best_from_run``: the fastest correct
config per problem of one results file, into a best-configs file.
"""
