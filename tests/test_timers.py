"""Backend timers' pure parts and the reference: CUPTI batch grouping on synthetic kernel
records (flush excluded, fallback cases), NVML reason names, the NaN-poisoned check and the
vendor GEMM's output and label of the built-in GEMM (its suites' declaration through the
generic path, on CPU torch, as a backend calls them), and ncu CSV parsing."""


import pytest
import torch

from tlbench.backends.nvidia.telemetry import reason_names
from tlbench.backends.gpu.timing import group_calls, separation_problem, several_kernels_note
from tlbench.harness.core import kernel_traits as ask
from builtin_gemm import FAMILY, config, gemm_case, gemm_vendor, problem

from tlbench.backends.tools.ncu_crosscheck import ncu_durations_s  # noqa: E402 - the tool of results/h200-measurement-trust/run.sh

FLUSH = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<unsigned char>>"
GEMM = "gemm_kernel"
RELU = "void at::native::vectorized_elementwise_kernel<4, at::native::clamp_min_scalar_kernel>"


def group_kernel_times(events, flush_names, count):
    calls = group_calls(events, flush_names, count)
    return None if calls is None else [c.busy_s for c in calls]


def test_cupti_records_group_per_call_and_exclude_the_flush():
    # three calls: flush then two kernels (GEMM + ReLU) each; times in microseconds
    events = []
    t = 0.0
    for gemm_us in (100.0, 110.0, 90.0):
        events += [(FLUSH, t, t + 50), (GEMM, t + 60, t + 60 + gemm_us), (RELU, t + 200, t + 205)]
        t += 1000
    samples = group_kernel_times(list(reversed(events)), {FLUSH}, 3)  # order of the records does not matter
    assert samples == pytest.approx([105e-6, 115e-6, 95e-6])


def test_a_two_kernel_vendor_call_is_timed_as_the_sum_of_its_kernels_and_says_so():
    """A vendor call launching two kernels (a GEMM, then a ReLU 40 us after it ends): its
    kernel-only time is the sum of the two durations, the 40 us gap left out; the note names
    the definition, the kernels of a call and how much longer first start to last end was."""
    events = []
    t = 0.0
    for gemm_us in (100.0, 110.0, 90.0):
        end = t + 60 + gemm_us
        events += [(FLUSH, t, t + 50), (GEMM, t + 60, end), (RELU, end + 40, end + 50)]
        t += 1000
    calls = group_calls(events, {FLUSH}, 3)
    assert [c.names for c in calls] == [(GEMM, RELU)] * 3
    assert [c.busy_s for c in calls] == pytest.approx([110e-6, 120e-6, 100e-6])
    assert [c.span_s for c in calls] == pytest.approx([150e-6, 160e-6, 140e-6])
    note = several_kernels_note(calls)
    assert note.startswith("kernel-only time of a call of several kernels: the sum of their durations (CUPTI), "
                           "the gaps between them left out; a call launched 2 kernels (gemm_kernel, ")
    assert note.endswith("first start to last end was 36.4% longer")  # median span 150 us over median sum 110 us
    assert several_kernels_note(group_calls([(FLUSH, 0, 5), (GEMM, 10, 20)], {FLUSH}, 1)) is None  # one kernel: nothing to say


def test_a_loop_of_per_group_calls_counts_every_kernel_of_the_call():
    """A grouped GEMM as a loop of four cuBLAS calls, one of them preceded by a memset: one
    call, six records, the sum of all six."""
    memset = "Memset (Device)"
    events = [(FLUSH, 0, 50)]
    t = 60.0
    for g in range(4):
        if g == 2:
            events.append((memset, t, t + 2))
            t += 5
        events.append((GEMM, t, t + 25))
        t += 30
    calls = group_calls(events, {FLUSH}, 1)
    assert len(calls[0].names) == 5 and calls[0].busy_s == pytest.approx((4 * 25 + 2) * 1e-6)
    assert "a call launched 5 kernels (gemm_kernel x4, Memset (Device))" in several_kernels_note(calls)


def test_a_flush_of_several_kernels_in_a_row_is_one_separator():
    cast, reduce = "elementwise cast", "reduce_kernel"  # a flush made of two kernels
    events = []
    t = 0.0
    for gemm_us in (100.0, 110.0):
        events += [(cast, t, t + 20), (reduce, t + 25, t + 50), (GEMM, t + 60, t + 60 + gemm_us)]
        t += 1000
    assert group_kernel_times(events, {cast, reduce}, 2) == pytest.approx([100e-6, 110e-6])


def test_cupti_records_that_do_not_split_per_call_give_none():
    events = [(FLUSH, 0, 50), (GEMM, 60, 160), (FLUSH, 1000, 1050)]  # the second call left no kernel record
    assert group_kernel_times(events, {FLUSH}, 2) is None
    assert group_kernel_times([(GEMM, 0, 10)], {FLUSH}, 1) is None  # no flush seen: cannot be split
    assert group_kernel_times(events[:2], {FLUSH}, 2) is None  # fewer groups than calls


@pytest.mark.parametrize(
    "flush, fn, enabled, words",
    [
        ({FLUSH}, {GEMM}, True, None),
        ({FLUSH}, {GEMM}, False, "flush disabled"),
        ({FLUSH}, set(), True, "no kernel for the measured call"),
        (set(), {GEMM}, True, "no kernel for the L2 flush"),
        ({FLUSH}, {FLUSH, GEMM}, True, "cannot separate kernels"),
    ],
)
def test_when_cupti_falls_back_to_events(flush, fn, enabled, words):
    problem = separation_problem(flush, fn, enabled)
    assert (problem is None) if words is None else (words in problem)


def test_nvml_reason_bits_are_named():
    assert reason_names(0x1) == ["gpu_idle"]
    assert reason_names(0x4 | 0x40) == ["sw_power_cap", "hw_thermal_slowdown"]
    assert reason_names(0x10000) == ["0x10000"]


def _gemm_inputs(problem_or_case, seed):
    """The GEMM's inputs and its output on CPU torch, as the device worker makes them (the CUDA
    body's signature gives the output; a 16x16x8 tile divides every size below)."""
    config_ = getattr(problem_or_case, "config", None) or FAMILY.config(config(16, 16, 8))
    inputs = ask.make_inputs(problem_or_case.problem, seed, "cpu", "cuda", config_)
    (C,) = inputs.outputs.tensors
    return inputs, *inputs.inputs, C


def test_check_output_fails_a_kernel_that_left_the_nan_poison():
    case = gemm_case(problem(32, 16, 8, "float32"), config(16, 16, 8))
    inputs, A, B, C = _gemm_inputs(case, 3)
    C.fill_(float("nan"))
    C[:, :8] = (A @ B.T)[:, :8]  # the "kernel" wrote half the output
    result = ask.check(inputs, case.problem, "cuda")
    assert not result.ok and result.mismatched == 32 * 8 and result.total == 32 * 16
    assert "256 still hold the poison value: never written?" in result.detail
    assert result.rule == "C: tolerance(rtol=0.01, atol=0.01)"
    C.copy_(A @ B.T)
    assert ask.check(inputs, case.problem, "cuda").ok


def test_vendor_gemm_relu_computes_what_the_kernel_computes_in_place():
    vendor = gemm_vendor(problem(64, 48, 32, "bfloat16", out_dtype="float32", epilogue="relu"))
    inputs, _, _, C = _gemm_inputs(vendor, 1)
    C.fill_(float("nan"))
    run, label = ask.vendor_call(vendor, inputs, "cuda", False)
    run()
    assert inputs.outputs.tensors[0] is C and C.dtype == torch.float32
    result = ask.check(inputs, vendor.problem, "cuda", vendor=True)
    assert result.ok and result.max_abs_err < 0.1, result
    assert label.startswith("vendor GEMM") and label.endswith("+ 1 elementwise kernel (in-place ReLU on C)")


def test_vendor_gemm_same_dtype_writes_out_directly():
    vendor = gemm_vendor(problem(16, 16, 16, "float32"))
    inputs, *_ = _gemm_inputs(vendor, 1)
    run, label = ask.vendor_call(vendor, inputs, "cuda", False)
    run()
    assert label == "vendor GEMM torch.matmul(out=C)" and ask.check(inputs, vendor.problem, "cuda", vendor=True).ok


NCU_CSV = '''==PROF== Connected to process 4242
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","4242","python3","127.0.0.1","gemm_kernel","1","7","(256, 1, 1)","(2048, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","msecond","1,622.50"
"1","4242","python3","127.0.0.1","gemm_kernel","1","7","(256, 1, 1)","(2048, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","usecond","1,630.00"
"2","4242","python3","127.0.0.1","gemm_kernel","1","7","(256, 1, 1)","(2048, 1, 1)","0","9.0","Command line profiler metrics","sm__throughput.avg.pct_of_peak_sustained_elapsed","%","91.2"
==PROF== Disconnected from process 4242
'''


def test_ncu_csv_durations_are_read_in_seconds(tmp_path):
    path = tmp_path / "ncu.csv"
    path.write_text(NCU_CSV)
    assert ncu_durations_s(str(path)) == pytest.approx([1.6225, 1.63e-3])


def test_ncu_ratio_range_says_whether_it_lies_inside_two_percent():
    from tlbench.backends.tools.ncu_crosscheck import ratio_range

    lo, hi, line = ratio_range([(1.01, 1.0), (0.99, 1.0), (1.005, 1.0)])
    assert (lo, hi) == pytest.approx((0.99, 1.01)) and "inside +-2%" in line
    _, _, line = ratio_range([(1.035, 1.0), (1.0, 1.0)])
    assert "misses +-2% by 1.50%" in line
