"""tlbench's pytest plugin for these suites, where no install registers it.

Contract: a checkout put on ``PYTHONPATH`` with nothing installed (a GPU host with no package
index: ``PYTHONPATH=$PWD/.gpu/site:$PWD pytest suites ...``) has no ``pytest11`` entry point, so
this names the plugin module.  Where tlbench is installed, its entry point carries the same name
(pyproject.toml), so pytest finds it already registered and this does nothing; and
``-p no:tlbench.harness.plugin`` turns it off either way.
"""

pytest_plugins = ["tlbench.harness.plugin"]
