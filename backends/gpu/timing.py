"""Kernel-only device time on CUDA GPUs (CUPTI, CUDA events): a timer, not a sampling loop.

Contract: ``CudaTimer(fn, flush, telemetry)`` is a ``DeviceTimer`` (harness/core/backend_api.py): ``batch(k)`` runs
``fn`` k times, each after the L2 flush, and returns the GPU's own start/end timestamps of the kernels ``fn``
launched (CUPTI activity records, read through kineto, torch.autograd.profiler with use_device="cuda"), summed per
call, flush kernels excluded: what ``ncu``'s ``gpu__time_duration`` reports, without launch gaps or host overhead.
A call that launches several kernels (a vendor library's GEMM and its epilogue, a loop of per-group cuBLAS calls) is
timed as the **sum of its kernels' durations** - the GPU's busy time for the call; the gaps between its kernels are
not in it.  Such a timer's ``notes`` say so, with the kernels of one call and how much longer its
first-start-to-last-end span was (read from its first batch).  When the profiler yields no usable records, or they
do not split into one group per call, it falls back to CUDA events around each call: ``method`` becomes
``cuda-event`` and ``notes`` say why (the number is then a few percent high).  ``telemetry()`` reads NVML
(backends/nvidia/telemetry.py). How many batches, when to stop, drift: harness/measure/rounds.py, nowhere else.
``group_calls`` / ``group_kernel_times`` are the pure grouping step (tested on synthetic event lists).
``CudaTimer(..., use_cupti=False)`` is the events timer from the start (``--tlbench-nvidia-timer=events``):
``event_batch``, a CUDA event pair around each call after its flush, launch gaps and host overhead of the call
included.  The CUDA-graph timer is backends/gpu/graph_timer.py.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import torch

from .flush_choice import FLUSH_MODES, read_flush_note

METHOD_CUPTI = "cupti-kernel-timestamps"
METHOD_EVENTS = "cuda-event"
ROW_WORDS = 1024  # the read flush's row width (its buffer is 2 x L2 bytes: a multiple of 4 KiB on every GPU)


class L2Flush:
    """Empty L2 before the next kernel with a buffer twice its size.

    ``write`` overwrites the buffer: L2 is then full of the buffer's dirty lines, and the next kernel's misses write
    them back to memory inside its own timed span (a memory-bound kernel pays for that).  ``read`` reads the buffer
    (row sums, one kernel): the lines it leaves are clean, and the previous call's dirty outputs are written back
    during the flush, outside the span - the state ncu's ``--cache-control all`` leaves.  ``note`` is the line a
    record timed after a ``read`` flush carries (None for ``write``, the default, and with the flush off)."""

    def __init__(self, device: torch.device, enabled: bool, mode: str = "write") -> None:
        if mode not in FLUSH_MODES:
            raise ValueError(f"L2 flush mode is one of {', '.join(FLUSH_MODES)}, got {mode!r}")
        props = torch.cuda.get_device_properties(device)
        l2 = int(getattr(props, "L2_cache_size", 0) or 50 * 2**20)
        self.mode = mode
        self.nbytes = 2 * l2 if enabled else 0
        self._buffer = torch.zeros(self.nbytes, dtype=torch.uint8, device=device) if enabled else None
        reading = enabled and mode == "read"
        # Row sums of 1024 float32 words: one kernel, no cast copy (a sum into another dtype writes
        # one first) and no memset (a sum to one scalar clears a semaphore first, and a
        # cuBLAS call launches memsets too: CUPTI could not tell the flush from the call).
        self._words = self._buffer.view(torch.float32).view(-1, ROW_WORDS) if reading else None
        self._sum = torch.zeros(self.nbytes // 4 // ROW_WORDS, dtype=torch.float32, device=device) if reading else None
        self.note = read_flush_note(self.nbytes) if reading else None

    def __call__(self) -> None:
        if self._words is not None:
            torch.sum(self._words, dim=1, out=self._sum)
        elif self._buffer is not None:
            self._buffer.zero_()


@dataclass(frozen=True)
class CallKernels:
    """The kernels of one timed call, from its CUPTI records."""

    names: tuple[str, ...]  # in launch order
    busy_s: float  # the sum of their durations: the call's kernel-only time
    span_s: float  # first kernel's start to last kernel's end (the gaps between them included)


def group_calls(events: Sequence[tuple[str, float, float]], flush_names: set[str], count: int) -> list[CallKernels] | None:
    """Split (name, start_us, end_us) kernel records of ``count`` flush+call pairs into the kernels of each call (a
    flush of several kernels in a row is one separator; records before the first flush are not a call's); None when
    they do not split into ``count`` calls with positive time (the caller then falls back to events)."""
    groups: list[list[tuple[str, float, float]]] = []
    in_flush = False
    for name, start, end in sorted(events, key=lambda e: e[1]):
        if name in flush_names:
            if not in_flush:
                groups.append([])
            in_flush = True
            continue
        in_flush = False
        if groups:
            groups[-1].append((name, float(start), float(end)))
    calls = [CallKernels(tuple(n for n, _, _ in g), sum(e - s for _, s, e in g) * 1e-6,
                         (max(e for _, _, e in g) - min(s for _, s, _ in g)) * 1e-6 if g else 0.0) for g in groups]
    if len(calls) != count or any(c.busy_s <= 0 for c in calls):
        return None
    return calls


def group_kernel_times(events: Sequence[tuple[str, float, float]], flush_names: set[str], count: int) -> list[float] | None:
    """The kernel-only time of each call (``group_calls``' sums), in seconds; None where they do not split."""
    calls = group_calls(events, flush_names, count)
    return None if calls is None else [c.busy_s for c in calls]


def several_kernels_note(calls: Sequence[CallKernels]) -> str | None:
    """The note of a timer whose calls launch several kernels: what its time covers (the sum of the kernels'
    durations), the kernels of one call and how much longer the span was; None for calls of one kernel."""
    if not calls or max(len(c.names) for c in calls) <= 1:
        return None
    first = calls[0]
    kinds = ", ".join(f"{name} x{n}" if n > 1 else name for name, n in Counter(first.names).items())
    busy = sorted(c.busy_s for c in calls)[len(calls) // 2]
    span = sorted(c.span_s for c in calls)[len(calls) // 2]
    longer = f"{100.0 * (span - busy) / busy:.1f}%" if busy > 0 else "?"
    return (f"kernel-only time of a call of several kernels: the sum of their durations (CUPTI), the gaps between them "
            f"left out; a call launched {len(first.names)} kernels ({kinds}); first start to last end was {longer} longer")


def separation_problem(flush_names: set[str], fn_names: set[str], flush_enabled: bool) -> str | None:
    """Why CUPTI records cannot be split per call (None: they can)."""
    if not flush_enabled:
        return "kernel timestamps are split at the L2 flush; flush disabled"
    if not fn_names:
        return "the profiler recorded no kernel for the measured call"
    if not flush_names:
        return "the profiler recorded no kernel for the L2 flush"
    if flush_names & fn_names:
        return f"cannot separate kernels: flush {sorted(flush_names)} vs measured {sorted(fn_names)}"
    return None


def _kernel_events(events) -> list[tuple[str, float, float]]:
    out = []
    for event in events:
        if getattr(getattr(event, "device_type", None), "name", "") != "CUDA":
            continue
        if getattr(event, "is_user_annotation", False):
            continue
        tr = event.time_range
        out.append((event.name, float(tr.start), float(tr.end)))
    return out


def event_batch(flush: Callable[[], None], fn: Callable[[], None], k: int) -> list[float]:
    """Seconds of k calls of ``fn``, each after ``flush``, between two CUDA events."""
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(k)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(k)]
    for i in range(k):
        flush()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) * 1e-3 for s, e in zip(starts, ends)]


def profile_kernels(calls: Callable[[], Any]) -> list[tuple[str, float, float]]:
    """(name, start_us, end_us) of every CUDA kernel ``calls`` launched, from CUPTI (kineto).

    Through ``torch.autograd.profiler.profile(use_kineto=True, use_cpu=False, use_device="cuda")``: the session
    ``torch.profiler.profile(activities=[CUDA])`` opens, without its ``prepare_trace``, whose ``hasattr(torch,
    "_inductor")`` imports torch's compiler stack (dynamo and inductor) on first use: 1.9 s on the CPU box, 3.7-5.5
    s on the H200, paid by every device worker before its first sample."""
    from torch.autograd.profiler import profile

    with profile(use_cpu=False, use_device="cuda", use_kineto=True) as prof:
        calls()
        torch.cuda.synchronize()
    return _kernel_events(prof.function_events)


class CudaTimer:
    def __init__(self, fn: Callable[[], None], flush: L2Flush, telemetry: Any = None, use_cupti: bool = True) -> None:
        self.fn, self.flush, self._telemetry = fn, flush, telemetry
        self.l2_flush_bytes = flush.nbytes
        self.notes: list[str] = []
        self.method = METHOD_CUPTI if use_cupti else METHOD_EVENTS
        self._flush_names: set[str] = set()
        self._described = False
        if not use_cupti:
            self.notes.append("CUDA events around each call (chosen: --tlbench-nvidia-timer=events)")
            return
        try:
            self._flush_names = {n for n, _, _ in profile_kernels(flush)} if flush.nbytes else set()
            problem = separation_problem(self._flush_names, {n for n, _, _ in profile_kernels(fn)}, bool(flush.nbytes))
        except Exception as exc:  # no CUPTI in this torch build
            problem = f"{type(exc).__name__}: {exc}"
        if problem:
            self._fall_back(f"CUPTI timestamps unavailable ({problem}); fell back to CUDA events")

    def _fall_back(self, why: str) -> None:
        self.method = METHOD_EVENTS
        self.notes.append(why)

    def _cupti_batch(self, k: int) -> list[float] | None:
        def calls():
            for _ in range(k):
                self.flush()
                self.fn()

        grouped = group_calls(profile_kernels(calls), self._flush_names, k)
        if grouped is None:
            return None
        if not self._described:  # once: what the time of a call of several kernels is
            self._described = True
            note = several_kernels_note(grouped)
            if note:
                self.notes.append(note)
        return [c.busy_s for c in grouped]

    def _event_batch(self, k: int) -> list[float]:
        return event_batch(self.flush, self.fn, k)

    def batch(self, k: int) -> list[float]:
        if self.method == METHOD_CUPTI:
            samples = self._cupti_batch(k)
            if samples is not None:
                return samples
            self._fall_back("CUPTI records did not split into one group per call; fell back to CUDA events")
        return self._event_batch(k)

    def telemetry(self) -> dict[str, Any] | None:
        return self._telemetry.read() if self._telemetry is not None else None
