"""Name the suite code a worker is running once a stage has run for a few seconds.

Contract: ``BusyWatch(send, after_s, every_s)``: ``start()``, then ``begin(stage)`` / ``end()``
around each request; once a stage has run ``after_s`` it sends ``Busy`` every ``every_s`` while that
stage runs, naming ``where_any_thread`` (the innermost suite frame tool code called), never
``NO_SUITE_CODE``.  A failing ``send`` ends the watch quietly.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import sys
import sysconfig
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any, Callable

from .worker_messages import Busy

_HARNESS = Path(__file__).resolve().parents[1]
TOOL_DIRS = (str(_HARNESS), str(_HARNESS.parent / "backends"))
NO_SUITE_CODE = "no suite code on any thread (tlbench or the compiler at work)"


def _library_dirs() -> tuple[str, ...]:
    """Python's own and installed packages' folders: the library paths, every site-packages, and the
    folder of each loaded package whose distribution's .dist-info sits beside it (never the user's
    own code, an editable install's included)."""
    paths = sysconfig.get_paths()
    found = {paths.get(key) for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    found.update(p for p in sys.path if p.endswith(("site-packages", "dist-packages")))
    try:
        provided = importlib.metadata.packages_distributions()
    except Exception:  # noqa: BLE001 - broken metadata: the paths above still hold
        provided = {}
    for name, dists in provided.items():
        file = getattr(sys.modules.get(name), "__file__", None)
        if not file:
            continue
        file = os.path.realpath(file)
        is_package = os.path.basename(file) == "__init__.py"
        folder = os.path.dirname(file)
        installed_in = os.path.dirname(folder) if is_package else folder
        if not _has_dist_info(installed_in, dists):
            continue  # the user's own code (an editable install's too), or a module that only shares the name
        found.add(folder if is_package else file)
    return tuple(str(Path(p).resolve()) for p in found if p)


def _has_dist_info(folder: str, dists: list[str]) -> bool:
    """Whether ``folder`` holds the ``.dist-info`` of one of ``dists`` (where an installer put it)."""
    wanted = {re.sub(r"[-_.]+", "_", d).lower() for d in dists}
    try:
        names = os.listdir(folder)
    except OSError:
        return False
    return any(n.endswith(".dist-info") and re.sub(r"[-_.]+", "_", n[:-len(".dist-info")].split("-")[0]).lower() in wanted
               for n in names)


def _inside(filename: str, dirs: tuple[str, ...]) -> bool:
    if filename.startswith("<"):
        return True  # frozen modules, exec'd strings: never the suite's file
    path = os.path.realpath(filename)
    return any(path == d or path.startswith(d + os.sep) for d in dirs)


def where_running(frame: FrameType | None, tool_dirs: tuple[str, ...] = TOOL_DIRS,
                  library_dirs: tuple[str, ...] | None = None) -> str:
    stack: list[FrameType] = []
    while frame is not None:
        stack.append(frame)
        frame = frame.f_back
    if not stack:
        return "?"
    chosen = suite_callable(stack, tool_dirs, library_dirs if library_dirs is not None else _library_dirs())
    if chosen is None:
        return NO_SUITE_CODE
    code = chosen.f_code
    name = getattr(code, "co_qualname", code.co_name)
    return f"{name} ({_short(code.co_filename)}:{chosen.f_lineno})"


def suite_callable(stack: list[FrameType], tool_dirs: tuple[str, ...], library_dirs: tuple[str, ...]) -> FrameType | None:
    """Of a stack (innermost first), the suite frame tool code called; None without one."""
    kinds = ["tool" if _inside(f.f_code.co_filename, tool_dirs) else "library" if _inside(f.f_code.co_filename, library_dirs)
             else "suite" for f in stack]
    for index, kind in enumerate(kinds):
        if kind == "suite" and next((k for k in kinds[index + 1:] if k != "library"), "tool") == "tool":
            return stack[index]
    return None


def where_any_thread(main_ident: int | None, tool_dirs: tuple[str, ...] = TOOL_DIRS,
                     library_dirs: tuple[str, ...] | None = None) -> str:
    frames = sys._current_frames()
    library = library_dirs if library_dirs is not None else _library_dirs()
    for ident in [main_ident, *sorted(i for i in frames if i != main_ident)]:
        where = where_running(frames.get(ident), tool_dirs, library)
        if where != NO_SUITE_CODE:
            return where
    return NO_SUITE_CODE


def _short(filename: str) -> str:
    try:
        relative = os.path.relpath(filename)
    except ValueError:
        return filename
    return relative if not relative.startswith("..") else filename


class BusyWatch:
    def __init__(self, send: Callable[[Busy], Any], after_s: float = 3.0, every_s: float = 5.0,
                 clock: Callable[[], float] = time.monotonic, tool_dirs: tuple[str, ...] = TOOL_DIRS) -> None:
        self._send, self.after_s, self.every_s, self._clock = send, after_s, every_s, clock
        self._tool_dirs = tool_dirs
        self._lock = threading.Lock()
        self._stage: str | None = None
        self._since = 0.0
        self._told_at: float | None = None
        self._generation = 0  # counts begin and end: a line is sent only for the stage it was due in
        self._main = threading.main_thread().ident
        self._stop = threading.Event()

    def start(self) -> None:
        threading.Thread(target=self._run, name="tlbench-busy-watch", daemon=True).start()

    def begin(self, stage: str) -> None:
        with self._lock:
            self._stage, self._since, self._told_at = stage, self._clock(), None
            self._generation += 1

    def end(self) -> None:
        with self._lock:
            self._stage = None
            self._generation += 1

    def stop(self) -> None:
        self._stop.set()

    def due(self) -> tuple[str, float, int] | None:
        """``(stage, seconds, generation)`` when a line is due now (and marks it told), else None."""
        with self._lock:
            if self._stage is None:
                return None
            now = self._clock()
            ran = now - self._since
            if ran < self.after_s or (self._told_at is not None and now - self._told_at < self.every_s):
                return None
            self._told_at = now
            return self._stage, ran, self._generation

    def send_if_current(self, generation: int, message: Busy) -> bool:
        """Send only while its stage runs (under the lock, so it precedes the answer)."""
        with self._lock:
            if generation != self._generation or self._stage is None:
                return False
            self._send(message)
            return True

    def _run(self) -> None:
        library: tuple[str, ...] | None = None  # read once, when first needed: it scans the installed packages
        while not self._stop.wait(0.5):
            told = self.due()
            if told is None:
                continue
            library = library if library is not None else _library_dirs()
            where = where_any_thread(self._main, self._tool_dirs, library)
            if where == NO_SUITE_CODE:  # tlbench or the compiler at work: its phase's own line says so
                continue
            try:
                self.send_if_current(told[2], Busy(told[0], where, told[1]))
            except Exception:  # noqa: BLE001 - the controller is gone or going: a progress line never matters more
                return
