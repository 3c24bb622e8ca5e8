"""Campaign tools that need no backend: each module is run as ``python -m tlbench.harness.tools.<name>``.

Contract: a module here reads and writes results files through the harness's own layers (it may
import every layer, as a front door does) and, like all of harness/, imports no backend, no
tilelang and no torch and names no backend or kernel family in code.  Each module's docstring
states its arguments, its output and its exit status.  The shell scripts under results/ call
these modules; nothing in the product imports them.
- ``best_from_run``: the fastest correct config per problem of one results file, recorded in a
  best-configs file.
"""
