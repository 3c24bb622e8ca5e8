"""``python -m tlbench``: the ``tlbench`` command."""

import sys

from tlbench.harness.cli import main

if __name__ == "__main__":
    sys.exit(main())
