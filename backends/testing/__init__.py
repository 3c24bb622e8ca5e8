"""TEST ONLY: fault and slowdown injection, present only where a test plugin loads it.

Nothing in the product imports this package.  ``-p tlbench.backends.testing.faults`` (a pytest
plugin, backends/testing/faults.py) adds the test-only options and, when one is given,
registers the test-only subclasses of the backends (backends/testing/test_only_backends.py)
in their place; a plain pytest session has neither the options nor the objects.
Lowering changes sized for the compile gate (backends/testing/compile_changes.py) load the same
way, with ``-p tlbench.backends.testing.compile_changes``.
"""
