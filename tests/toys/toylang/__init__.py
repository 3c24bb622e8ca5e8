"""TOY: a new backend as a third party adds one - this folder plus one registration (the
``tlbench.backends`` and ``tlbench.traits`` entry points); tests/test_new_backend.py counts."""
