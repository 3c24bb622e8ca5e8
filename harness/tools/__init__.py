"""Campaign tools that import no backend, run as ``python -m tlbench.harness.tools.<name>`` by
results/ scripts; each reads and writes results files through the harness's layers and states
its arguments, output and exit status.
"""
