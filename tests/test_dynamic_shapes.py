"""Kernels with symbolic dimensions (``T.dynamic``), as a user writes them: real tilelang bodies
whose row count is ``T.dynamic("M")`` and whose grid is ``T.ceildiv(M, block_M)``.

- Through the real plugin in a subprocess (a user's project in tmp_path), compile items on
  NVIDIA and Ascend pass, and each record's launch grid is read with M bound to the problem's
  size of that name (two problems, two grids), the record naming the symbolic dimension.
- On CPU torch, the outputs tlbench allocates are sized from the tensors ``inputs()`` returned,
  or from the size of the same name; a disagreement or a name nothing binds is a one-line error.
- A size the factory does not take is not passed to it; ``specialize`` fixes the dimensions
  with the strides tvm requires.
"""

import importlib
import json
import subprocess
import sys

import pytest

pytest.importorskip("tilelang")

KERNELS = '''
import tilelang
import tilelang.language as T
import tilelang.ascend.language as TA


@tilelang.jit
def row_scale_cuda(X, block_M, num_stages, threads=128):
    M = T.dynamic("M")
    N = T.const("N")
    X: T.Tensor((M, N), "float16")
    Y = T.empty((M, N), "float16")
    with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:
        x = T.alloc_shared((block_M, N), "float16")
        y = T.alloc_fragment((block_M, N), "float16")
        for step in T.Pipelined(1, num_stages=num_stages):
            T.copy(X[bx * block_M, 0], x)
            for i, j in T.Parallel(block_M, N):
                y[i, j] = x[i, j] * 2
            T.copy(y, Y[bx * block_M, 0])
    return Y


def row_scale_ascend(N, block_M, num_stages):
    M = TA.dynamic("M")

    @TA.prim_func
    def main(X: TA.Tensor((M, N), "float16"), Y: TA.Tensor((M, N), "float16")):
        with TA.Kernel(TA.ceildiv(M, block_M)) as bx:
            x = TA.alloc_shared((block_M, N), "float16")
            y = TA.alloc_shared((block_M, N), "float16")
            for step in TA.Pipelined(1, num_stages=num_stages):
                TA.copy(X[bx * block_M : (bx + 1) * block_M, :], x)
                with TA.SimtVF(threads=128):
                    for i, j in TA.Parallel(block_M, N):
                        y[i, j] = x[i, j] * 2
                TA.copy(y, Y[bx * block_M : (bx + 1) * block_M, :])
    return main


def unbound_output(N, block_M, num_stages):
    M = T.dynamic("M")
    P = T.dynamic("P")

    @T.prim_func
    def main(X: T.Tensor((M, N), "float16"), Y: T.Tensor((P, N), "float16")):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            for i, j in T.Parallel(block_M, N):
                Y[bx * block_M + i, j] = X[bx * block_M + i, j]
    return main
'''

SUITE = '''
import torch
from tlbench.harness.sweep_api import kernel_sweep
from rowscale_kernels import row_scale_ascend, row_scale_cuda

SWEEP = kernel_sweep(
    "rowscale", {"cuda": row_scale_cuda, "ascend": row_scale_ascend},
    sizes=[{"M": 1000, "N": 128}, {"M": 4096, "N": 128}],
    axes={"block_M": [64], "num_stages": [2]},
    inputs=lambda device, M, N: [torch.randn(M, N, device=device).half()],
    reference=lambda x: x * 2,
    bytes_moved=lambda M, N: 4 * M * N,
)

def test_rowscale(tlbench):
    tlbench.run()
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("dynproj")
    (root / "rowscale_kernels.py").write_text(KERNELS)
    (root / "test_rowscale_suite.py").write_text(SUITE)
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "test_rowscale_suite.py", "--tlbench-backend=nvidia,ascend", "--tlbench-kind=compile",
         "--tlbench-compile-rounds=1", "--benchmark-json=a.json", "-p", "no:cacheprovider", "-q"],
        capture_output=True, text=True, cwd=root, timeout=1500,
    )
    return root, out


@pytest.fixture()
def kernels(tmp_path, monkeypatch):
    (tmp_path / "rowscale_kernels_cpu.py").write_text(KERNELS)
    monkeypatch.syspath_prepend(str(tmp_path))
    return importlib.import_module("rowscale_kernels_cpu")


def test_a_dynamic_row_count_compiles_on_both_backends_with_its_grid_bound_per_problem(project):
    root, out = project
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    records = [b["extra_info"]["tlbench"] for b in json.loads((root / "a.json").read_text())["benchmarks"]]
    got = {(r["backend"], r["problem"]["M"]): r["plan"]["features"] for r in records}
    assert set(got) == {(b, m) for b in ("nvidia", "ascend") for m in (1000, 4096)}
    for (backend, m), features in got.items():
        assert features["grid"] == -(-m // 64) and features["grid_dims"] == [-(-m // 64), 1, 1], (backend, features)
        assert features["symbolic"] == {"M": m}, (backend, features)


def _sweep(kernels, bodies, sizes, inputs):
    from tlbench.harness.sweep_api import kernel_sweep

    return kernel_sweep("rowscale", bodies, sizes=sizes, axes={"block_M": [64], "num_stages": [2]},
                        inputs=inputs, reference=lambda x: x * 2, module=__name__)


@pytest.mark.parametrize("dialect", ["cuda", "ascend"])
def test_outputs_are_sized_from_the_tensors_inputs_returned(kernels, dialect):
    """No size names M: the output's rows come from the input tensor's rows."""
    import torch

    sweep = _sweep(kernels, {"cuda": kernels.row_scale_cuda, "ascend": kernels.row_scale_ascend},
                   {"rows": 300, "N": 128}, lambda device, rows, N: [torch.randn(rows, N, device=device).half()])
    case = sweep.cases("nvidia" if dialect == "cuda" else "ascend", "full")[0]
    inputs = case.family.make_inputs(case.problem, 3, "cpu", dialect=dialect)
    (x,), (y,) = inputs.inputs, inputs.outputs.tensors
    assert tuple(y.shape) == (300, 128) == tuple(x.shape) and y.dtype == torch.float16


def test_outputs_are_sized_from_the_size_of_the_same_name_and_a_disagreement_is_named(kernels):
    import torch

    sweep = _sweep(kernels, {"cuda": kernels.row_scale_cuda}, {"M": 200, "N": 128},
                   lambda device, M, N: [torch.randn(M, N, device=device).half()])
    case = sweep.cases("nvidia", "full")[0]
    y = case.family.make_inputs(case.problem, 1, "cpu", dialect="cuda").outputs.tensors[0]
    assert tuple(y.shape) == (200, 128)

    wrong = _sweep(kernels, {"cuda": kernels.row_scale_cuda}, {"M": 200, "N": 128},
                   lambda device, M, N: [torch.randn(M - 1, N, device=device).half()])
    case = wrong.cases("nvidia", "full")[0]
    with pytest.raises(ValueError, match=r"symbolic dimension M is 199 in the tensors inputs\(\) made, but sizes say M=200"):
        case.family.make_inputs(case.problem, 1, "cpu", dialect="cuda")


def test_an_output_dimension_nothing_binds_is_an_error_naming_it(kernels):
    import torch

    sweep = _sweep(kernels, {"cuda": kernels.unbound_output}, {"M": 128, "N": 128},
                   lambda device, M, N: [torch.randn(M, N, device=device).half()])
    case = sweep.cases("nvidia", "full")[0]
    with pytest.raises(ValueError, match=r"output Y has a symbolic shape \[P, 128\] and P has no value .*name P in sizes, "
                                         r"or return Y from inputs\(\)"):
        case.family.make_inputs(case.problem, 1, "cpu", dialect="cuda")


def test_a_size_the_factory_does_not_take_is_not_passed_to_it(kernels):
    """M is a size (for inputs, flops, bytes) and a T.dynamic dimension of the body: a factory
    that does not take it is built without it (it raised ``unexpected keyword argument 'M'``);
    an eager jit still gets N, its T.const."""
    import tilelang
    import torch

    lazy_jit = tilelang.jit(kernels.row_scale_ascend)  # a lazy jit: its signature decides as well
    for body, dialect in ((kernels.row_scale_ascend, "ascend"), (kernels.row_scale_cuda, "cuda"), (lazy_jit, "ascend")):
        sweep = _sweep(kernels, {dialect: body}, {"M": 4096, "N": 128}, lambda device, M, N: [torch.randn(M, N, device=device)])
        case = sweep.cases("nvidia" if dialect == "cuda" else "ascend", "full")[0]
        func = case.family.build(case.problem, case.config, dialect)
        assert [[str(d) for d in func.buffer_map[p].shape] for p in func.params] == [["M", "128"], ["M", "128"]], body


def test_specialize_fixes_the_dimensions_with_the_strides_tvm_requires(kernels):
    """tvm's PrimFunc.specialize with a plain decl_buffer fails ("The buffer strides dimensions
    mismatched2 vs. 0."); ``specialize`` gives the strides, and the lowered grid is constant."""
    import tvm
    from tvm import tirx

    from tlbench.backends.gpu.plan import lower_with_plan
    from tlbench.backends.symbolic_shapes import specialize, symbolic_names

    func = kernels.row_scale_cuda.get_tir(N=128, block_M=64, num_stages=2).without_attr("tilelang_out_idx")
    with pytest.raises(Exception, match="strides dimensions mismatched"):
        func.specialize({func.params[0]: tirx.decl_buffer((1000, 128), "float16")})
    fixed = specialize(func, {"M": 1000})
    assert symbolic_names(func) == ["M"] and symbolic_names(fixed) == []
    assert [tuple(int(d) for d in fixed.buffer_map[p].shape) for p in fixed.params] == [(1000, 128), (1000, 128)]
    _, facts = lower_with_plan(fixed, tvm.target.Target({"kind": "cuda", "arch": "sm_90a"}))
    assert facts.grid == 16 and facts.symbolic == {}
    _, dynamic = lower_with_plan(func, tvm.target.Target({"kind": "cuda", "arch": "sm_90a"}))
    assert dynamic.grid == "(M + 63) // 64" and dynamic.symbolic == {"M": None}  # no value: the expression
