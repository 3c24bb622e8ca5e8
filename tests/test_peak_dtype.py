"""Which dtype's peak a device record is read against, when its problem names no dtype.

A ``kernel_sweep`` problem's sizes often name none (suites/gemv/test_gemv.py: ``{"M", "N"}``, fp16
tensors from ``inputs``).  What is pinned: the device session records the dtypes of the
tensors the kernel was called with (``input_dtypes``), and the roofline reads the peak of
their one floating dtype (index and mask tensors do not choose it); the problem's own dtype
still wins; where no peak can be chosen the words say why, in the record and the summary.

The end-to-end test runs the shipped GEMV suite's vendor item through the real device
session, sampling loop, record builder and enrichment on CPU tensors with a TEST-ONLY
backend (``CpuVendorBackend``): the GEMV's ``a @ x`` timed with ``perf_counter`` on this
host, the H200 datasheet profile asked for as if on an H200 - so the numbers say nothing
about a GPU; what is asserted is which peak the record is read against.
"""

import json
import time

import pytest

from tlbench.backends.nvidia import profiles as nvidia_profiles
from tlbench.harness.core.device_profile import match_profile
from tlbench.harness.results.report.roofline import PEAK_UNKNOWN, annotate, format_pct
from tlbench.harness.results.report.summary import summary_lines

H200 = match_profile(nvidia_profiles.PROFILES, "NVIDIA H200")


class CpuVendorBackend:
    """TEST ONLY: runs a kernel_sweep suite's vendor items on CPU tensors (no kernel is built or
    run), timed with perf_counter; answers the H200 datasheet profile for the roofline."""

    name = "cpu-vendor"
    dialect = "cuda"

    def compile_blocker(self):
        return None

    def device_blocker(self):
        return None

    def device_info(self):
        return {"accelerator": "NVIDIA H200"}

    def device_profile(self, info):
        return match_profile(nvidia_profiles.PROFILES, info.get("accelerator"))

    def make_inputs(self, problem, seed, config=None):
        from tlbench.harness.core import kernel_traits

        return kernel_traits.make_inputs(problem, seed, "cpu", self.dialect, config)

    def _vendor(self, case, inputs, timed=True):
        from tlbench.harness.core import kernel_traits

        return kernel_traits.vendor_call(case, inputs, self.dialect, timed=timed)[0]  # untimed: writes the outputs

    def check(self, runnable, inputs):
        from tlbench.harness.core import kernel_traits

        runnable.problem.family.output(inputs).poison_()
        self._vendor(runnable, inputs, timed=False)()
        return kernel_traits.check(inputs, runnable.problem, self.dialect, vendor=True)

    def timer(self, runnable, inputs, flush_l2):
        return _PerfCounterTimer(self._vendor(runnable, inputs))


class _PerfCounterTimer:
    method = "perf_counter around the vendor call on CPU (test only)"
    l2_flush_bytes = 0

    def __init__(self, run):
        self.run, self.notes = run, []

    def batch(self, k):
        out = []
        for _ in range(k):
            start = time.perf_counter()
            self.run()
            out.append(time.perf_counter() - start)
        return out

    def telemetry(self):
        return None


def test_the_gemv_suite_whose_sizes_name_no_dtype_is_read_against_the_peak_of_its_fp16_inputs():
    pytest.importorskip("torch")
    pytest.importorskip("tilelang")
    from tlbench.suites.gemv.test_gemv import SWEEP

    from tlbench.harness.core.cases import MeasurePolicy
    from tlbench.harness.core.record import BenchItem
    from tlbench.harness.measure.device_session import InProcessSession
    from tlbench.harness.measure.outcome import RunContext
    from tlbench.harness.measure.rounds import measure_items
    from tlbench.harness.pytest_plugin.enrich import enrich_record

    vendor = SWEEP.vendor_cases("nvidia", "smoke", "cuda")[0]
    assert "dtype" not in vendor.problem.to_dict()  # {"M": 2048, "N": 2048}
    item = BenchItem("cpu-vendor", "device", vendor)
    backend = CpuVendorBackend()
    policy = MeasurePolicy(warmup=0, batch=3, rounds=1, criterion="fixed:samples=3", clock_warmup_s=0.0)
    ctx = RunContext(policy=policy, compile_rounds=1, seed=0, compiled=lambda b, c: None)
    [outcome] = measure_items(InProcessSession(backend, ctx), [item], policy, sleep=lambda s: None)
    assert outcome.status == "timed", outcome
    record = json.loads(json.dumps(outcome.record))  # as the JSON holds it
    assert record["input_dtypes"] == ["float16", "float16"] and record["check"]["ok"]
    enrich_record(record, backend, vendor)
    roof, tflops = record["roofline"], record["throughput"]["tflops"]
    assert (roof["status"], roof["dtype"], roof["dtype_from"]) == ("ok", "float16", "inputs")
    assert roof["peak_tflops"] == pytest.approx(989.5)
    assert record["throughput"]["pct_of_peak"] == pytest.approx(100 * tflops / 989.5)
    text = "\n".join(summary_lines([{**record, "status": "timed"}]))
    assert "peak unknown" not in text


def _record(problem, input_dtypes=None, **throughput):
    """A device record as item_record writes it (harness/core/record.py): ``input_dtypes`` is
    absent from records written before it was recorded."""
    rec = {"kind": "device", "backend": "nvidia", "case_id": "k-M4096", "problem": problem, "config": {"blk": 128},
           "summary": {"median": 1e-4}, "throughput": throughput or {"tflops": 98.95}}
    if input_dtypes is not None:
        rec["input_dtypes"] = input_dtypes
    return rec


def test_index_and_mask_tensors_do_not_choose_the_peak_and_torch_spellings_are_read_as_the_profile_names():
    from tlbench.harness.results.report.roofline import peak_dtype

    assert peak_dtype(_record({"M": 1}, ["float16", "float16", "bool"])) == ("float16", "inputs", "")
    assert peak_dtype(_record({"M": 1}, ["float8_e4m3fn", "float8_e4m3fn", "int32"])) == ("float8_e4m3", "inputs", "")
    assert peak_dtype(_record({"M": 1}, ["int8", "int8", "bool"])) == ("int8", "inputs", "")  # an integer GEMM
    on = annotate(_record({"M": 1}, ["float8_e4m3fn", "float8_e4m3fn"]), H200)
    assert on["roofline"]["peak_tflops"] == pytest.approx(1979) and on["throughput"]["pct_of_peak"] == pytest.approx(5.0)


def test_the_problems_own_dtype_wins_over_its_inputs():
    from tlbench.harness.results.report.roofline import peak_dtype

    rec = _record({"M": 1, "dtype": "bfloat16"}, ["float32"])
    assert peak_dtype(rec) == ("bfloat16", "problem", "")
    assert annotate(rec, H200)["roofline"]["dtype_from"] == "problem"


def test_where_no_peak_can_be_chosen_the_words_say_why():
    mixed = annotate(_record({"M": 1}, ["float8_e4m3fn", "float8_e4m3fn", "float32"]), H200)
    assert mixed["throughput"]["pct_of_peak"] is None and mixed["roofline"]["status"] == PEAK_UNKNOWN
    why = ("the problem names no dtype and its inputs hold float32 and float8_e4m3: name the dtype its FLOPs run at "
           "in the sizes (dtype=...)")
    assert mixed["roofline"]["reason"] == why and format_pct(mixed) == f"peak unknown: {why}"
    assert f"peak unknown: {why}" in "\n".join(summary_lines([{**mixed, "status": "timed"}]))
    older = annotate(_record({"M": 1}), H200)  # written before input dtypes were recorded
    assert older["roofline"]["reason"] == "the problem names no dtype and the record names no input dtypes to read a peak for"
    unpublished = annotate(_record({"M": 1}, ["float64"]), H200)
    assert unpublished["roofline"]["reason"] == "no published float64 peak for NVIDIA H200 SXM (its inputs' dtype: the problem names no dtype)"


def test_inputs_a_backend_made_otherwise_record_no_dtypes_and_the_item_still_runs():
    """A backend whose inputs are not the generic family's (the test-only fake backend hands out
    ``{"seed": ...}``) gets None from the family, as a family without ``input_dtypes`` does."""
    pytest.importorskip("torch")
    pytest.importorskip("tilelang")
    from tlbench.suites.gemv.test_gemv import SWEEP

    from tlbench.harness.core.kernel_traits import input_dtypes

    vendor = SWEEP.vendor_cases("nvidia", "smoke", "cuda")[0]
    assert input_dtypes(vendor.problem, {"seed": 3}) is None
    made = vendor.problem.family.make_inputs(vendor.problem, 3, "cpu", dialect="cuda")
    assert input_dtypes(vendor.problem, made) == ("float16", "float16")
