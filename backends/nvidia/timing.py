"""Kernel-only device time on NVIDIA GPUs.

Contract: ``sample_device_times(fn, policy, device)`` returns ``DeviceSamples`` whose
``samples_s`` are the GPU's own start/end timestamps of the kernels ``fn`` launches (CUPTI
activity records, read through ``torch.profiler``/kineto), one sample per call, with the L2
cache flushed before every call outside the timed kernels.  Launch gaps, host overhead and
the flush are not in the number, which is what ``ncu``'s ``gpu__time_duration`` reports.
Where the profiler yields no usable records, CUDA events around each call are used instead
and the method says so (``cuda-event``): the number is then a few percent high.
Sampling stops when the median's confidence interval is within ``policy.cv_target``, or at
``policy.max_samples`` / ``policy.max_seconds``.
"""

from __future__ import annotations

import time
import warnings
from typing import Callable

import torch

from harness.measure.stats import enough
from harness.core.cases import DeviceSamples, MeasurePolicy

METHOD_CUPTI = "cupti-kernel-timestamps"
METHOD_EVENTS = "cuda-event"


class L2Flush:
    """Overwrite a buffer twice the size of L2 so the next kernel starts cold."""

    def __init__(self, device: torch.device, enabled: bool) -> None:
        props = torch.cuda.get_device_properties(device)
        l2 = int(getattr(props, "L2_cache_size", 0) or 50 * 2**20)
        self.nbytes = 2 * l2 if enabled else 0
        self._buffer = torch.empty(self.nbytes, dtype=torch.uint8, device=device) if enabled else None

    def __call__(self) -> None:
        if self._buffer is not None:
            self._buffer.zero_()


def _kernel_events(prof) -> list[tuple[str, float, float]]:
    """(name, start_us, end_us) of every GPU kernel in a profile, in start order."""
    out = []
    for event in prof.events():
        if getattr(getattr(event, "device_type", None), "name", "") != "CUDA":
            continue
        if getattr(event, "is_user_annotation", False):
            continue
        tr = event.time_range
        out.append((event.name, float(tr.start), float(tr.end)))
    out.sort(key=lambda e: e[1])
    return out


def _profile(calls: Callable[[], None]):
    from torch.profiler import ProfilerActivity, profile

    with warnings.catch_warnings():
        # "Profiler clears events at the end of each cycle": expected, one cycle per batch.
        warnings.filterwarnings("ignore", message="Profiler clears events", category=UserWarning)
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            calls()
            torch.cuda.synchronize()
        return _kernel_events(prof)


def _cupti_batch(fn, flush: L2Flush, count: int, flush_names: set[str]) -> list[float] | None:
    """One profiled batch; None when the records cannot be split into ``count`` calls."""

    def calls():
        for _ in range(count):
            flush()
            fn()

    events = _profile(calls)
    samples: list[float] = []
    current: float | None = None
    for name, start, end in events:
        if name in flush_names:
            if current is not None:
                samples.append(current)
            current = 0.0
        elif current is not None:
            current += end - start
    if current is not None:
        samples.append(current)
    if len(samples) != count or any(s <= 0 for s in samples):
        return None
    return [s * 1e-6 for s in samples]


def _event_batch(fn, flush: L2Flush, count: int) -> list[float]:
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(count)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(count)]
    for i in range(count):
        flush()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) * 1e-3 for s, e in zip(starts, ends)]


def sample_device_times(fn: Callable[[], None], policy: MeasurePolicy, device: torch.device) -> DeviceSamples:
    flush = L2Flush(device, policy.flush_l2)
    for _ in range(policy.warmup):
        flush()
        fn()
    torch.cuda.synchronize()
    notes: list[str] = []
    method = METHOD_CUPTI
    flush_names: set[str] = set()
    try:
        flush_names = {name for name, _, _ in _profile(flush)} if policy.flush_l2 else set()
        fn_names = {name for name, _, _ in _profile(fn)}
        if not fn_names or (flush_names & fn_names) or (policy.flush_l2 and not flush_names):
            raise RuntimeError(f"cannot separate kernels: flush {sorted(flush_names)} vs measured {sorted(fn_names)}")
        if not policy.flush_l2:
            raise RuntimeError("kernel timestamps are split at the L2 flush; flush disabled")
    except Exception as exc:  # no CUPTI in this torch build, or unseparable kernels
        method = METHOD_EVENTS
        notes.append(f"CUPTI timestamps unavailable ({exc}); fell back to CUDA events")
    samples: list[float] = []
    deadline = time.perf_counter() + policy.max_seconds
    while not enough(samples, policy.min_samples, policy.max_samples, policy.cv_target):
        count = min(policy.batch, policy.max_samples - len(samples))
        batch = _cupti_batch(fn, flush, count, flush_names) if method == METHOD_CUPTI else None
        if batch is None and method == METHOD_CUPTI:
            method = METHOD_EVENTS
            notes.append("CUPTI records did not split into one group per call; fell back to CUDA events")
            samples.clear()
        if batch is None:
            batch = _event_batch(fn, flush, count)
        samples.extend(batch)
        if time.perf_counter() > deadline and len(samples) >= policy.min_samples:
            notes.append(f"stopped at the {policy.max_seconds:.1f} s time cap before reaching the noise target")
            break
    return DeviceSamples(samples_s=tuple(samples), method=method, l2_flush_bytes=flush.nbytes, notes=tuple(notes))
