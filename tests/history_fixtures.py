"""Shared helpers for the history tests: the 20 real Ascend compile runs of
tests/fixtures/history (see its README), unpacked into a folder."""

from __future__ import annotations

import tarfile
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures"
RUNS_TAR = FIXTURES / "history" / "ascend-compile-runs.tar.xz"
COMPARE = FIXTURES / "compare"
RESULTS = Path(__file__).resolve().parents[1] / "results"


def unpack_runs(dest: Path) -> list[Path]:
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(RUNS_TAR) as tar:
        names = sorted(m.name for m in tar.getmembers() if m.isfile())
        for name in names:
            (dest / Path(name).name).write_bytes(tar.extractfile(name).read())
    return [dest / Path(n).name for n in names]
