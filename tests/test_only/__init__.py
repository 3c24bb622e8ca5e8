"""TEST ONLY: fault and slowdown injection, present only where a test plugin loads it.

Nothing in the product imports this package.  ``-p test_only.faults`` (a pytest
plugin, tests/test_only/faults.py) adds the test-only options and, when one is given,
registers the test-only subclasses of the backends (tests/test_only/test_only_backends.py)
in their place; a plain pytest session has neither the options nor the objects.
Lowering changes sized for the compile gate (tests/test_only/compile_changes.py) load the same
way, with ``-p test_only.compile_changes``.
"""
