"""The CUDA-graph timer's bookkeeping and the timer choice, on the CPU.

``FakeGraphDevice`` is a fake of the CUDA part (backends/gpu/graph_timer.py::GraphDevice): its
"kernels" advance a fake clock by fixed durations, a captured graph replays the captured
kernels plus a fixed gap per graph node, and events add a fixed host overhead.  The timer must
recover the call's own time from K x (flush + call) and K x flush replays: the call plus the one
inter-kernel gap a graph keeps, without the flush and without the events' overhead.  The real
timer runs only on a GPU (results/h200-parity/h200_timers.sh).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tlbench.backends.gpu import graph_timer
from tlbench.backends.gpu.graph_timer import GraphTimer, launches_for, per_launch
from tlbench.backends.nvidia.timer_choice import DEFAULT_TIMER, TIMERS, make_timer, timer_name

FLUSH_S, CALL_S, GAP_S, EVENT_OVERHEAD_S = 30e-6, 8e-6, 0.7e-6, 5e-6


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.nodes = 0

    def kernel(self, seconds: float):
        def run() -> None:
            self.now += seconds
            self.nodes += 1
        return run


class FakeFlush:
    def __init__(self, clock: FakeClock, nbytes: int = 100 * 2**20) -> None:
        self.nbytes = nbytes
        self._run = clock.kernel(FLUSH_S)

    def __call__(self) -> None:
        if self.nbytes:
            self._run()


class FakeGraph:
    def __init__(self, seconds: float, nodes: int) -> None:
        self.seconds, self.nodes = seconds, nodes


class FakeGraphDevice:
    def __init__(self, clock: FakeClock, refuse: str | None = None) -> None:
        self.clock, self.refuse = clock, refuse
        self.captured: list[FakeGraph] = []
        self.warm_up_calls = 0

    def _run(self, body):
        t0, n0 = self.clock.now, self.clock.nodes
        body()
        return self.clock.now - t0, self.clock.nodes - n0

    def event_seconds(self, body) -> float:
        return self._run(body)[0] + EVENT_OVERHEAD_S

    def capture(self, body, repeat: int, warm_up: int):
        if self.refuse:
            raise RuntimeError(self.refuse)
        for _ in range(warm_up):
            self._run(body)
            self.warm_up_calls += 1
        seconds = nodes = 0
        for _ in range(repeat):
            s, n = self._run(body)
            seconds, nodes = seconds + s, nodes + n
        self.captured.append(FakeGraph(seconds, nodes))
        return self.captured[-1]

    def replay_seconds(self, graphs, rounds: int):
        return [[g.seconds + g.nodes * GAP_S for g in graphs] for _ in range(rounds)]

    def event_batch(self, flush, fn, k: int):
        out = []
        for _ in range(k):
            flush()
            out.append(self.event_seconds(fn))
        return out


def test_k_fills_the_target_replay_and_is_clamped():
    assert launches_for(43e-6) == 47  # ceil(2 ms / 43 us)
    assert launches_for(1.6e-3) == graph_timer.MIN_LAUNCHES
    assert launches_for(1e-9) == graph_timer.MAX_LAUNCHES
    assert launches_for(0.0) == launches_for(float("nan")) == graph_timer.MAX_LAUNCHES


def test_per_launch_subtracts_the_flush_graph_and_divides_by_k():
    assert per_launch([10.0, 12.0], [4.0, 4.0], 2) == [3.0, 4.0]
    assert per_launch([10.0], None, 4) == [2.5]
    with pytest.raises(ValueError, match="2 replays of the call graph but 1 of the flush graph"):
        per_launch([1.0, 2.0], [1.0], 1)


def test_with_the_flush_each_sample_is_the_call_plus_one_graph_gap():
    clock = FakeClock()
    device = FakeGraphDevice(clock)
    timer = GraphTimer(clock.kernel(CALL_S), FakeFlush(clock), device=device)
    estimate = FLUSH_S + CALL_S + EVENT_OVERHEAD_S
    assert timer.method == "cuda-graph" and timer.launches == launches_for(estimate) == 47
    calls_graph, flush_graph = device.captured
    assert (calls_graph.nodes, flush_graph.nodes) == (2 * 47, 47)  # K x (flush, call) and K x flush
    assert device.warm_up_calls == graph_timer.WARM_UP_CALLS + 1
    samples = timer.batch(3)
    assert samples == pytest.approx([CALL_S + GAP_S] * 3)
    assert "K=47 launches per replay" in timer.notes[0] and "flushes alone subtracted" in timer.notes[0]
    assert timer.l2_flush_bytes == 100 * 2**20


def test_without_the_flush_one_graph_of_k_calls():
    clock = FakeClock()
    device = FakeGraphDevice(clock)
    timer = GraphTimer(clock.kernel(CALL_S), FakeFlush(clock, nbytes=0), device=device)
    assert timer.launches == launches_for(CALL_S + EVENT_OVERHEAD_S) == 154
    assert [g.nodes for g in device.captured] == [154]
    assert timer.batch(2) == pytest.approx([CALL_S + GAP_S] * 2)
    assert "no L2 flush" in timer.notes[0]


def test_a_refused_capture_falls_back_to_events_and_says_why():
    clock = FakeClock()
    timer = GraphTimer(clock.kernel(CALL_S), FakeFlush(clock), device=FakeGraphDevice(clock, refuse="operation not permitted when stream is capturing"))
    assert timer.method == "cuda-event"
    assert timer.notes == ["CUDA graph capture failed (RuntimeError: operation not permitted when stream is capturing); "
                           "fell back to CUDA events"]
    assert timer.batch(2) == pytest.approx([CALL_S + EVENT_OVERHEAD_S] * 2)


def test_timer_names_and_the_events_timer_needs_no_profiler():
    assert TIMERS == ("cupti", "events", "graph") and timer_name(None) == timer_name("") == DEFAULT_TIMER == "cupti"
    with pytest.raises(ValueError, match="--tlbench-nvidia-timer wants one of cupti, events, graph, got 'ncu'"):
        timer_name("ncu")
    clock = FakeClock()
    timer = make_timer("events", clock.kernel(CALL_S), FakeFlush(clock))
    assert timer.method == "cuda-event" and "chosen: --tlbench-nvidia-timer=events" in timer.notes[0]
    assert clock.nodes == 0  # nothing ran: no CUPTI probe


def test_the_backend_keeps_the_chosen_timer_and_the_option_refuses_others(tmp_path):
    from tlbench.backends.nvidia.backend import NvidiaBackend
    from tlbench.harness.core.backend_api import BackendOptions

    assert NvidiaBackend(BackendOptions({"nvidia_arch": "sm_90a", "nvidia_timer": "graph"})).timer_name == "graph"
    assert NvidiaBackend(BackendOptions({"nvidia_arch": "sm_90a"})).timer_name == "cupti"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--co", "-q", "--tlbench-nvidia-timer=ncu"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 4, out.stdout + out.stderr  # pytest's usage error
    assert "argument --tlbench-nvidia-timer" in out.stderr and "invalid choice: 'ncu'" in out.stderr
    assert "'cupti', 'events', 'graph'" in out.stderr


def test_the_l2_flush_mode_is_write_unless_read_is_asked_for_and_others_are_refused(tmp_path):
    from tlbench.backends.nvidia.backend import NvidiaBackend
    from tlbench.backends.gpu.flush_choice import FLUSH_MODES, flush_mode
    from tlbench.harness.core.backend_api import BackendOptions

    assert FLUSH_MODES == ("write", "read") and flush_mode(None) == flush_mode("") == "write"
    with pytest.raises(ValueError, match="--tlbench-nvidia-l2-flush wants one of write, read, got 'invalidate'"):
        flush_mode("invalidate")
    assert NvidiaBackend(BackendOptions({"nvidia_arch": "sm_90a", "nvidia_l2_flush": "read"})).flush_mode == "read"
    assert NvidiaBackend(BackendOptions({"nvidia_arch": "sm_90a"})).flush_mode == "write"
    with pytest.raises(ValueError, match="--tlbench-nvidia-l2-flush"):
        NvidiaBackend(BackendOptions({"nvidia_arch": "sm_90a", "nvidia_l2_flush": "invalidate"}))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--co", "-q", "--tlbench-nvidia-l2-flush=invalidate"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 4, out.stdout + out.stderr  # pytest's usage error
    assert "argument --tlbench-nvidia-l2-flush" in out.stderr and "'write', 'read'" in out.stderr


@pytest.mark.parametrize("mode", ["write", "read"])
def test_each_l2_flush_mode_runs_its_real_torch_call_on_a_cpu_buffer(mode, monkeypatch):
    """The flush's own torch calls, run for real on a CPU tensor (the L2 size is the only thing
    stood in for): write zeroes the buffer, read leaves it as it was and sums it; only read has a note."""
    import torch

    from tlbench.backends.gpu.timing import L2Flush

    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda device: type("Props", (), {"L2_cache_size": 8192})())
    flush = L2Flush(torch.device("cpu"), True, mode)
    assert flush.nbytes == 16384
    flush._buffer.fill_(1)
    flush()
    if mode == "write":
        assert int(flush._buffer.sum()) == 0 and flush.note is None
    else:
        assert int(flush._buffer.sum()) == 16384 and flush._sum.tolist() == pytest.approx([1024 * 2.3694278e-38] * 4)
        assert flush.note.startswith("L2 flush: read 16384 bytes")
    off = L2Flush(torch.device("cpu"), False, mode)
    off()
    assert off.nbytes == 0 and off.note is None
    with pytest.raises(ValueError, match="one of write, read"):
        L2Flush(torch.device("cpu"), True, "invalidate")


def test_only_the_graph_timer_after_a_read_flush_carries_the_write_back_caveat():
    from tlbench.backends.gpu.flush_choice import flush_caveat

    assert "charged to the call" in flush_caveat("graph", "read", True)
    assert [flush_caveat(t, m, f) for t, m, f in [("graph", "write", True), ("graph", "read", False), ("cupti", "read", True),
                                                  ("events", "read", True)]] == [None] * 4
