"""The device phase measures one chunk per (backend, problem) and hands each chunk over as
soon as it ends (the plugin journals it there), with the named FakeBackend.

What is pinned: the first item asked for measures exactly its problem's items (kernels and
the problem's vendor item) and nothing of another problem; ``on_chunk`` gets that chunk's
outcomes before any later chunk is measured; later items of a chunk get the stored outcome
without measuring again; an item asked for again is measured on its own, in a session of
the same factory (a worker's, when items run in one).
"""

import fake_backend
from tile_family import TileConfig, TileProblem
from tlbench.harness.core.backend_api import BackendOptions
from tlbench.harness.core.cases import Case, MeasurePolicy, VendorCase
from tlbench.harness.core.record import BenchItem
from tlbench.harness.measure.device_phase import DevicePhase
from tlbench.harness.measure.device_session import InProcessSession
from tlbench.harness.measure.runner import RunContext

A, B = TileProblem(1024, 1024, 1024), TileProblem(2048, 1024, 1024)


def _items():
    out = []
    for problem in (A, B):
        out += [BenchItem("fake", "device", Case(problem, TileConfig(128, n, 32, 128, "auto", 2))) for n in (128, 64)]
        out.append(BenchItem("fake", "device", VendorCase(problem)))
    return [out[0], out[3], out[1], out[4], out[2], out[5]]  # the problems alternate, as a -k or ordering may leave them


def test_each_problem_is_one_chunk_handed_over_when_it_ends():
    backend = fake_backend.FakeBackend(BackendOptions())
    ctx = RunContext(policy=MeasurePolicy(max_samples=20), compile_rounds=1, seed=0, compiled=lambda b, c: b.compile(c, False))
    chunks, sessions = [], []

    def make_session(b, c, device=0):
        sessions.append(InProcessSession(b, c))
        return sessions[-1]

    phase = DevicePhase(make_session=make_session, on_chunk=lambda pairs: chunks.append([(i.item_id, o.status) for i, o in pairs]))
    items = _items()
    first = phase.outcome(items[0], backend, items, ctx)
    assert first.status == "timed" and len(chunks) == 1 and len(sessions) == 1
    assert [i for i, _ in chunks[0]] == [i.item_id for i in items if i.case.problem == A]  # with A's vendor item, not B's
    assert all(status == "timed" for _, status in chunks[0])
    second = phase.outcome(items[1], backend, items, ctx)  # the first item of B: B's chunk
    assert second.status == "timed" and len(chunks) == 2 and len(sessions) == 2
    assert [i for i, _ in chunks[1]] == [i.item_id for i in items if i.case.problem == B]
    for item in items[2:]:
        assert phase.outcome(item, backend, items, ctx).status == "timed"
    assert len(chunks) == 2 and len(sessions) == 2 and not phase.stored  # stored outcomes, nothing measured again
    again = phase.outcome(items[0], backend, items, ctx)  # asked for again: measured on its own,
    assert again.status == "timed" and len(chunks) == 2 and len(sessions) == 3  # in a session of the same factory
