"""Run a sweep on every GPU of a host with pytest-xdist: one worker per device, one JSON.

Contract (only under ``pytest -n N``): ``pin_env`` pins worker ``gwK`` to
``devices[K % len(devices)]`` (``--tlbench-devices``, else the first backend's ``device_ids()``);
workers ship benchmark entries, outcomes and device info in their reports, and the controller's
``ControllerCollector`` writes the merged ``--benchmark-json`` and the tlbench summary.
"""

from __future__ import annotations

import datetime as _dt
import os
from typing import Any, Mapping, Sequence

import pytest

from ..core.record import SCHEMA_VERSION
from ..results.files.journal import atomic_write_text
from .bench_adapter import result_json_path, write_json
from .compare_machine import spread_summary

WORKER_ENV = "PYTEST_XDIST_WORKER"
KEY_BENCH = "tlbench_benchmark"
KEY_OUTCOME = "tlbench_outcome"
KEY_MACHINE = "tlbench_machine"


def worker_index(name: str | None = None) -> int | None:
    """``gwK`` -> K, from ``name`` or the worker marker in the environment; None outside xdist."""
    name = name if name is not None else os.environ.get(WORKER_ENV)
    return int(name[2:]) if name and name.startswith("gw") else None


def test_only_settings(config: Any) -> list[str]:
    """Every set option whose dest contains ``test_only`` (it changes what is measured, to test the
    harness), as sorted ``dest=value``: readers leave such runs out of what stands for a commit."""
    return [f"{dest}={value}" for dest, value in sorted(vars(config.option).items())
            if "test_only" in dest and value not in (None, False, "", [], ())]


test_only_settings.__test__ = False  # type: ignore[attr-defined]  # not a pytest test, wherever it is imported


def is_controller(config) -> bool:
    return worker_index() is None and config.getoption("dist", "no") not in ("no", None)


def device_ids(option: str | None, traits: Sequence[Any]) -> list[str]:
    """``--tlbench-devices`` as a list, else the first backend's non-empty ``device_ids()``."""
    if option:
        return [d.strip() for d in option.split(",") if d.strip()]
    return next((ids for ids in (t.device_ids() for t in traits) if ids), [])


def pin_env(option: str | None, traits: Sequence[Any], index: int | None) -> dict[str, str]:
    """The environment pinning worker ``index`` to its device; {} outside xdist or with no devices."""
    devices = device_ids(option, traits) if index is not None else []
    if not devices:
        return {}
    env: dict[str, str] = {}
    for t in traits:
        env.update(t.device_env(devices[index % len(devices)]))
    return env


def merged_document(config, benchmarks: list[dict], machine_extra: Mapping[str, object],
                    tlbench_json: Mapping[str, object]) -> dict[str, Any]:
    """The merged run in pytest-benchmark's own format, with tlbench's keys."""
    import pytest_benchmark

    machine_info = config.hook.pytest_benchmark_generate_machine_info(config=config)
    config.hook.pytest_benchmark_update_machine_info(config=config, machine_info=machine_info)
    machine_info.update(machine_extra)
    commit_info = config.hook.pytest_benchmark_generate_commit_info(config=config)
    config.hook.pytest_benchmark_update_commit_info(config=config, commit_info=commit_info)
    return {"machine_info": machine_info, "commit_info": commit_info,
            "benchmarks": sorted(benchmarks, key=lambda b: b["fullname"]),
            "datetime": _dt.datetime.now(_dt.timezone.utc).isoformat(), "version": pytest_benchmark.__version__,
            "tlbench": tlbench_json}


class ControllerCollector:
    """The xdist controller's plugin: gathers what workers ship, writes the merged JSON."""

    def __init__(self, config, traits_of) -> None:
        self.config = config
        self.traits_of = traits_of  # backend name -> its BackendTraits (plan summaries)
        self.benchmarks: list[dict] = []
        self.outcomes: list[dict] = []
        self.machines: dict[str, dict[str, Any]] = {}

    def pytest_runtest_logreport(self, report) -> None:
        for key, value in getattr(report, "user_properties", []):
            if key == KEY_BENCH:
                self.benchmarks.append(value)
            elif key == KEY_OUTCOME:
                self.outcomes.append(value)
            elif key == KEY_MACHINE:
                worker = getattr(getattr(report, "node", None), "workerinput", {}).get("workerid", "?")
                for name, info in value.items():
                    self.machines.setdefault(name, {})[worker] = info

    def machine_extra(self) -> dict[str, object]:
        backends = {name: {**infos[0], **spread_summary(infos)}
                    for name, infos in ((n, list(w.values())) for n, w in self.machines.items())}
        return {"tlbench": {"schema_version": SCHEMA_VERSION, "backends": backends}} if backends else {}

    def pytest_sessionfinish(self, session, exitstatus) -> None:
        if result_json_path(self.config) is not None and (self.benchmarks or self.outcomes):  # all failed: still written
            top = {"schema_version": SCHEMA_VERSION, "xdist_workers": self.config.getoption("numprocesses", None),
                   "test_only": test_only_settings(self.config),
                   "failed": [o for o in self.outcomes if o.get("status") == "failed"],
                   "skipped": [o for o in self.outcomes if o.get("status") == "skipped"]}
            if int(exitstatus) == pytest.ExitCode.INTERRUPTED:
                top["partial"] = {"reason": "interrupted", "run_ended": False, "items_in_file": len(self.outcomes)}
            document = merged_document(self.config, self.benchmarks, self.machine_extra(), top)
            write_json(self.config, document, atomic_write_text)

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.outcomes:
            return
        from .run_notes import write_summary

        workers = len({worker for per_worker in self.machines.values() for worker in per_worker})
        write_summary(terminalreporter, self.outcomes, {}, self.traits_of, title=f"tlbench (merged from {workers} workers)")
