"""A backend's device items spread over several devices in one pytest process
(harness/measure/device_pieces.py, piece_runner.py, device_phase.py; ``--tlbench-devices``
with two or more ids and no xdist).

Pinned: how items are cut into pieces and ordered (largest first, each device with its own
vendor copy); that devices take pieces as they become free and every piece is handed over
once; that a piece that raises fails its items instead of leaving a caller waiting; that
concurrent progress reports merge into one stream that only grows; and, end to end with the
named FakeBackend (``FAKE_VISIBLE_DEVICES`` is its pinning), that one pytest process runs a
worker per device, every kernel record names the device that measured it and is paired
with that device's vendor copy, and ``tlbench report`` reads the file.
"""

import json
import os
import subprocess
import sys
import threading
import time

import fake_backend
import pytest

from tile_family import TileConfig, TileProblem
from tlbench.harness.core.cases import Case, VendorCase
from tlbench.harness.core.record import BenchItem
from tlbench.harness.measure.device_pieces import expected_cost, plan_pieces, prefetch_order
from tlbench.harness.measure.outcome import Outcome
from tlbench.harness.measure.piece_runner import MergedProgress, PieceRunner
from tlbench.harness.measure.rounds import LoopProgress

BIG, SMALL = TileProblem(8192, 8192, 8192), TileProblem(1024, 1024, 1024)


def _kernels(problem, n):
    return [BenchItem("nvidia", "device", Case(problem, TileConfig(128, 128, 64, 256, "auto", s))) for s in range(n)]


def _vendors(problem, copies):
    return [BenchItem("nvidia", "device", VendorCase(problem), copy=k) for k in copies]


def test_one_device_keeps_one_piece_per_problem_fewest_kernels_first():
    items = _kernels(SMALL, 3) + _kernels(BIG, 2) + _vendors(SMALL, [None]) + _vendors(BIG, [None])
    pieces = plan_pieces(items, 1)
    assert [p.key[1] for p in pieces] == [BIG, SMALL]  # 2 kernels to build before 3, though collected second
    assert [i.item_id for i in pieces[1].items_for(0)] == [i.item_id for i in items[:3]] + [items[5].item_id]
    assert [i.item_id for i in pieces[0].items_for(0)] == [i.item_id for i in items[3:5]] + [items[6].item_id]


def test_one_device_pieces_of_equal_size_keep_collection_order():
    items = _kernels(SMALL, 2) + _kernels(BIG, 2)
    assert [p.key[1] for p in plan_pieces(items, 1)] == [SMALL, BIG]


def test_several_devices_deal_each_problem_largest_first_each_with_its_own_vendor_copy():
    small, big = _kernels(SMALL, 5), _kernels(BIG, 4)
    items = small + big + _vendors(SMALL, [0, 1]) + _vendors(BIG, [0, 1])
    pieces = plan_pieces(items, 2)
    assert [p.key[1] for p in pieces] == [BIG, BIG, SMALL, SMALL]  # longest first, though collected last
    assert [len(p.kernels) for p in pieces] == [2, 2, 3, 2]
    assert {i for p in pieces for i in p.kernels} == set(small + big)  # every kernel once
    assert pieces[0].kernels == (big[0], big[2])  # dealt round-robin: each piece a mix of the sweep
    for device in (0, 1):
        vendors = [i for i in pieces[1].items_for(device) if isinstance(i.case, VendorCase)]
        assert [v.copy for v in vendors] == [device]  # whichever piece a device takes, its own GPU's vendor


def test_the_cheapest_problem_which_ends_the_run_is_dealt_finer():
    small, big = _kernels(SMALL, 8), _kernels(BIG, 8)
    pieces = plan_pieces(small + big + _vendors(SMALL, [0, 1]) + _vendors(BIG, [0, 1]), 2)
    assert [(p.key[1], len(p.kernels)) for p in pieces] == [(BIG, 4), (BIG, 4)] + [(SMALL, 2)] * 4
    assert {i for p in pieces for i in p.kernels} == set(small + big)


def test_a_kernel_sweep_problem_costs_its_suites_flops():
    """The balancing model asks the family: a kernel_sweep suite's ``flops=`` (the built-in GEMM's
    2MNK), and nothing extra where the suite's flops cannot say."""
    from builtin_gemm import config, gemm_case, gemm_vendor, problem
    from tlbench import kernel_sweep

    big = gemm_case(problem(8192, 8192, 8192), config(128, 128, 64, 256))
    assert expected_cost(BenchItem("nvidia", "device", big)) == pytest.approx(1.0 + 2 * 8192 ** 3 / 1e12)
    assert expected_cost(BenchItem("nvidia", "device", gemm_vendor(problem(1024, 1024, 1024)))) == pytest.approx(1.0 + 2 * 1024 ** 3 / 1e12)

    def flops(N):
        raise ZeroDivisionError("the suite's own bug")

    broken = kernel_sweep("broken", lambda N: None, sizes={"N": 1}, inputs=lambda device, N: [], flops=flops)
    (case,) = broken.cases("nvidia", "full")
    assert expected_cost(BenchItem("nvidia", "device", case)) == 1.0


def test_each_device_prefetches_its_own_first_piece_first_and_every_case_once():
    items = _kernels(BIG, 4) + _kernels(SMALL, 2)
    cases = [i.case for i in items]
    first = prefetch_order(cases, 2, 0)
    second = prefetch_order(cases, 2, 1)
    assert sorted(map(str, first)) == sorted(map(str, cases)) == sorted(map(str, second))
    assert first[:2] == [cases[0], cases[2]] and second[:2] == [cases[1], cases[3]]
    assert prefetch_order(cases, 1, 0) == cases[4:] + cases[:4]  # one device: its pieces' order, fewest kernels first


def _pieces(n_problems):
    problems = [TileProblem(1024 * (k + 1), 1024, 1024) for k in range(n_problems)]
    return plan_pieces([i for p in problems for i in _kernels(p, 2)], 2)


def test_free_devices_take_the_next_piece_and_every_piece_is_handed_over_once():
    pieces = _pieces(4)  # 8 pieces
    took: dict[int, list] = {0: [], 1: []}

    def measure(piece, device):
        took[device].append(piece)
        time.sleep(0.15 if device == 0 else 0.01)  # device 0 is slow: device 1 takes the rest
        return [(i, Outcome(status="timed", samples_s=(1e-3,), record={"device": device})) for i in piece.items_for(device)]

    runner = PieceRunner(pieces, 2, measure, background=True)
    runner.start()
    handed = []
    while (pairs := runner.next_done()) is not None:
        handed += [i.item_id for i, _ in pairs]
    assert runner.finished and runner.devices_used == {0, 1}
    assert sorted(handed) == sorted(i.item_id for p in pieces for i in p.kernels)  # each once
    assert len(took[1]) > len(took[0])


def test_a_piece_that_raises_fails_its_items_and_the_others_still_come():
    pieces = _pieces(2)

    def measure(piece, device):
        if piece is pieces[0]:
            raise RuntimeError("device lost")
        return [(i, Outcome(status="timed", samples_s=(1e-3,), record={})) for i in piece.items_for(device)]

    runner = PieceRunner(pieces, 2, measure, background=True)
    runner.start()
    outcomes = {}
    while (pairs := runner.next_done()) is not None:
        outcomes.update((i.item_id, o) for i, o in pairs)
    failed = [o for o in outcomes.values() if o.status == "failed"]
    assert len(failed) == len(pieces[0].kernels) and all("RuntimeError: device lost" in o.reason for o in failed)
    assert len(outcomes) == sum(len(p.kernels) for p in pieces)


def test_without_background_nothing_runs_until_asked_and_then_in_the_calling_thread():
    pieces = _pieces(2)
    threads = []

    def measure(piece, device):
        threads.append((threading.current_thread(), device))
        return []

    runner = PieceRunner(pieces, 2, measure, background=False)
    runner.start()
    assert threads == []
    runner.next_done()
    assert threads == [(threading.current_thread(), 0)] and not runner.finished


def test_concurrent_progress_merges_into_one_growing_stream():
    seen = []
    left = [True]
    merged = MergedProgress(seen.append, lambda: not left[0])
    a, b = merged.for_device(0), merged.for_device(1)
    a(LoopProgress(done=1, total=10, items=3, round=0, min_rounds=3))
    b(LoopProgress(done=2, total=8, items=2, round=1, min_rounds=3))
    a(LoopProgress(done=10, total=10, items=3, round=3, min_rounds=3, finished=True))
    left[0] = False
    b(LoopProgress(done=8, total=8, items=2, round=3, min_rounds=3, finished=True))
    assert [s.done for s in seen] == [1, 3, 12, 18] and [s.items for s in seen] == [3, 5, 5, 5]
    assert [s.finished for s in seen] == [False, False, False, True]
    assert seen[1].round == 0 and seen[1].total == 1 + 2 + 9 + 6


def test_spread_runs_the_device_items_largest_problem_first_in_their_own_slots():
    from types import SimpleNamespace

    from tlbench.harness.pytest_plugin.spread import largest_problem_first

    small, big = _kernels(SMALL, 2), _kernels(BIG, 2)
    compile_item = BenchItem("nvidia", "compile", small[0].case)
    benches = [compile_item, *small, *big]
    by_id = {b.item_id: b for b in benches}
    nodes = [SimpleNamespace(callspec=SimpleNamespace(params={"tlbench_item": b.item_id})) for b in benches]
    plain = SimpleNamespace()  # not a tlbench item: stays where it is
    items = [nodes[0], plain, *nodes[1:]]
    largest_problem_first(items, by_id)
    ids = [i.callspec.params["tlbench_item"] if hasattr(i, "callspec") else None for i in items]
    assert ids == [compile_item.item_id, None, big[0].item_id, big[1].item_id, small[0].item_id, small[1].item_id]


SPREAD_SUITE = """
from tlbench.harness.core.sweep import Sweep
from tile_family import TileConfig, TileProblem

SWEEP = Sweep(name="spread_suite", problems=[TileProblem(1024, 1024, 1024), TileProblem(2048, 1024, 1024)],
              configs=[TileConfig(128, n, 32, 128, "auto", 2) for n in (16, 32, 64, 128)], vendor=True)

def test_fake(tlbench):
    tlbench.run()
"""


def test_one_process_spreads_the_items_over_a_worker_per_device(tmp_path):
    (tmp_path / "conftest.py").write_text(fake_backend.CONFTEST)
    (tmp_path / "test_spread_suite.py").write_text(SPREAD_SUITE)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST") and k != "FAKE_VISIBLE_DEVICES"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--tlbench-backend=fake", "--tlbench-seed=3",
         "--tlbench-kind=device", "--tlbench-devices=3,5", "--benchmark-json=spread.json"],
        cwd=tmp_path, capture_output=True, text=True, env=env,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    document = json.loads((tmp_path / "spread.json").read_text())
    records = [b["extra_info"]["tlbench"] for b in document["benchmarks"]]
    kernels = [r for r in records if not r["case_id"].endswith("-vendor")]
    vendors = [r for r in records if r["case_id"].endswith("-vendor")]
    assert len(kernels) == 8 and len(vendors) == 4  # one vendor copy per device and problem
    assert {r["device_uuid"] for r in kernels} == {"FAKE-3", "FAKE-5"}  # both workers measured
    assert sorted((r["problem"]["M"], r["device_uuid"]) for r in vendors) == [
        (1024, "FAKE-3"), (1024, "FAKE-5"), (2048, "FAKE-3"), (2048, "FAKE-5")]
    assert all(r["measurement"]["interleaved"] and r["measurement"]["vs_vendor_rounds"] for r in kernels)
    fake = document["machine_info"]["tlbench"]["backends"]["fake"]
    assert fake["devices"] == ["FAKE-3", "FAKE-5"] and fake["workers"] == 2
    report = subprocess.run([sys.executable, "-m", "tlbench.harness.cli", "report", "spread.json"], cwd=tmp_path,
                            capture_output=True, text=True, env=env)
    assert report.returncode == 0, report.stderr[-2000:]


def test_several_devices_need_worker_isolation(tmp_path):
    (tmp_path / "conftest.py").write_text(fake_backend.CONFTEST)
    (tmp_path / "test_spread_suite.py").write_text(SPREAD_SUITE)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--tlbench-backend=fake", "--tlbench-devices=3,5",
         "--tlbench-isolation=inprocess"],
        cwd=tmp_path, capture_output=True, text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")},
    )
    assert done.returncode == 4 and "drop --tlbench-isolation inprocess" in done.stderr, done.stderr[-2000:]
