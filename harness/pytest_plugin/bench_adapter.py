"""Every use tlbench makes of pytest-benchmark beyond its public fixture API, in one place.

Contract (pinned by tests/test_bench_adapter.py; tlbench supports pytest-benchmark 5.2.x and 5.3.x):
- ``feed_samples(benchmark, samples_s, extra_info)``: the fixture's ``stats`` hold exactly
  ``samples_s`` (one round per sample, one iteration each), ``extra_info`` merged.  The public
  API only times a callable with a host clock; the device time the backend measured goes in
  through the private ``_make_stats`` and ``_mode`` (what marks a fixture as used), so
  ``pytest-benchmark compare`` and ``--benchmark-compare-fail`` judge the kernel.
- ``detached_fixture(config, node, samples_s, extra_info, group)``: a fixture made for test item
  ``node`` as pytest-benchmark makes its own (the session's options, the node's marker), fed like
  ``feed_samples`` but never added to the session's results: its ``stats.as_dict`` is the entry
  the item's real fixture will give (the journal writes it first).  None when pytest-benchmark is
  off or skipping.  Uses the private ``BenchmarkFixture`` constructor.
- ``mark_not_measured(benchmark, why)``: a failed item's fixture, consulted, holding no samples.
- ``benchmark_entry(fixture)``: its JSON entry (``stats.as_dict``), None when it measured nothing.
- ``result_json_path(config)``: the ``--benchmark-json`` path, from an open binary file (5.2.x's
  ``argparse.FileType('wb')``) or a ``pathlib.Path`` (5.3.x).
- ``write_json(config, document, writer)``: write a whole document there (the merged xdist file),
  closing 5.2.x's open file first; ``writer(path, text)`` does the write.
- ``route_json_write(config, writer, applies)``: the session's own ``--benchmark-json`` write
  (``BenchmarkSession.save_json``) goes through ``writer(path, text)`` (an atomic write) when
  ``applies()`` says so at write time.
- ``write_nothing_timed_json(config, writer)``: the JSON pytest-benchmark does not write when no
  item was timed, built through its own hooks (``get_machine_info``, ``generate_json``).
- ``session_timed_anything(config)``: the session holds a timed benchmark (private
  ``config._benchmarksession``); without one pytest-benchmark writes no ``--benchmark-json``.
- ``stop_session_json(config)``: this process's session writes no JSON (an xdist worker).
- ``quiet_table_by_default(config)``: pytest-benchmark's per-item table and info lines off unless
  asked for (pytest ``-v``, ``--benchmark-verbose``, ``--benchmark-quiet`` either way, or a
  ``--benchmark-compare`` / ``--benchmark-histogram`` the table carries), by setting the public
  ``--benchmark-quiet`` before pytest-benchmark builds its session; warnings and
  ``--benchmark-compare-fail`` are unaffected.  Returns whether it did.  ``restore_table(config)``
  undoes that on the built session (its ``quiet`` and its logger's level).
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
    benchmark._mode = "tlbench: externally measured samples"  # used: no "fixture was not used" warning
    stats = benchmark._make_stats(1)
    for sample in samples_s:
        stats.update(float(sample))


def detached_fixture(config: Any, node: Any, samples_s: Sequence[float], extra_info: dict[str, Any], group: str) -> Any:
    session = getattr(config, "_benchmarksession", None)
    if session is None or getattr(session, "skip", False) or getattr(session, "disabled", False):
        return None
    from pytest_benchmark.fixture import BenchmarkFixture
    from pytest_benchmark.utils import NameWrapper

    marker = node.get_closest_marker("benchmark")
    options = dict(marker.kwargs) if marker else {}
    if "timer" in options:  # as pytest-benchmark's fixture does
        options["timer"] = NameWrapper(options["timer"])
    fixture = BenchmarkFixture(node, add_stats=lambda _stats: None, logger=session.logger, warner=node.warn,
                               disabled=False, **dict(session.options, **options))
    fixture.group = group
    feed_samples(fixture, samples_s, extra_info)
    return fixture


def mark_not_measured(benchmark: Any, why: str) -> None:
    """An item that failed before it measured anything: its outcome (and ``why``) is in
    tlbench's own record; tell the fixture it was consulted, so pytest-benchmark does not add
    a "fixture was not used" warning to the failure.  Sets the private ``_mode``."""
    if not getattr(benchmark, "_mode", None):
        benchmark._mode = f"tlbench: {why}"


def benchmark_entry(fixture: Any) -> dict[str, Any] | None:
    stats = getattr(fixture, "stats", None)
    if not stats:
        return None
    return stats.as_dict(include_data=True)


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


def route_json_write(config: Any, writer: Callable[[Path, str], None], applies: Callable[[], bool] = lambda: True) -> bool:
    """True when the session's ``--benchmark-json`` write now goes through ``writer``."""
    session = getattr(config, "_benchmarksession", None)
    path = result_json_path(config)
    if session is None or path is None or not getattr(session, "json", None):
        return False
    opened = session.json
    own_save = session.save_json

    def save_json(output_json: dict[str, Any]) -> None:
        if not applies():
            return own_save(output_json)
        if hasattr(opened, "close"):
            opened.close()
        writer(path, _dumps(output_json))
        session.logger.info(f"Wrote benchmark data in: {path}", purple=True)

    session.save_json = save_json
    return True


def _plain_write(path: Path, text: str) -> None:
    path.write_text(text)


def write_json(config: Any, document: dict[str, Any], writer: Callable[[Path, str], None] = _plain_write) -> Path | None:
    """Write ``document`` where ``--benchmark-json`` says, as pytest-benchmark would; returns the path."""
    path = result_json_path(config)
    if path is None:
        return None
    opened = config.getoption("benchmark_json", None)
    if hasattr(opened, "close"):  # 5.2.x opened (and truncated) it when parsing the option
        opened.close()
    writer(path, _dumps(document))
    return path


def session_timed_anything(config: Any) -> bool:
    session = getattr(config, "_benchmarksession", None)
    return bool(getattr(session, "benchmarks", None))


def stop_session_json(config: Any) -> None:
    session = getattr(config, "_benchmarksession", None)
    if session is not None:
        session.json = None


def quiet_table_by_default(config: Any) -> bool:
    option = config.option
    if not hasattr(option, "benchmark_quiet"):
        return False
    asked = (
        getattr(option, "verbose", 0) > 0
        or getattr(option, "benchmark_verbose", False)
        or option.benchmark_quiet
        or getattr(option, "benchmark_compare", None)
        or getattr(option, "benchmark_histogram", None)
    )
    if asked:
        return False
    option.benchmark_quiet = True
    return True


def write_nothing_timed_json(config: Any, writer: Callable[[Path, str], None]) -> Path | None:
    """The ``--benchmark-json`` document of a session that timed nothing, written as
    pytest-benchmark's ``handle_saving`` would have (its hooks: machine and commit info,
    ``generate_json``, ``update_json``); pytest-benchmark itself skips the write then.
    None when pytest-benchmark is off, has no JSON path, or did time something."""
    session = getattr(config, "_benchmarksession", None)
    path = result_json_path(config)
    if session is None or path is None or getattr(session, "benchmarks", None) or getattr(session, "disabled", False):
        return None
    machine_info = session.get_machine_info()
    commit_info = config.hook.pytest_benchmark_generate_commit_info(config=config)
    config.hook.pytest_benchmark_update_commit_info(config=config, commit_info=commit_info)
    output_json = config.hook.pytest_benchmark_generate_json(
        config=config, benchmarks=[], include_data=True, machine_info=machine_info, commit_info=commit_info)
    config.hook.pytest_benchmark_update_json(config=config, benchmarks=[], output_json=output_json)
    opened = config.getoption("benchmark_json", None)
    if hasattr(opened, "close"):  # 5.2.x opened it when parsing the option
        opened.close()
    writer(path, _dumps(output_json))
    return path


def restore_table(config: Any) -> None:
    config.option.benchmark_quiet = False
    session = getattr(config, "_benchmarksession", None)
    if session is None:
        return
    from pytest_benchmark.logger import Logger

    session.quiet = False
    session.logger.level = Logger.NORMAL  # quiet_table_by_default never quiets a verbose run
