"""A device worker runs the backend's optional ``warm_up`` as it starts, and the first request
that uses the device waits for it; a compile job's worker never runs it
(harness/measure/worker_main.py).  The real worker process, the named test fake
``WarmUpRecordingFakeBackend`` (tests/fake_backend.py)."""

from harness.core.cases import MeasurePolicy
from harness.core.record import BenchItem
from harness.measure.worker_session import WorkerSession, WorkerSpec
from backends.kernels.gemm import GemmConfig, GemmProblem
from harness.core.cases import Case

SPEC = WorkerSpec(backend="fake", factory="fake_backend:WarmUpRecordingFakeBackend")


def _item() -> BenchItem:
    return BenchItem("fake", "compile", Case(GemmProblem(1024, 1024, 1024), GemmConfig(128, 128, 32, 128, "auto", 2)))


def test_a_device_worker_warms_up_before_its_first_request_answers(tmp_path, monkeypatch):
    log = tmp_path / "warm_up.log"
    monkeypatch.setenv("TLBENCH_TEST_WARM_UP_LOG", str(log))
    worker = WorkerSession(SPEC)
    try:
        seconds = worker.setup(_item(), MeasurePolicy(), 3)
        assert isinstance(seconds, float)
        lines = log.read_text().splitlines()  # written 0.5 s into the warm-up: the request waited for it
        assert len(lines) == 1 and lines[0].startswith("warm_up ")
    finally:
        worker.close()


def test_a_compile_jobs_worker_does_not_warm_up(tmp_path, monkeypatch):
    log = tmp_path / "warm_up.log"
    monkeypatch.setenv("TLBENCH_TEST_WARM_UP_LOG", str(log))
    worker = WorkerSession(SPEC, warm_up=False)
    try:
        assert isinstance(worker.setup(_item(), MeasurePolicy(), 3), float)
        assert not log.exists()
    finally:
        worker.close()
