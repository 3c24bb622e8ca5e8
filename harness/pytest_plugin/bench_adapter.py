"""Every use tlbench makes of pytest-benchmark beyond its public fixture API, in one place.

Contract (tests/test_bench_adapter.py; pytest-benchmark 5.2.x and 5.3.x): ``feed_samples`` makes
``stats`` hold exactly the device samples; ``detached_fixture``, ``result_json_path``,
``write_json``, ``route_json_write``, ``write_nothing_timed_json``; ``quiet_table_by_default``
turns the per-item table off unless asked for (``-v`` ...), ``restore_table`` undoes it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence


def feed_samples(benchmark: Any, samples_s: Sequence[float], extra_info: Mapping[str, object]) -> None:
    benchmark.extra_info.update(extra_info)
    if getattr(benchmark, "disabled", False):
        return
    benchmark._mode = "tlbench: externally measured samples"  # used: no "fixture was not used" warning
    stats = benchmark._make_stats(1)
    for sample in samples_s:
        stats.update(float(sample))


def detached_fixture(config: Any, node: Any, samples_s: Sequence[float], extra_info: Mapping[str, object],
                     group: str) -> Any:
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
    """Tell a failed item's fixture it was consulted: no "fixture was not used" warning."""
    if not getattr(benchmark, "_mode", None):
        benchmark._mode = f"tlbench: {why}"


def benchmark_entry(fixture: Any) -> dict[str, Any] | None:
    stats = getattr(fixture, "stats", None)
    return stats.as_dict(include_data=True) if stats else None


def result_json_path(config: Any) -> Path | None:
    value = config.getoption("benchmark_json", None)
    if value is None:
        return None
    if isinstance(value, (str, os.PathLike)):
        return Path(value)
    name = getattr(value, "name", None)  # 5.2.3: argparse.FileType("wb") already opened it
    return Path(name) if isinstance(name, str) else None


def _dumps(document: Mapping[str, object]) -> str:
    from pytest_benchmark.utils import safe_dumps

    return safe_dumps(document, ensure_ascii=True, indent=4)


def route_json_write(config: Any, writer: Callable[[Path, str], object], applies: Callable[[], bool] = lambda: True) -> bool:
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


def write_json(config: Any, document: Mapping[str, object],
               writer: Callable[[Path, str], object] = Path.write_text) -> Path | None:
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
    asked = ("benchmark_verbose", "benchmark_quiet", "benchmark_compare", "benchmark_histogram")
    if (not hasattr(option, "benchmark_quiet") or getattr(option, "verbose", 0) > 0
            or any(getattr(option, a, None) for a in asked)):
        return False
    option.benchmark_quiet = True
    return True


def write_nothing_timed_json(config: Any, writer: Callable[[Path, str], object]) -> Path | None:
    """Write what pytest-benchmark's ``handle_saving`` would have, through its hooks; None when
    pytest-benchmark is off, has no JSON path, or did time something."""
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
    return write_json(config, output_json, writer)


def restore_table(config: Any) -> None:
    config.option.benchmark_quiet = False
    session = getattr(config, "_benchmarksession", None)
    if session is None:
        return
    from pytest_benchmark.logger import Logger

    session.quiet = False
    session.logger.level = Logger.NORMAL  # quiet_table_by_default never quiets a verbose run
