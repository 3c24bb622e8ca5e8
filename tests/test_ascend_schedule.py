"""The Ascend schedule, recorded from tilelang's real EstimateLatency / Z3 AutoSchedule, of the
built-in GEMM (suites/gemm/body.py, declared as the suites declare it: tests/builtin_gemm.py)."""

import subprocess
import sys

import pytest

pytest.importorskip("tilelang")

from builtin_gemm import config, gemm_case, problem  # noqa: E402

BF16 = problem(512, 512, 1024, "bfloat16", out_dtype="float32")
BF16_RELU = problem(512, 512, 1024, "bfloat16", out_dtype="float32", epilogue="relu")


def _plan(backend, sizes, axes):
    return backend.inspect(backend.compile(gemm_case(sizes, axes), cold=True))


def _k_loop(plan):
    return plan.schedule_model["loops"][0]


def test_two_stages_halve_the_modeled_k_loop_ii(ascend):
    one = _plan(ascend, BF16, config(128, 128, 128, 128, "auto", 1, num_cores=4))
    two = _plan(ascend, BF16, config(128, 128, 128, 128, "auto", 2, num_cores=4))
    assert [loop["loop_var"] for loop in one.schedule_model["loops"]] == ["k", "w"]  # K loop, tile loop; each once
    assert _k_loop(two)["ii"] < _k_loop(one)["ii"]
    assert (_k_loop(one)["ii"], _k_loop(two)["ii"]) == (1366, 683)  # tilelang 0.1.15
    assert [b["versions"] for b in one.buffers if b["scope"] == "shared.l1"] == [1, 1]
    assert [b["versions"] for b in two.buffers if b["scope"] == "shared.l1"] == [2, 2]
    assert one.schedule_model["modeled_cycles_per_core"] > two.schedule_model["modeled_cycles_per_core"]
    assert "model" in one.schedule_model["unit"]


def test_tasks_carry_kind_pipe_latency_start_and_core(ascend):
    plan = _plan(ascend, BF16, config(128, 128, 128, 128, "auto", 2, num_cores=4))
    tasks = {t["kind"]: t for t in _k_loop(plan)["tasks"]}
    copy_a = tasks["copy A->A_tile (global->shared.l1)"]
    gemm = tasks["gemm"]
    assert copy_a["pipes"] == ["MTE2"] and copy_a["cores"] == ["AIC"]
    assert gemm["pipes"] == ["Cube"] and gemm["latency"] == 520 and gemm["ii"] == 512
    assert gemm["start"] >= copy_a["start"] + copy_a["latency"] - 1  # data before compute
    loop = _k_loop(plan)
    assert loop["trip_count"] == 8 and loop["modeled_cycles"] == 7 * loop["ii"] + loop["span"]


@pytest.mark.parametrize("tile", [(128, 128, 128), (128, 256, 64)])
def test_relu_vector_work_overlaps_next_tiles_cube_work(ascend, tile):
    plan = _plan(ascend, BF16_RELU, config(*tile, 128, "auto", 2, num_cores=4))
    overlap = plan.schedule_model["core_pipelining"]
    assert plan.schedule_model["mixed_kernel"]
    assert overlap["applicable"] and overlap["overlaps"]
    assert overlap["tile_loop_ii_cycles"] < overlap["tile_loop_span_cycles"]
    vector = [t for loop in plan.schedule_model["loops"] for t in loop["tasks"] if t["cores"] == ["AIV"]]
    assert vector, "the ReLU and its store run on the vector cores"


def test_enable_offset_reaches_the_scheduler(ascend):
    plan = _plan(ascend, BF16, config(128, 128, 128, 128, "auto", 2, num_cores=4, enable_offset=True))
    assert _k_loop(plan)["enable_offset"] is True


def test_real_scheduler_agrees_with_the_budget_on_l1_and_misses_l0c(ascend):
    from tlbench.harness.core.backend_api import CompileError

    with pytest.raises(CompileError, match="insufficient for minimum buffer usage 786432"):
        ascend.compile(gemm_case(problem(1024, 1024, 2048, "bfloat16"), config(512, 256, 512, 128, "auto", 1, num_cores=4)), cold=True)
    # A 512 KiB L0C accumulator: tilelang lowers it without a word; our budget must catch it.
    plan = _plan(ascend, problem(1024, 1024, 2048, "bfloat16"), config(256, 512, 64, 128, "auto", 2, num_cores=4))
    assert plan.bytes_per_scope["shared.l0c"] == 512 * 1024 > plan.limits["shared.l0c"]


def test_the_plan_holds_plain_python_data_only(ascend):
    """No tvm-ffi object (its String subclasses str) may live on in a record: released in the
    interpreter's final garbage collection it segfaulted pytest at exit."""
    plan = _plan(ascend, BF16_RELU, config(128, 128, 128, 128, "auto", 2, num_cores=4))
    plain = (str, int, float, bool, type(None))
    foreign = []

    def walk(value, path):
        if isinstance(value, dict):
            for key, inner in value.items():
                walk(key, f"{path}<key>")
                walk(inner, f"{path}[{key!r}]")
        elif isinstance(value, (list, tuple)):
            for index, inner in enumerate(value):
                walk(inner, f"{path}[{index}]")
        elif type(value) not in plain:
            foreign.append((path, type(value).__module__, type(value).__name__))

    walk(plan.to_dict(), "plan")
    assert plan.schedule_model["loops"], "the Z3 loop schedules were recorded"
    assert foreign == []


def test_a_lowering_before_the_import_is_recorded_too(tmp_path):
    code = """
import tilelang, tvm
import tilelang.ascend.language as T
from tilelang.ascend.target import _make_ascend_target

@T.prim_func
def gemm(A: T.Tensor((512, 1024), "bfloat16"), B: T.Tensor((512, 1024), "bfloat16"), C: T.Tensor((512, 512), "float32")):
    with T.Kernel(16) as bx:
        A_l1 = T.alloc_l1((128, 128), "bfloat16")
        B_l1 = T.alloc_l1((128, 128), "bfloat16")
        C_l0c = T.alloc_l0c((128, 128), "float32")
        for k in T.Pipelined(8, num_stages=2):
            T.copy(A[bx // 4 * 128, k * 128], A_l1)
            T.copy(B[bx % 4 * 128, k * 128], B_l1)
            T.gemm(A_l1, B_l1, C_l0c, transpose_B=True, clear_accum=(k == 0))
        T.copy(C_l0c, C[bx // 4 * 128, bx % 4 * 128])

target = _make_ascend_target()
with target:
    tilelang.lower(gemm, target=target)   # the C++ side now caches tilelang's FFI entry point
from tlbench.backends.ascend.schedule import lower_with_schedule   # wraps the Python solver it calls
_, facts = lower_with_schedule(gemm, target)
print("MISSING:", facts.missing, "LOOPS:", len(facts.loops))
"""
    script = tmp_path / "lower_first.py"  # tilelang reads the kernel's source: no `python -c`
    script.write_text(code)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "MISSING: None LOOPS: 1" in out.stdout


def test_a_second_copy_of_the_schedule_module_does_not_wrap_the_solvers_twice():
    """pytester's inline runs drop the modules they imported, so the schedule module can be
    imported afresh into a process whose tilelang solvers it already wrapped: the new copy must
    leave them wrapped once, or the recorded arguments are ``args``/``kwargs`` instead of the
    solver's own (a ``KeyError: 'latencies'`` on the next Ascend schedule)."""
    import importlib

    from tilelang.ascend.transform import z3_scheduler

    from tlbench.backends.ascend import schedule

    schedule.install_z3_recorders()
    again = importlib.reload(schedule)
    again.install_z3_recorders()
    for attr in ("z3_schedule_loop_python", "z3_schedule_python"):
        recorder = getattr(z3_scheduler, attr)
        assert getattr(recorder, "tlbench_z3_recorder", False)
        assert not getattr(recorder.solver, "tlbench_z3_recorder", False), attr  # one wrapper, around tilelang's own
        assert "args" not in recorder.signature.parameters
