"""Install tlbench into the current Python, without dragging in a multi-GB CUDA torch.

Usage: ``python3 -m harness.bootstrap [--dev]``

Contract: stdlib only (it runs before anything is installed).  tilelang depends on a bare
``torch``; on a machine with no torch, pip would resolve that to a CUDA build of several GB.
So: if torch is already importable (a GPU host's own build), it is left alone and only
tlbench is installed; otherwise the CPU wheel ``torch==2.13.0`` is pinned in the same pip
call (extra ``cpu-torch``).  ``--dev`` adds the test tools (pytest-xdist, actionlint).
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def pip_command(have_torch: bool, dev: bool, editable: bool = True) -> list[str]:
    extras = [name for name, wanted in (("cpu-torch", not have_torch), ("dev", dev)) if wanted]
    target = f"{ROOT}[{','.join(extras)}]" if extras else str(ROOT)
    return [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "-q", *(["-e"] if editable else []), target]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m harness.bootstrap", description=__doc__.splitlines()[0])
    parser.add_argument("--dev", action="store_true", help="also install the test tools")
    parser.add_argument("--dry-run", action="store_true", help="print the pip command only")
    args = parser.parse_args(argv)
    have_torch = importlib.util.find_spec("torch") is not None
    cmd = pip_command(have_torch, args.dev)
    print(("torch found: leaving it alone" if have_torch else "no torch: pinning the CPU wheel torch==2.13.0"), flush=True)
    print(" ".join(cmd), flush=True)
    if args.dry_run:
        return 0
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
