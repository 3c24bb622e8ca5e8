"""Install tlbench into the current Python, without dragging in a multi-GB CUDA torch.

Usage: ``python3 -m harness.bootstrap [--dev] [--extra NAME] [--dry-run] [--torch-index URL]``.
Contract: stdlib only.  A torch already importable is left alone; with none, PyTorch's CPU wheel
``TORCH_CPU`` is pinned in the same pip call (extra ``cpu-torch``) from its CPU index
(``--torch-index``), which is left out where pip's own configuration holds that wheel
(``cpu_wheel_at_hand``), since pip would otherwise resolve tilelang's bare ``torch`` to CUDA.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TORCH_CPU = "torch==2.13.0+cpu"  # the cpu-torch extra's Linux pin (pyproject.toml; tests/test_bootstrap.py)
CPU_INDEX = "https://download.pytorch.org/whl/cpu"  # PyTorch's CPU wheel index


def pip_command(have_torch: bool, dev: bool, editable: bool = True, torch_index: str | None = CPU_INDEX,
                more_extras: tuple[str, ...] = ()) -> list[str]:
    """The one pip call; ``torch_index`` is added only when torch is to be installed."""
    extras = [name for name, wanted in (("cpu-torch", not have_torch), ("dev", dev)) if wanted] + list(more_extras)
    target = f"{ROOT}[{','.join(extras)}]" if extras else str(ROOT)
    index = ["--extra-index-url", torch_index] if torch_index and not have_torch else []
    return [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "-q", *index,
            *(["-e"] if editable else []), target]


def probe_command() -> list[str]:
    """pip resolving the CPU wheel from its configured local sources only: no index, no download."""
    return [sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--no-index", "--ignore-installed",
            "--disable-pip-version-check", "-q", TORCH_CPU]


def cpu_wheel_at_hand(run=subprocess.run) -> bool:
    return run(probe_command(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m harness.bootstrap", description=__doc__.splitlines()[0])
    parser.add_argument("--dev", action="store_true", help="also install the test tools")
    parser.add_argument("--extra", action="append", default=[], metavar="NAME",
                        help="also install this extra of pyproject.toml (repeatable)")
    parser.add_argument("--torch-index", metavar="URL", default=CPU_INDEX,
                        help=f"where the CPU torch wheel comes from when no torch is installed (default {CPU_INDEX})")
    parser.add_argument("--dry-run", action="store_true", help="print the pip command only")
    args = parser.parse_args(argv)
    have_torch = importlib.util.find_spec("torch") is not None
    local = not have_torch and cpu_wheel_at_hand()
    cmd = pip_command(have_torch, args.dev, torch_index=None if local else args.torch_index,
                      more_extras=tuple(args.extra))
    if have_torch:
        print("torch found: leaving it alone (a CUDA torch installed first stays)", flush=True)
    else:
        where = "a wheel pip's own configuration holds (no extra index)" if local else args.torch_index
        print(f"no torch: PyTorch's CPU-only wheel {TORCH_CPU}, from {where}", flush=True)
    print(" ".join(cmd), flush=True)
    if args.dry_run:
        return 0
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
