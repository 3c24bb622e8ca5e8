"""The generic kernel path end to end, as a user has it: a project in tmp_path (outside the
checkout) with a kernel module and a 14-line suite naming its factories, run by pytest in a
subprocess through the real plugin, real tilelang lowering for both backends (plan on
NVIDIA, Z3 schedule on Ascend), then every reader on the JSON it wrote, none of which has
an entry point for the kernel.  And the run path (inputs allocated from the kernel's
signature, the check, the vendor call) on CPU tensors, where no kernel can run.
"""

import json
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("tilelang")

KERNELS = '''
import tilelang
import tilelang.language as T
import tilelang.ascend.language as TA


@tilelang.jit
def vadd_cuda(A, B, tile, num_stages, threads=128):
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


def vadd_ascend(N, tile, num_stages):
    @TA.prim_func
    def main(A: TA.Tensor((N,), "float32"), B: TA.Tensor((N,), "float32"), C: TA.Tensor((N,), "float32")):
        with TA.Kernel(8) as bx:
            a = TA.alloc_shared((tile,), "float32")
            b = TA.alloc_shared((tile,), "float32")
            c = TA.alloc_shared((tile,), "float32")
            for step in TA.Pipelined(N // (8 * tile), num_stages=num_stages):
                begin = (step * 8 + bx) * tile
                TA.copy(A[begin : begin + tile], a)
                TA.copy(B[begin : begin + tile], b)
                with TA.SimtVF(threads=128):
                    for i in TA.Parallel(tile):
                        c[i] = a[i] + b[i]
                TA.copy(c, C[begin : begin + tile])
    return main
'''

SUITE = '''
import torch
from tlbench.harness.sweep_api import kernel_sweep
from vadd_kernels import vadd_ascend, vadd_cuda

SWEEP = kernel_sweep(
    "vadd", {"cuda": vadd_cuda, "ascend": vadd_ascend},
    sizes={"N": 65536},
    axes={"tile": [1024, 2048], "num_stages": [1, 2]},
    inputs=lambda device, N: [torch.randn(N, device=device), torch.randn(N, device=device)],
    reference=lambda a, b: a + b,
    bytes_moved=lambda N: 12 * N,
)

def test_vadd(tlbench):
    tlbench.run()
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("userproj")
    (root / "vadd_kernels.py").write_text(KERNELS)
    (root / "test_vadd_suite.py").write_text(SUITE)
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "test_vadd_suite.py", "--tlbench-backend=nvidia,ascend", "--tlbench-kind=compile",
         "--tlbench-compile-rounds=1", "--benchmark-json=a.json", "-p", "no:cacheprovider", "-q"],
        capture_output=True, text=True, cwd=root, timeout=1500,
    )
    return root, out


def test_compile_items_of_both_backends_pass_with_plan_and_schedule(project):
    root, out = project
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    doc = json.loads((root / "a.json").read_text())
    records = [b["extra_info"]["tlbench"] for b in doc["benchmarks"]]
    assert sorted(r["case_id"] for r in records if r["backend"] == "nvidia") == [
        "vadd-N65536-tile1024-s1", "vadd-N65536-tile1024-s2", "vadd-N65536-tile2048-s1", "vadd-N65536-tile2048-s2"]
    assert {r["backend"] for r in records} == {"nvidia", "ascend"} and len(records) == 8
    for rec in records:
        assert rec["family"] == "vadd" and rec["family_described"] is True
        assert rec["config"]["num_stages"] in (1, 2) and rec["plan"]["pipeline"]["num_stages"] == rec["config"]["num_stages"]
        if rec["backend"] == "ascend":
            assert rec["plan"]["schedule_model"]["modeled_cycles_per_core"] > 0
            assert rec["plan"]["schedule_model"]["loops"], rec["plan"]["schedule_model"]
        else:
            assert rec["plan"]["bytes_per_scope"]["shared.dyn"] > 0
    # the deeper pipeline versions the tiles: the plan of the kernel that was built, per depth
    by_id = {(r["backend"], r["case_id"]): r for r in records}
    s1, s2 = by_id["nvidia", "vadd-N65536-tile2048-s1"], by_id["nvidia", "vadd-N65536-tile2048-s2"]
    assert s2["plan"]["bytes_per_scope"]["shared.dyn"] > s1["plan"]["bytes_per_scope"]["shared.dyn"]


def test_every_reader_reads_a_file_whose_kernel_no_entry_point_names(project):
    root, _ = project
    shutil.copy(root / "a.json", root / "b.json")
    tlbench = [sys.executable, "-m", "tlbench.harness.cli"]
    commands = {
        "report": ["report", "a.json"],
        "stages": ["report", "--stages", "a.json"],
        "compare": ["compare", "a.json", "b.json"],
        "history": ["history", "add", "--history", "h.sqlite", "a.json"],
        "dashboard": ["dashboard", "--out-dir", "site", "--history", "h.sqlite"],
        "export": ["export", "--format", "github-action-benchmark", "--out-dir", "exported", "a.json"],
    }
    outputs = {}
    for name, args in commands.items():
        done = subprocess.run([*tlbench, *args], capture_output=True, text=True, cwd=root, timeout=600)
        assert done.returncode == 0, f"tlbench {' '.join(args)}: {done.stdout[-1500:]}{done.stderr[-1500:]}"
        outputs[name] = done.stdout
    assert "| vadd-N65536 [" in outputs["report"] and "\n  tile2048-s2 " in outputs["report"]  # problem heading, config row
    assert "vadd" in outputs["stages"] and "tile2048" in outputs["stages"]
    assert "8 SAME" in outputs["compare"]
    assert (root / "site" / "index.html").is_file()


def test_the_run_path_on_cpu_tensors(tmp_path, monkeypatch):
    """make_inputs allocates the output from the PrimFunc; the check and the vendor call
    compare with the reference; a NaN-poisoned output fails."""
    import importlib

    import torch

    from tlbench.harness.sweep_api import kernel_sweep

    (tmp_path / "vadd_kernels_cpu.py").write_text(KERNELS)
    monkeypatch.syspath_prepend(str(tmp_path))
    kernels = importlib.import_module("vadd_kernels_cpu")
    sweep = kernel_sweep(
        "vadd", {"cuda": kernels.vadd_cuda}, sizes={"N": 16384}, axes={"tile": [1024], "num_stages": [2]},
        inputs=lambda device, N: [torch.randn(N, device=device), torch.randn(N, device=device)],
        reference=lambda a, b: a + b, vendor=torch.add, module=__name__,
    )
    case = sweep.cases("nvidia", "full")[0]
    family, problem = case.family, case.problem
    inputs = family.make_inputs(problem, 7, "cpu", dialect="cuda")
    a, b, c = family.kernel_args(inputs)
    assert c.shape == (16384,) and c.dtype == torch.float32 and not torch.equal(a, b)
    family.output(inputs).fill_(float("nan"))
    poisoned = family.check(inputs, problem, "cuda")
    assert not poisoned.ok and poisoned.mismatched == 16384
    run, label = family.vendor_call(case, inputs, "cuda", timed=False)
    run()
    checked = family.check(inputs, problem, "cuda")
    assert checked.ok and checked.max_abs_err == 0.0 and label == "torch.add"
    again = family.make_inputs(problem, 7, "cpu", dialect="cuda")
    assert torch.equal(again.args[0], a)  # the seed decides the inputs


def test_threads_resolving_a_sibling_module_never_see_it_half_executed(tmp_path):
    """A body module that does not import by name is exec'd from its file once; 16 threads that
    resolve it meanwhile (a device worker's compile threads) all get the finished module, and
    a module whose exec fails is not left half-made in sys.modules."""
    import sys
    import threading

    from tlbench.harness.sweep_api.loading import resolve

    name = f"slow_body_{tmp_path.name}"
    (tmp_path / f"{name}.py").write_text("import time\ntime.sleep(0.3)\ndef body():\n    return 'built'\n")
    (tmp_path / "broken_body.py").write_text("raise RuntimeError('half made')\n")
    near = str(tmp_path / "test_suite.py")
    got: list[object] = []
    start = threading.Barrier(16)

    def ask() -> None:
        start.wait()
        try:
            got.append(resolve(f"{name}:body", near)())
        except Exception as exc:  # noqa: BLE001 - what a compile thread would have met
            got.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(16)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert got == ["built"] * 16
        with pytest.raises(RuntimeError, match="half made"):
            resolve("broken_body:body", near)
        assert "broken_body" not in sys.modules
    finally:
        sys.modules.pop(name, None)
