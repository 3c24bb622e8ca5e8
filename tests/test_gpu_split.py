"""Splitting a multi-GPU run by expected cost (harness/pytest_plugin/gpu_split.py): the family's
flops where the items are known (the workers tell the controller their costs), the
``-MxNxK-`` of an id only for an id no worker reported."""

import pytest

from tile_family import TileConfig, TileProblem
from tlbench.harness.core.cases import Case, VendorCase
from tlbench.harness.core.record import BenchItem
from tlbench.harness.pytest_plugin.gpu_split import assign_groups, expected_cost, vendor_copies

BIG, SMALL = TileProblem(8192, 8192, 8192), TileProblem(1024, 1024, 1024)


def _kernel(problem, stages):
    return BenchItem("nvidia", "device", Case(problem, TileConfig(128, 128, 64, 256, "auto", stages)))


def test_groups_balance_expected_cost_not_item_count():
    items = [_kernel(BIG, 2), _kernel(BIG, 3)] + [_kernel(SMALL, s) for s in range(6)]
    groups = assign_groups(items, 2)
    load = [sum(expected_cost(i) for i in items if groups[i.item_id] == g) for g in (0, 1)]
    count = [sum(1 for i in items if groups[i.item_id] == g) for g in (0, 1)]
    assert groups[items[0].item_id] != groups[items[1].item_id]  # the two big problems on different GPUs
    assert abs(load[0] - load[1]) <= max(expected_cost(i) for i in items)
    assert count == [4, 4]


def test_each_gpu_gets_its_own_vendor_copy():
    assert vendor_copies(1) == [None] and vendor_copies(3) == [0, 1, 2]
    vendors = [BenchItem("nvidia", "device", VendorCase(BIG), copy=k) for k in vendor_copies(2)]
    groups = assign_groups([*vendors, _kernel(BIG, 2)], 2)
    assert [groups[v.item_id] for v in vendors] == [0, 1]
    assert [v.item_id for v in vendors] == ["device-nvidia-tile-8192x8192x8192-f16-vendor-gpu0", "device-nvidia-tile-8192x8192x8192-f16-vendor-gpu1"]
    assert {v.describe()["case_id"] for v in vendors} == {"tile-8192x8192x8192-f16-vendor"}  # one history key


def test_the_id_fallback_reads_the_same_cost_off_an_mxnxk_item_id():
    from tlbench.harness.pytest_plugin.gpu_split import expected_cost_of_id

    item = _kernel(BIG, 3)
    assert expected_cost_of_id(item.item_id) == expected_cost(item)
    assert expected_cost_of_id("device-nvidia-fa-b2-h16-s8192-d128-bf16-sdpa_flash") == 1.0  # no size in the id: one unit


GROUP_SUITE = """
from tlbench.harness.core.sweep import Sweep
from tile_family import TileConfig, TileProblem

SWEEP = Sweep(name="split_suite", problems=[TileProblem(1024, 1024, 1024)],
              configs=[TileConfig(128, n, 32, 128, "auto", 2) for n in (16, 32, 64, 128)], vendor=True)

def test_fake(tlbench):
    tlbench.run()
"""


def test_each_xdist_worker_measures_its_group_as_one_interleaved_phase_with_its_own_vendor(tmp_path):
    """Real pytest-xdist workers with the named fake backend: a worker knows its cost group from
    its first item, prefetches and measures only that group, in one interleaved phase (one
    clock warm-up, the vendor ratio per round).  Before, each item was measured on its own
    (a warm-up per item, no per-round vendor ratio), which made 2 GPUs slower than one."""
    import json
    import os
    import subprocess
    import sys

    import fake_backend

    pytest.importorskip("xdist")
    (tmp_path / "conftest.py").write_text(fake_backend.CONFTEST)
    (tmp_path / "test_split_suite.py").write_text(GROUP_SUITE)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--tlbench-backend=fake", "--tlbench-seed=3",
         "--tlbench-kind=device", "-n", "2", "--tlbench-devices=3,5", "--benchmark-json=split.json"],
        cwd=tmp_path, capture_output=True, text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")},
    )
    assert done.returncode == 0, done.stdout[-3000:]
    records = [b["extra_info"]["tlbench"] for b in json.loads((tmp_path / "split.json").read_text())["benchmarks"]]
    kernels = [r for r in records if not r["case_id"].endswith("-vendor")]
    assert len(kernels) == 4 and len(records) == 6  # 4 kernels + one vendor copy per GPU
    assert all(r["measurement"]["interleaved"] and r["measurement"]["vs_vendor_rounds"] for r in kernels)
    warmups = {r["measurement"]["warmup"]["item"] for r in records}
    assert len(warmups) == 2  # one phase, one clock warm-up, per worker


def test_a_worker_whose_first_item_is_in_no_group_keeps_every_item_and_says_so():
    from tlbench.harness.pytest_plugin.gpu_split import groups_of_nodeids, worker_group_items

    items = [_kernel(BIG, 2), _kernel(SMALL, 3), _kernel(SMALL, 4)]
    nodeids = [f"suites/test_x.py::test_x[{i.item_id}]" for i in items]
    groups = groups_of_nodeids(nodeids, 2)
    assert set(groups.values()) == {0, 1}
    mine = worker_group_items(items, groups, items[0].item_id)
    assert mine == [i for i in items if groups[i.item_id] == groups[items[0].item_id]] and items[0] in mine
    assert worker_group_items(items, groups, "device-nvidia-not-collected") is None


def _kernel_sweep_items():
    """A kernel_sweep suite whose ids name ``N`` only (no ``-MxNxK-``) and whose flops the suite
    declares: two large problems (N=16384, 32768) that sort first and third by id."""
    from tlbench import kernel_sweep

    sweep = kernel_sweep("vadd", lambda N, tile: None, sizes=[{"N": n} for n in (16384, 2048, 32768, 4096)],
                         axes={"tile": [256]}, inputs=lambda device, N: [], flops=lambda N: N * 1e9)
    return [BenchItem("fake", "device", case) for case in sweep.cases("fake", "full")]


def test_a_kernel_sweep_suite_whose_ids_name_no_mxnxk_is_dealt_by_its_flops_where_the_items_are_known():
    from tlbench.harness.pytest_plugin.gpu_split import expected_cost_of_id, expected_costs, groups_of_nodeids

    items = _kernel_sweep_items()
    nodeids = [f"test_wide_suite.py::test_wide[{i.item_id}]" for i in items]
    costs = expected_costs(items)
    by_n = {i.case.problem.values["N"]: i.item_id for i in items}
    assert costs[by_n[32768]] == pytest.approx(1 + 32.768) and expected_cost_of_id(by_n[32768]) == 1.0  # the id says nothing
    dealt = groups_of_nodeids(nodeids, 2, costs)
    assert dealt[by_n[32768]] != dealt[by_n[16384]]  # the two large problems on different GPUs
    assert {n for n, i in by_n.items() if dealt[i] == dealt[by_n[32768]]} == {32768}  # 33.8 units against 17.4 + 5.1 + 3.0
    by_id = groups_of_nodeids(nodeids, 2)  # no items known: one unit each, dealt by count
    assert by_id[by_n[32768]] == by_id[by_n[16384]]
    some = {i: c for i, c in costs.items() if i != by_n[2048]}  # an id no worker reported: its cost read off the id
    assert groups_of_nodeids(nodeids, 2, some) == groups_of_nodeids(nodeids, 2, {**some, by_n[2048]: 1.0})


def test_the_costs_a_worker_writes_are_what_the_controller_reads(tmp_path):
    from tlbench.harness.pytest_plugin.gpu_split import expected_costs, read_costs, write_costs

    costs = expected_costs(_kernel_sweep_items())
    write_costs(str(tmp_path), "gw0", costs)
    write_costs(str(tmp_path), "gw1", costs)
    assert read_costs(str(tmp_path)) == costs and sorted(p.name for p in tmp_path.iterdir()) == ["gw0.json", "gw1.json"]
    assert read_costs(str(tmp_path / "absent")) == {} and read_costs(None) == {}


WIDE_BODY = '''
import tilelang
import tilelang.language as T


@tilelang.jit
def vadd(A, B, tile, num_stages=2, threads=128):
    N = T.const("N")
    A: T.Tensor((N,), "float32")
    B: T.Tensor((N,), "float32")
    C = T.empty((N,), "float32")
    with T.Kernel(8, threads=threads) as bx:
        a = T.alloc_shared((tile,), "float32")
        b = T.alloc_shared((tile,), "float32")
        c = T.alloc_fragment((tile,), "float32")
        for step in T.Pipelined(N // (8 * tile), num_stages=num_stages):
            begin = (step * 8 + bx) * tile
            T.copy(A[begin], a)
            T.copy(B[begin], b)
            for i in T.Parallel(tile):
                c[i] = a[i] + b[i]
            T.copy(c, C[begin])
    return C
'''

WIDE_SUITE = '''
import torch
from tlbench import kernel_sweep
from wide_body import vadd

SWEEP = kernel_sweep(
    "vadd", {"cuda": vadd}, sizes=[{"N": n} for n in (16384, 2048, 32768, 4096)], axes={"tile": [256]},
    inputs=lambda device, N: [torch.randn(N, device=device), torch.randn(N, device=device)],
    reference=lambda a, b: a + b,
    flops=lambda N: N * 1e9,
)


def test_wide(tlbench):
    tlbench.run()
'''


def test_under_xdist_the_controller_deals_a_kernel_sweep_suite_by_the_costs_its_workers_report(tmp_path):
    """Real pytest-xdist workers, the named fake backend (it builds and runs nothing), a
    kernel_sweep suite whose ids name no MxNxK (its body is traced by the preflight, so
    tilelang is needed): the largest problem gets a GPU to itself, every item is measured once
    (the controller's units are the workers' groups).  Dealt by the ids alone, the two large
    problems shared a GPU."""
    import json
    import os
    import subprocess
    import sys

    import fake_backend

    pytest.importorskip("xdist")
    pytest.importorskip("tilelang")
    (tmp_path / "conftest.py").write_text(fake_backend.CONFTEST)
    (tmp_path / "wide_body.py").write_text(WIDE_BODY)
    (tmp_path / "test_wide_suite.py").write_text(WIDE_SUITE)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--tlbench-backend=fake", "--tlbench-seed=3",
         "--tlbench-kind=device", "-n", "2", "--tlbench-devices=3,5", "--benchmark-json=wide.json", "-k", "not N4096"],
        cwd=tmp_path, capture_output=True, text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")},
    )
    assert done.returncode == 0, done.stdout[-3000:]
    records = [b["extra_info"]["tlbench"] for b in json.loads((tmp_path / "wide.json").read_text())["benchmarks"]]
    device = {r["case_id"]: r["device_uuid"] for r in records}
    assert sorted(device) == ["vadd-N16384-tile256", "vadd-N2048-tile256", "vadd-N32768-tile256"]  # each once, -k applied
    assert device["vadd-N32768-tile256"] != device["vadd-N16384-tile256"] == device["vadd-N2048-tile256"]
