"""A user's exception is the item's failure, not the device worker's: a real pytest process,
the real device worker, the generic kernel path on CPU torch (tests/cpu_torch_backend.py, a
TEST-ONLY stand-in device whose kernel is emulated by the reference).

What is pinned: a suite whose ``inputs``, ``reference``, ``vendor`` or ``check`` raises only
where its preflight does not run it (a size other than the smoke one, on the device: the
preflight checks those sizes on torch's meta device, and calls neither vendor nor check there;
so the error reaches the worker) fails just the items of
that problem, each with one line naming the callable, the kernel and the problem (stage
``inputs`` or ``check``); the worker is never restarted (one pid for every item, 0 restarts),
and the other problems' items are timed.  A suite whose ``flops`` names ``dialect`` gets it.
"""

import json
import subprocess
import sys

import pytest

pytest.importorskip("torch")
pytest.importorskip("tilelang")

import cpu_torch_backend  # noqa: E402

KERNELS = '''
import tilelang
import tilelang.language as T


@tilelang.jit
def double(A, tile, threads=128):
    N = T.const("N")
    A: T.Tensor((N,), "float32")
    B = T.empty((N,), "float32")
    with T.Kernel(N // tile, threads=threads) as bx:
        for i in T.Parallel(tile):
            B[bx * tile + i] = A[bx * tile + i] * 2
    return B
'''

SUITE = '''
import torch
from tlbench import kernel_sweep
from user_error_kernels import double


def inputs(device, N):
    if N == 2048 and str(device) != "meta":  # the preflight checks this size on torch's meta device: it passes there
        return [torch.randn(N, device=device, dtype="float32")]  # the suite's bug: a TypeError at this size only
    return [torch.randn(N, device=device)]


def reference(a, N):
    if N == 3072 and a.device.type != "meta":
        raise ValueError("no reference at 3072")
    return a * 2


def vendor(a, N):
    if N == 4096:
        raise KeyError("vendor table has no 4096")
    return a + a


def check(out, ref, N):
    if N == 5120:
        raise ZeroDivisionError("check divides by zero at 5120")
    return None if torch.equal(out, ref) else "differs"


SWEEP = kernel_sweep(
    "double", {"cuda": double},
    sizes=[{"N": 1024}, {"N": 2048}, {"N": 3072}, {"N": 4096}, {"N": 5120}],
    smoke={"N": 1024},
    axes={"tile": [256, 512]},
    inputs=inputs, reference=reference, vendor=vendor, check=check,
    flops=lambda N, dialect: N if dialect == "cuda" else 0,
    kinds=("device",),
)


def test_double(tlbench):
    tlbench.run()
'''


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("user_errors")
    (root / "conftest.py").write_text(cpu_torch_backend.CONFTEST)
    (root / "user_error_kernels.py").write_text(KERNELS)
    (root / "test_user_errors.py").write_text(SUITE)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "test_user_errors.py", "-p", "no:cacheprovider", "--tlbench-backend=cputorch",
         "--tlbench-scope=full", "--tlbench-seed=3", "--tlbench-max-samples=5", "--benchmark-json=out.json", "-q",
         "--tlbench-instructions=hardware"],  # counts are not what this tests: no callgrind children
        capture_output=True, text=True, cwd=root, timeout=900,
    )
    return done, json.loads((root / "out.json").read_text())


def test_each_user_exception_fails_only_its_problem_with_one_line(run):
    done, doc = run
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    failed = {r["case_id"]: r for r in doc["tlbench"]["failed"]}
    expected = {  # problem: (stage, the line its items fail with)
        "double-N2048": ("inputs", "inputs raised TypeError (kernel double, problem double-N2048): randn() received an invalid"),
        "double-N3072": ("check", "reference raised ValueError (kernel double, problem double-N3072): no reference at 3072"),
        "double-N5120": ("check", "check raised ZeroDivisionError (kernel double, problem double-N5120): check divides by zero at 5120"),
    }
    for problem, (stage, words) in expected.items():
        for item in ("tile256", "tile512", "vendor"):  # the vendor item makes the same inputs, reference and check
            record = failed.pop(f"{problem}-{item}")
            assert record["stage"] == stage and record["error"].startswith(words), record
            assert "\n" not in record["error"]
    vendor = failed.pop("double-N4096-vendor")
    assert vendor["stage"] == "check"
    assert vendor["error"] == "vendor raised KeyError (kernel double, problem double-N4096): 'vendor table has no 4096'"
    assert not failed, failed  # nothing else failed


def test_the_worker_lives_through_every_user_exception(run):
    _, doc = run
    workers = [r["worker"] for r in doc["tlbench"]["failed"]]
    assert workers and all(w["restarts"] == 0 and not w["restarted"] for w in workers)
    assert len({w["pid"] for w in workers}) == 1  # one worker served every item


def test_the_other_problems_are_timed_and_flops_is_told_the_dialect(run):
    _, doc = run
    timed = {b["extra_info"]["tlbench"]["case_id"]: b["extra_info"]["tlbench"] for b in doc["benchmarks"]}
    assert set(timed) == {"double-N1024-tile256", "double-N1024-tile512", "double-N4096-tile256", "double-N4096-tile512",
                          "double-N1024-vendor"}
    record = timed["double-N1024-tile256"]
    assert record["check"]["ok"] and record["check"]["rule"] == "B: user check check()"
    assert record["throughput"]["tflops"] > 0  # flops(N, dialect) got "cuda"


SPEED_REFERENCE_SUITE = '''
import torch
from tlbench import kernel_sweep
from user_error_kernels import double

SWEEP = kernel_sweep(
    "speedref", {"cuda": double}, sizes={"N": 1024}, axes={"tile": [256]},
    inputs=lambda device, N: [torch.randn(N, device=device)], reference=lambda a: a * 2,
    vendor=lambda a: a * 3, vendor_label="a different product", vendor_check=False,  # would fail any check
    kinds=("device",),
)


def test_speedref(tlbench):
    tlbench.run()
'''


def test_a_speed_reference_vendor_is_timed_never_judged_and_labelled(tmp_path):
    (tmp_path / "conftest.py").write_text(cpu_torch_backend.CONFTEST)
    (tmp_path / "user_error_kernels.py").write_text(KERNELS)
    (tmp_path / "test_speedref.py").write_text(SPEED_REFERENCE_SUITE)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "test_speedref.py", "-p", "no:cacheprovider", "--tlbench-backend=cputorch",
         "--tlbench-max-samples=5", "--benchmark-json=out.json", "-q"],
        capture_output=True, text=True, cwd=tmp_path, timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    records = {b["extra_info"]["tlbench"]["case_id"]: b["extra_info"]["tlbench"] for b in json.loads((tmp_path / "out.json").read_text())["benchmarks"]}
    vendor, kernel = records["speedref-N1024-vendor"], records["speedref-N1024-tile256"]
    assert vendor["check"]["checked"] is False and vendor["check"]["rule"] == "not checked (speed reference)"
    assert "vendor item: a different product (speed reference, not checked)" in vendor["notes"]
    assert kernel["check"]["checked"] is True and kernel["check"]["rule"] == "B: tolerance(rtol=0.01, atol=0.01)"
    assert "; a speed reference, not checked)" in done.stdout  # the summary's ratio line
    report = subprocess.run([sys.executable, "-m", "tlbench", "report", "out.json"], capture_output=True, text=True,
                            cwd=tmp_path, timeout=600)
    assert "speed reference, not checked" in report.stdout and "checked by B: tolerance(rtol=0.01, atol=0.01)" in report.stdout


def test_the_block_sparse_fp8_suite_runs_its_device_path_on_cpu_torch(tmp_path):
    """suites/blocksparse/test_blocksparse_fp8.py as shipped, on the TEST-ONLY CPU torch device: inputs made
    per tile (the mask's layout), the reference told the tile, the fp8 output judged by
    steps(1), the dense vendor timed as a speed reference."""
    import os
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root / "tests"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(root / "suites" / "blocksparse" / "test_blocksparse_fp8.py"), "-p", "cpu_torch_backend",
         "--tlbench-backend=cputorch", "--tlbench-scope=smoke", "--tlbench-kind=device", "--tlbench-max-samples=5",
         "-p", "no:cacheprovider", "-q", f"--benchmark-json={tmp_path / 'out.json'}"],
        capture_output=True, text=True, cwd=root, timeout=900, env=env,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    records = [b["extra_info"]["tlbench"] for b in json.loads((tmp_path / "out.json").read_text())["benchmarks"]]
    kernels = [r for r in records if r["config"]]
    assert len(kernels) == 6 and {r["check"]["rule"] for r in kernels} == {"C: steps(1)"}
    assert all(r["check"]["ok"] and r["check"]["total"] == 1024 * 1024 for r in kernels)
    (vendor,) = [r for r in records if not r["config"]]
    assert vendor["check"]["checked"] is False

