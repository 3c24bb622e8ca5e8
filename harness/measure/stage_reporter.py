"""The backend as a device worker calls it: each call names its stage first and notes device faults.

Contract: ``StageReporter(backend, notify)`` passes attributes through; ``compile`` /
``make_inputs`` / ``check`` / ``measure`` / ``timer`` and ``device(stage, call, ...)`` call
``notify(stage)`` first.  An exception in a ``DEVICE_STAGES`` stage sets ``fault = (stage, words)``;
a ``SuiteCodeError`` only where the backend's ``device_fault()`` says the device is broken.
"""

from __future__ import annotations

from typing import Any

from ..core.backend_api import SuiteCodeError

DEVICE_STAGES = ("inputs", "check", "run")


class StageReporter:
    def __init__(self, backend: Any, notify) -> None:
        self._backend = backend
        self._notify = notify
        self.fault: tuple[str, str] | None = None
        self.stage = ""  # the last stage named

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend, name)

    def enter(self, stage: str) -> None:
        self.stage = stage
        self._notify(stage)

    def _note_fault(self, stage: str, exc: Exception) -> None:
        if not isinstance(exc, SuiteCodeError):
            self.fault = (stage, f"{type(exc).__name__}: {exc}")
            return
        probe = getattr(self._backend, "device_fault", None)
        broken = probe() if callable(probe) else None
        if broken is not None:
            self.fault = (stage, f"{exc}; and the device is broken: {broken}")

    def _call(self, stage: str, method: str, *args: Any) -> Any:
        self.enter(stage)
        try:
            return getattr(self._backend, method)(*args)
        except Exception as exc:
            if stage in DEVICE_STAGES:
                self._note_fault(stage, exc)
            raise

    def compile(self, case: Any, cold: bool) -> Any:
        return self._call("compile", "compile", case, cold)

    def make_inputs(self, *args: Any) -> Any:
        return self._call("inputs", "make_inputs", *args)

    def check(self, *args: Any) -> Any:
        return self._call("check", "check", *args)

    def measure(self, *args: Any) -> Any:
        return self._call("run", "measure", *args)

    def timer(self, *args: Any) -> Any:
        return self._call("run", "timer", *args)

    def device(self, stage: str, call, *args: Any, announce: bool = True) -> Any:
        if announce:
            self.enter(stage)
        try:
            return call(*args)
        except Exception as exc:
            self._note_fault(stage, exc)
            raise
