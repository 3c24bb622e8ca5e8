"""Running a night's suites: one pytest process each, a line per suite, a clean interrupt.

Contract: ``SuiteRunner(python, pytest_args, out_dir, timeout_s, cwd, say)``: ``run(suite, ...)``
runs pytest in its own process group (``out_dir/json/<name>.json``, ``out_dir/logs/<name>.log``,
both first given to ``guard``) under ``timeout_s`` and returns a ``SuiteRun``; ``run_all(suites)``
returns ``NightRuns``.  Inside ``signals()`` SIGINT/SIGTERM stop the night: the suite under way
gets SIGINT, ``grace_s``, then its process tree is killed; the caller exits ``128 + signal``.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

from ..files.store import Results, ResultsError, load_results

PYTEST_OK, PYTEST_TESTS_FAILED, PYTEST_NO_TESTS = 0, 1, 5
GRACE_S = 10.0  # a suite asked to stop gets this long to end as interrupted before it is killed
_COLLECTED = re.compile(r"^collected (\d+) items?(?: / (\d+) deselected)?(?: / (\d+) selected)?")
_PROGRESS = re.compile(r"^\[tlbench\] .*\belapsed\b")  # a progress line (harness/pytest_plugin/progress.py)


@dataclass(frozen=True)
class SuiteRun:
    suite: Path
    status: str  # "ok" | "tests failed" | "no tests" | "crashed" | "timeout" | "no results" | "partial" | "interrupted"
    returncode: int | None
    seconds: float
    log: Path
    results: Results | None = None
    message: str = ""

    @property
    def usable(self) -> bool:
        return self.status in ("ok", "tests failed", "no tests")

    def counts(self) -> str:
        if self.results is None:
            return "no results"
        r = self.results
        return f"{len(r.timed)} timed, {len(r.failures)} failed, {len(r.skips)} skipped"


@dataclass(frozen=True)
class NightRuns:
    runs: tuple[SuiteRun, ...]
    interrupted: str = ""  # the signal's name when the night was stopped ("SIGINT", "SIGTERM")
    not_run: tuple[Path, ...] = ()


class NightInterrupted(Exception):
    """Raised in the main thread by ``run_all``'s handler; ``run`` is the suite stopped (if any)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.run: SuiteRun | None = None


def last_line(log: Path) -> str:
    try:
        lines = [ln.strip() for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return lines[-1][:200] if lines else ""


def _proc_table() -> dict[int, tuple[int, int]]:
    """pid -> (parent pid, start time in clock ticks) of every process /proc shows."""
    table: dict[int, tuple[int, int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return table
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()  # state, ppid, ... starttime is the 20th
            table[int(entry)] = (int(fields[1]), int(fields[19]))
        except (OSError, IndexError, ValueError):
            continue
    return table


def descendants(pid: int) -> dict[int, int]:
    """Every live process below ``pid`` (children, theirs, ...) -> its start time, read from
    /proc; {} where there is none (or no /proc)."""
    table = _proc_table()
    children: dict[int, list[int]] = {}
    for child, (parent, _start) in table.items():
        children.setdefault(parent, []).append(child)
    found: dict[int, int] = {}
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found[child] = table[child][1]
            todo.append(child)
    return found


def _kill_known(known: dict[int, int]) -> None:
    """SIGKILL each process of ``known`` that is still the same process (same start time)."""
    now = _proc_table()
    for pid, start in known.items():
        if now.get(pid, (0, -1))[1] == start:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def _signal_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def stop_tree(proc: subprocess.Popen, grace_s: float, hurry: threading.Event | None = None) -> None:
    """Ask ``proc``'s process group to stop (SIGINT), wait up to ``grace_s`` (less once ``hurry``
    is set), then SIGKILL the group and every descendant found before the kill (children in
    sessions of their own too: they are read before the SIGINT, since one whose parent exits
    in the grace is no longer below ``proc`` after it)."""
    below = descendants(proc.pid)
    if proc.poll() is None and grace_s > 0:
        _signal_group(proc.pid, signal.SIGINT)
        deadline = time.monotonic() + grace_s
        while proc.poll() is None and time.monotonic() < deadline and not (hurry is not None and hurry.is_set()):
            time.sleep(0.1)
            below.update(descendants(proc.pid))
    below.update(descendants(proc.pid))
    _signal_group(proc.pid, signal.SIGKILL)
    _kill_known(below)
    proc.wait()


class _LogRelay:
    """Follows a suite's log while it runs: the collected count and the suite's progress lines."""

    def __init__(self, log: Path, say: Callable[[str], None], prefix: str) -> None:
        self.log, self.say, self.prefix = log, say, prefix
        self.collected = ""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._follow, name="tlbench-nightly-log", daemon=True)

    def __enter__(self) -> "_LogRelay":
        self._thread.start()
        return self

    def __exit__(self, *_exc) -> None:
        self._stop.set()
        self._thread.join()

    def _follow(self) -> None:
        offset, partial = 0, b""
        while True:
            stopping = self._stop.wait(0.5)
            try:
                with open(self.log, "rb") as stream:
                    stream.seek(offset)
                    chunk = stream.read()
            except OSError:
                chunk = b""
            offset += len(chunk)
            lines = (partial + chunk).split(b"\n")
            partial = lines.pop()
            for raw in lines:
                self._line(raw.decode(errors="replace").strip())
            if stopping:
                return

    def _line(self, line: str) -> None:
        match = _COLLECTED.match(line)
        if match and not self.collected:
            total, deselected, selected = match.groups()
            self.collected = selected or total
            words = f"{self.collected} items" + (f" ({deselected} deselected)" if deselected else "")
            self.say(f"{self.prefix}: {words}")
        elif _PROGRESS.match(line):
            self.say(f"{self.prefix}:   {line}")


class SuiteRunner:
    def __init__(self, python: str, pytest_args: Sequence[str], out_dir: Path, timeout_s: float, cwd: Path | None = None,
                 say: Callable[[str], None] | None = None, grace_s: float = GRACE_S,
                 guard: Callable[[Sequence[Path]], None] = lambda _paths: None) -> None:
        self.python, self.pytest_args, self.out_dir, self.timeout_s, self.cwd = python, list(pytest_args), out_dir, timeout_s, cwd
        self.say = say or _print_line
        self.grace_s = grace_s
        self.guard = guard  # raises before a suite's files would be written over an input of the night
        self.hurry = threading.Event()  # a second signal: stop without the grace
        self._signals_on = False

    def run(self, suite: Path, targets: Sequence[str] = (), name: str = "", place: str = "") -> SuiteRun:
        name = name or suite.stem
        json_path = self.out_dir / "json" / f"{name}.json"
        log = self.out_dir / "logs" / f"{name}.log"
        self.guard([json_path, log])
        json_path.unlink(missing_ok=True)
        command = [self.python, "-m", "pytest", *(targets or [str(suite)]), *self.pytest_args, f"--benchmark-json={json_path}"]
        prefix = f"[nightly] {place + ' ' if place else ''}{name}"
        self.say(f"{prefix}: started (log {log})")
        start = time.monotonic()
        with log.open("w") as out:
            out.write("$ " + " ".join(command) + "\n")
            out.flush()
            proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=self.cwd, start_new_session=True)
            with _LogRelay(log, self.say, prefix):
                try:
                    returncode = proc.wait(timeout=self.timeout_s)
                except subprocess.TimeoutExpired:
                    stop_tree(proc, 0.0)
                    run = SuiteRun(suite, "timeout", None, time.monotonic() - start, log,
                                   message=f"killed after {self.timeout_s:g} s")
                    self._ended(prefix, run)
                    return run
                except NightInterrupted as stop:
                    self.say(f"{prefix}: {stop} received: stopping the suite (its pytest and the processes it started)")
                    stop_tree(proc, self.grace_s, self.hurry)
                    stop.run = SuiteRun(suite, "interrupted", None, time.monotonic() - start, log,
                                        message=f"interrupted by {stop} after {time.monotonic() - start:.0f} s")
                    self._ended(prefix, stop.run)
                    raise
                except BaseException:
                    stop_tree(proc, 0.0)
                    raise
        run = _finished(suite, returncode, time.monotonic() - start, log, json_path)
        self._ended(prefix, run)
        return run

    def _ended(self, prefix: str, run: SuiteRun) -> None:
        counts = f", {run.counts()}" if run.results is not None else ""
        note = f" ({run.message})" if run.message and run.status != "interrupted" else ""
        self.say(f"{prefix}: {run.status}{counts}, {run.seconds:.0f} s{note}")

    @contextmanager
    def signals(self) -> Iterator[None]:
        """SIGINT and SIGTERM raise ``NightInterrupted`` (the first; later ones only hurry the stop)."""
        if self._signals_on:
            yield
            return
        previous = {}
        seen: list[int] = []

        def stop(signum, _frame):
            seen.append(signum)
            if len(seen) == 1:
                raise NightInterrupted(signum)
            self.hurry.set()  # already stopping: no more grace

        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, stop)
        self._signals_on = True
        try:
            yield
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            self._signals_on = False

    def run_all(self, suites: Sequence[Path]) -> NightRuns:
        runs: list[SuiteRun] = []
        with self.signals():
            for k, suite in enumerate(suites, 1):
                try:
                    runs.append(self.run(suite, place=f"suite {k}/{len(suites)}"))
                except NightInterrupted as exc:
                    runs.append(exc.run or SuiteRun(suite, "interrupted", None, 0.0, self.out_dir / "logs" / f"{suite.stem}.log",
                                                    message=f"interrupted by {exc} before it started"))
                    return NightRuns(tuple(runs), str(exc), tuple(suites[k:]))
        return NightRuns(tuple(runs))


def interrupted_markdown(night: NightRuns, stage: str = "") -> str:
    """The summary of a night stopped by a signal: what finished, what was stopped, what never ran."""
    done = [r for r in night.runs if r.status != "interrupted"]
    where = f" during {stage}" if stage else ""
    out = [f"## tlbench nightly: INTERRUPTED by {night.interrupted}{where}: {len(done)} of "
           f"{len(night.runs) + len(night.not_run)} suite(s) finished; nothing was judged", ""]
    rows = [[str(r.suite), r.status, r.counts(), f"{r.seconds:.0f} s", r.message or str(r.log)] for r in night.runs]
    rows += [[str(s), "not run", "-", "-", "the night was stopped before it"] for s in night.not_run]
    header = "| suite | status | items | wall | note / log |"
    out += [header, "|---|---|---|---|---|", *("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows), ""]
    kept = [str(r.results.path) for r in done if r.results is not None and getattr(r.results, "path", None)]
    if kept:
        out += ["Results of the finished suites: " + ", ".join(f"`{k}`" for k in kept), ""]
    return "\n".join(out) + "\n"


_DESELECTED = re.compile(r"\b(\d+) deselected\b")


def no_tests_words(log: Path) -> str:
    """Why a suite's pytest ran nothing, in words (its last line read: ``N deselected`` is a
    selection, e.g. a scope or -k, that left nothing), then where its log is."""
    found = _DESELECTED.search(last_line(log))
    why = f"selected no item ({found.group(1)} deselected)" if found else "collected no item"
    return f"{why}; log {log}"


def _finished(suite: Path, returncode: int, seconds: float, log: Path, json_path: Path) -> SuiteRun:
    if returncode not in (PYTEST_OK, PYTEST_TESTS_FAILED, PYTEST_NO_TESTS):
        return SuiteRun(suite, "crashed", returncode, seconds, log, message=last_line(log))
    if not json_path.exists():
        if returncode == PYTEST_NO_TESTS:
            return SuiteRun(suite, "no tests", returncode, seconds, log, message=no_tests_words(log))
        return SuiteRun(suite, "no results", returncode, seconds, log, message=last_line(log))
    try:
        results = load_results(json_path)
    except ResultsError as exc:
        return SuiteRun(suite, "no results", returncode, seconds, log, message=str(exc))
    status = "tests failed" if returncode == PYTEST_TESTS_FAILED else "ok"
    return SuiteRun(suite, status, returncode, seconds, log, results=results)


def _print_line(line: str) -> None:
    print(line, flush=True)
