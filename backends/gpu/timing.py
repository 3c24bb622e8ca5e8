"""Kernel-only device time on CUDA GPUs (CUPTI, CUDA events): a timer, not a sampling loop.

Contract: ``CudaTimer(fn, flush, telemetry)`` is a ``DeviceTimer`` (harness/core/backend_api.py):
``batch(k)`` runs ``fn`` k times, each after the L2 flush, and returns the CUPTI kernel
timestamps summed per call, flush kernels excluded (what ncu's ``gpu__time_duration`` reports).
Where the records do not split one group per call it falls back to CUDA events (``notes`` say
why); ``use_cupti=False`` is the events timer from the start.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import torch

from .flush_choice import FLUSH_MODES, groups_at_flushes, read_flush_note

METHOD_CUPTI = "cupti-kernel-timestamps"
METHOD_EVENTS = "cuda-event"
ROW_WORDS = 1024  # the read flush's row width (its buffer is 2 x L2 bytes: a multiple of 4 KiB on every GPU)


class L2Flush:
    """Empty L2 before the next kernel with a buffer twice its size: ``write`` leaves dirty lines
    the next kernel's misses write back; ``read`` clean ones, as ncu's ``--cache-control all``."""

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
    """The kernels of each of ``count`` flush+call pairs, from (name, start_us, end_us) records;
    None where they do not split into ``count`` calls with positive time (then: events)."""
    in_order = [(n, float(s), float(e)) for n, s, e in sorted(events, key=lambda e: e[1])]
    groups, _ = groups_at_flushes(in_order, flush_names)
    calls = [CallKernels(tuple(n for n, _, _ in g), sum(e - s for _, s, e in g) * 1e-6,
                         (max(e for _, _, e in g) - min(s for _, s, _ in g)) * 1e-6 if g else 0.0) for g in groups]
    return None if len(calls) != count or any(c.busy_s <= 0 for c in calls) else calls


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
    return [(e.name, float(e.time_range.start), float(e.time_range.end)) for e in events
            if getattr(getattr(e, "device_type", None), "name", "") == "CUDA"
            and not getattr(e, "is_user_annotation", False)]


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
    """(name, start_us, end_us) of every CUDA kernel ``calls`` launched, from CUPTI (kineto),
    through the autograd profiler (``torch.profiler`` imports dynamo and inductor: seconds)."""
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

    def batch(self, k: int) -> list[float]:
        if self.method == METHOD_CUPTI:
            samples = self._cupti_batch(k)
            if samples is not None:
                return samples
            self._fall_back("CUPTI records did not split into one group per call; fell back to CUDA events")
        return event_batch(self.flush, self.fn, k)

    def telemetry(self) -> dict[str, Any] | None:
        return self._telemetry.read() if self._telemetry is not None else None
