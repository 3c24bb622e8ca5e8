"""tlbench's pytest plugin for these suites, where no install registers it (a checkout on
``PYTHONPATH``); installed, its entry point has the same name, so this does nothing.
"""

pytest_plugins = ["tlbench.harness.plugin"]
