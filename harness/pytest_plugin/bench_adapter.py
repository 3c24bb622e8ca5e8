"""Hand externally measured samples to pytest-benchmark as if its own timer took them.

Contract: ``feed_samples(benchmark, samples_s, extra_info)`` makes the fixture's ``stats``
hold exactly ``samples_s`` (one round per sample, one iteration each) and merges
``extra_info``.  pytest-benchmark's public API only times a callable with a host clock; the
device time we want in ``stats`` (so ``pytest-benchmark compare`` and
``--benchmark-compare-fail`` judge the kernel) is measured by the backend, so this goes
through the fixture's ``_make_stats``, the one private call in tlbench.  It is pinned by
tests/test_plugin.py against the installed pytest-benchmark.

``result_json_path(config)`` is the ``--benchmark-json`` path (pytest-benchmark 5.2.3 hands
an open file, 5.3.1 a ``Path``); ``route_json_write(config, writer)`` makes the session's
``--benchmark-json`` write call ``writer(path, text)`` instead (both versions write through
``BenchmarkSession.save_json``), which tlbench uses for an atomic write.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable, Sequence


def feed_samples(benchmark: Any, samples_s: Sequence[float], extra_info: dict[str, Any]) -> None:
    benchmark.extra_info.update(extra_info)
    if getattr(benchmark, "disabled", False):
        return
    stats = benchmark._make_stats(1)
    for sample in samples_s:
        stats.update(float(sample))


def result_json_path(config: Any) -> Path | None:
    value = config.getoption("benchmark_json", None)
    if value is None:
        return None
    if isinstance(value, (str, os.PathLike)):
        return Path(value)
    name = getattr(value, "name", None)  # 5.2.3: argparse.FileType("wb") already opened it
    return Path(name) if isinstance(name, str) else None


def _dumps(document: dict[str, Any]) -> str:
    try:
        from pytest_benchmark.utils import safe_dumps
    except ImportError:  # pragma: no cover - every supported version has it
        return json.dumps(document, ensure_ascii=True, indent=4, default=str)
    return safe_dumps(document, ensure_ascii=True, indent=4)


def route_json_write(config: Any, writer: Callable[[Path, str], None]) -> bool:
    """True when the session's ``--benchmark-json`` write now goes through ``writer``."""
    session = getattr(config, "_benchmarksession", None)
    path = result_json_path(config)
    if session is None or path is None or not getattr(session, "json", None):
        return False
    opened = session.json

    def save_json(output_json: dict[str, Any]) -> None:
        if hasattr(opened, "close"):
            opened.close()
        writer(path, _dumps(output_json))
        session.logger.info(f"Wrote benchmark data in: {path}", purple=True)

    session.save_json = save_json
    return True
