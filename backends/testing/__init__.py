"""TEST ONLY: pytest plug-ins for tlbench's own acceptance checks; never loaded unless named with ``-p``."""
