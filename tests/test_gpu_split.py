"""Splitting a multi-GPU run by expected cost (harness/pytest_plugin/gpu_split.py)."""

from backends.kernels.gemm import GemmConfig, GemmProblem
from harness.core.cases import Case, VendorCase
from harness.core.record import BenchItem
from harness.pytest_plugin.gpu_split import assign_groups, expected_cost, vendor_copies

BIG, SMALL = GemmProblem(8192, 8192, 8192), GemmProblem(1024, 1024, 1024)


def _kernel(problem, stages):
    return BenchItem("nvidia", "device", Case(problem, GemmConfig(128, 128, 64, 256, "auto", stages)))


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
    assert [v.item_id for v in vendors] == ["device-nvidia-gemm-8192x8192x8192-f16-vendor-gpu0", "device-nvidia-gemm-8192x8192x8192-f16-vendor-gpu1"]
    assert {v.describe()["case_id"] for v in vendors} == {"gemm-8192x8192x8192-f16-vendor"}  # one history key


def test_the_controller_reads_the_same_cost_off_the_item_id():
    from harness.pytest_plugin.gpu_split import expected_cost_of_id

    item = _kernel(BIG, 3)
    assert expected_cost_of_id(item.item_id) == expected_cost(item)
    assert expected_cost_of_id("device-nvidia-fa-b2-h16-s8192-d128-bf16-sdpa_flash") == 1.0  # no size in the id: one unit
