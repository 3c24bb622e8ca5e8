"""pytest glue of the device worker: options, and one ``WorkerSession`` per backend here.

Contract: ``--tlbench-isolation worker`` (default) runs a backend's items in its persistent worker
process, so a crash or hang costs only its item; ``inprocess`` runs them here.  ``Workers`` makes
the sessions (``session``, ``device_session``, ``compile_session`` at ``COMPILE_NICE``), adds the
worker's account to a failure (``annotate``) and ends them (``begin_close`` / ``close``).
"""

from __future__ import annotations

import re
import threading
from dataclasses import replace
from typing import Any

from ..measure.cpu_plan import COMPILE_NICE, ENV_CPUS, ENV_NICE, describe
from ..measure.option_types import positive_float

from ..core import trace
from ..core.registry import BackendRegistry
from ..measure.outcome import Outcome
from ..measure.device_session import WorkerDeviceSession
from ..measure.worker_session import WorkerSession
from ..measure.worker_spec import Limits, WorkerSpec, factory_ref

FAULT_PREFIX = re.compile(r"^WorkerFault: \[(?P<stage>[a-z]+)\] ")

ISOLATION_CHOICES = ("worker", "inprocess")


def add_options(group) -> None:
    group.addoption("--tlbench-isolation", default="worker", choices=ISOLATION_CHOICES,
                    help="worker: run items in a persistent per-device process that survives faults and hangs "
                         "(default); inprocess: in the pytest process")
    group.addoption("--tlbench-timeout", type=positive_float, default=None, metavar="SECONDS",
                    help="per-stage limit for an item's inputs, check and timing (default: 4 x --tlbench-max-seconds, "
                         f"at least {Limits.floor_s:.0f} s); a stage over it fails the item as TIMEOUT")
    group.addoption("--tlbench-compile-timeout", type=positive_float, default=Limits.compile_s, metavar="SECONDS",
                    help=f"limit for one compile in the worker (default {Limits.compile_s:.0f})")


class Workers:
    def __init__(self, config: Any, registry: BackendRegistry, devices: list[str] | None = None,
                 interrupted: Any = lambda: False, board: Any = None) -> None:
        self.registry = registry
        self.board = board  # the run's progress board: every session's waits write its due lines
        self.compile_cpus: tuple[int, ...] | None = None  # compile jobs' workers start pinned here (an overlapped run)
        self.main_times_compiles = True  # one compile job: a backend's own worker times its compile items (its warm-up compile)
        self._compile_ahead: dict[tuple[str, int], WorkerSession] = {}  # compile-job workers started ahead
        self.interrupted = interrupted  # () -> bool: the run was interrupted (every session is told)
        self.limits = Limits(item_s=config.getoption("--tlbench-timeout"), compile_s=config.getoption("--tlbench-compile-timeout"))
        self.devices = list(devices or []) if len(devices or []) > 1 else []
        self._sessions: dict[tuple[str, int], WorkerSession] = {}
        self._closing: dict[tuple, threading.Thread] = {}  # begin_close's threads, joined by close

    def device_count(self, backend: str) -> int:
        return len(self.devices) or 1

    def session(self, backend: str, device: int = 0) -> WorkerSession:
        key = (backend, device)
        if key not in self._sessions:
            factory = self.registry.factory_path(backend) or factory_ref(self.registry.factories[backend]())
            traits = self.registry.traits(backend)
            env = dict(traits.device_env(self.devices[device])) if self.devices else {}
            spec = WorkerSpec(backend=backend, factory=factory, options=dict(self.registry.options.values), env=env,
                              warm_up=getattr(traits, "runtime_warm_up", None), compile_warm_up=self.main_times_compiles and device == 0)
            self._sessions[key] = WorkerSession(spec, self.limits, interrupted=self.interrupted, board=self.board)
        return self._sessions[key]

    def device_sessions(self, backend: str) -> list[WorkerSession]:
        return [self.session(backend, d) for d in range(self.device_count(backend))]

    def device_infos(self, backend: str) -> list[dict[str, Any]]:
        """What each started device worker of ``backend`` reported (``ready``), in device order."""
        return [s.device_info for (name, _), s in sorted(self._sessions.items()) if name == backend and s.device_info]

    def compile_session(self, backend: str, slot: int = 0) -> WorkerSession:
        """A fresh worker for one compile job (the phase closes it), or the one started ahead."""
        ahead = self._compile_ahead.pop((backend, slot), None)
        if ahead is not None:
            return ahead
        main = self.session(backend)
        # Compile jobs yield their CPUs (a compile item's time is CPU seconds, which a wait for a CPU
        # does not count): to collection when started early, to the device phase's builds when overlapped.
        env = {**main.spec.env, ENV_NICE: str(COMPILE_NICE)}
        if self.compile_cpus:
            env[ENV_CPUS] = describe(self.compile_cpus)
        return WorkerSession(replace(main.spec, warm_up=None, compile_warm_up=True, env=env), self.limits, interrupted=self.interrupted)

    def start_compile_jobs(self, backend: str, jobs: int) -> None:
        """Start them now, in the background: their imports overlap the run's first items."""
        for slot in range(jobs):
            if (backend, slot) not in self._compile_ahead:
                session = self.compile_session(backend, slot)
                session.start_early()
                self._compile_ahead[(backend, slot)] = session

    def keep_compile_jobs(self, wanted: Any) -> None:
        """End those started ahead that no phase takes (``wanted``: backend -> its jobs)."""
        unused = [k for k in self._compile_ahead if k[1] >= wanted.get(k[0], 0)]
        for backend in sorted({b for b, _ in unused}):
            trace.mark("compile jobs ended", backend=backend, workers=sum(1 for b, _ in unused if b == backend))
        for key in unused:
            self._compile_ahead.pop(key).close()

    def pin_compile_jobs(self, cpus: Any) -> None:
        """Compile-job workers, started or not, onto ``cpus`` at ``COMPILE_NICE`` (an overlapped run)."""
        self.compile_cpus = tuple(cpus)
        for session in self._compile_ahead.values():
            session.pin(cpus, cpus)
            session.renice(COMPILE_NICE)

    def start(self, backends: Any) -> None:
        """Start these backends' workers in the background: their start-up overlaps collection."""
        for name in backends:
            for session in self.device_sessions(name):
                session.start_early()

    def keep_only(self, backends: Any) -> None:
        """End the workers of backends that have no item left (after deselection)."""
        for key in [k for k in self._sessions if k[0] not in set(backends)]:
            self._sessions.pop(key).close()

    def device_session(self, backend: Any, ctx: Any, device: int = 0) -> WorkerDeviceSession:
        return WorkerDeviceSession(self.session(backend.name, device), ctx)

    def annotate(self, item: Any, outcome: Outcome) -> Outcome:
        """A failed outcome gets the worker's account; a ``WorkerFault``'s stage is unwrapped."""
        accounts = [s.failures[item.item_id] for (name, _), s in self._sessions.items()
                    if name == item.backend and item.item_id in s.failures]
        if outcome.status != "failed" or not accounts:
            return outcome
        outcome.worker = outcome.worker or accounts[0]
        match = FAULT_PREFIX.match(outcome.reason)
        if match:
            outcome.stage, outcome.reason = match["stage"], outcome.reason[match.end():]
        return outcome

    def _end(self, key: tuple, session: WorkerSession) -> None:
        if key not in self._closing:
            self._closing[key] = threading.Thread(target=session.close, daemon=True)
            self._closing[key].start()

    def begin_close(self) -> None:
        """Start ending every worker without waiting (``device_infos`` stay readable until ``close``)."""
        for key, session in self._sessions.items():
            self._end(key, session)

    def close(self) -> None:
        """End every worker, all at once, compile-job workers no phase took included."""
        for key, session in self._compile_ahead.items():
            self._end(("ahead", *key), session)
        self._compile_ahead.clear()
        self.begin_close()
        for thread in self._closing.values():
            thread.join()
        self._closing.clear()
        self._sessions.clear()
