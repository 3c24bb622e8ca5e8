"""A device worker runs its traits' ``runtime_warm_up`` in a thread as it starts, and the first
request that uses the device waits for it; a compile job's worker never runs it; a closed session
starts no new worker for a late request
(harness/measure/worker_main.py, harness/pytest_plugin/isolation.py).  The real worker
process, the FakeBackend and a test-only warm-up, ``fake_backend:record_warm_up``."""

from tlbench.harness.core.cases import MeasurePolicy
from tlbench.harness.core.record import BenchItem
from tlbench.harness.measure.worker_session import WorkerSession
from tlbench.harness.measure.worker_spec import WorkerSpec
from tile_family import TileConfig, TileProblem
from tlbench.harness.core.cases import Case

SPEC = WorkerSpec(backend="fake", factory="fake_backend:FakeBackend", warm_up="fake_backend:record_warm_up")


def _item() -> BenchItem:
    return BenchItem("fake", "compile", Case(TileProblem(1024, 1024, 1024), TileConfig(128, 128, 32, 128, "auto", 2)))


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
    from tlbench.harness.pytest_plugin.isolation import Workers

    log = tmp_path / "warm_up.log"
    monkeypatch.setenv("TLBENCH_TEST_WARM_UP_LOG", str(log))
    workers = Workers.__new__(Workers)  # its fields, without a pytest config
    workers.limits, workers.devices, workers._sessions = None, [], {("fake", 0): WorkerSession(SPEC)}
    workers.interrupted = lambda: False
    workers.compile_cpus, workers._compile_ahead = None, {}  # none started ahead, no CPUs to pin to
    worker = workers.compile_session("fake")
    assert worker.spec.warm_up is None and worker.spec.factory == SPEC.factory
    try:
        assert isinstance(worker.setup(_item(), MeasurePolicy(), 3), float)
        assert not log.exists()
    finally:
        worker.close()


def test_each_backends_runtime_warm_up_resolves_and_does_nothing_without_a_device():
    import importlib

    from tlbench.harness.core.backend_traits import TraitsCatalog

    catalog = TraitsCatalog.from_entry_points()
    refs = {traits.name: getattr(traits, "runtime_warm_up", None) for traits in catalog.all()}
    assert refs.get("nvidia") == "tlbench.backends.nvidia.warm_up:warm_up"
    for name, ref in refs.items():
        if ref:
            module, _, function = ref.partition(":")
            assert getattr(importlib.import_module(module), function)() is None, name  # CPU box: returns at once


def test_a_closed_session_answers_a_late_request_without_starting_a_worker():
    """A device thread of an interrupted run may still ask after the session was closed: it
    gets a failed outcome, and no new worker process is started for it."""
    from tlbench.harness.measure.outcome import Outcome

    worker = WorkerSession(SPEC)
    worker.start_early()
    worker.close()
    answer = worker.setup(_item(), MeasurePolicy(), 3)
    assert isinstance(answer, Outcome) and answer.status == "failed" and "closed" in answer.reason
    assert not worker.started
