"""Outputs of every dtype on the generic kernel path: real tilelang bodies with an int32 and a
bool output, written here, through the preflight and the poison path on CPU torch.

What is pinned: both pass the preflight (their rule is ``exact`` by default, and it rejects the
poisoned output); allocated and poisoned as on the device, an output the kernel never wrote
fails the check with the poison named, the reference's answer (or the vendor's) written into
it passes; both bodies lower for NVIDIA.
"""

import importlib

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tilelang")

from tlbench import exact, kernel_sweep  # noqa: E402
from tlbench.backends.output_poison import poison, poisoned  # noqa: E402

KERNELS = '''
import tilelang
import tilelang.language as T


@tilelang.jit
def sign_int32(A, block, threads=128):
    N = T.const("N")
    A: T.Tensor((N,), "float32")
    B = T.empty((N,), "int32")
    with T.Kernel(T.ceildiv(N, block), threads=threads) as bx:
        a = T.alloc_shared((block,), "float32")
        b = T.alloc_fragment((block,), "int32")
        T.copy(A[bx * block], a)
        for i in T.Parallel(block):
            b[i] = T.if_then_else(a[i] > 0, 1, T.if_then_else(a[i] < 0, -1, 0))
        T.copy(b, B[bx * block])
    return B


@tilelang.jit
def positive_bool(A, block, threads=128):
    N = T.const("N")
    A: T.Tensor((N,), "float32")
    B = T.empty((N,), "bool")
    with T.Kernel(T.ceildiv(N, block), threads=threads) as bx:
        for i in T.Parallel(block):
            B[bx * block + i] = A[bx * block + i] > 0
    return B
'''


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    root = tmp_path_factory.mktemp("int_kernels")
    (root / "int_bool_kernels.py").write_text(KERNELS)
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(root))
        yield importlib.import_module("int_bool_kernels")


def _sweeps(kernels):
    int_sweep = kernel_sweep(
        "sign", {"cuda": kernels.sign_int32}, sizes={"N": 4096}, axes={"block": [256, 512]},
        inputs=lambda device, N: [torch.randn(N, device=device)],
        reference=lambda a: torch.sign(a).to(torch.int64), vendor=lambda a: torch.sign(a).int(), module=__name__)
    bool_sweep = kernel_sweep(
        "positive", {"cuda": kernels.positive_bool}, sizes={"N": 4096}, axes={"block": [256]},
        inputs=lambda device, N: [torch.randn(N, device=device)], reference=lambda a: a > 0, module=__name__)
    return int_sweep, bool_sweep


def test_int32_and_bool_outputs_pass_the_preflight(kernels):
    for sweep in _sweeps(kernels):
        problem = sweep.problems[0]
        assert problem.family.preflight(problem, "cuda") == ([], [])


@pytest.mark.parametrize("which, dtype", [(0, torch.int32), (1, torch.bool)])
def test_an_unwritten_output_fails_and_the_reference_passes(kernels, which, dtype):
    sweep = _sweeps(kernels)[which]
    case = sweep.cases("nvidia", "full", dialect="cuda")[0]
    family, problem = case.family, case.problem
    inputs = family.make_inputs(problem, 7, "cpu", dialect="cuda", config=case.config)
    (out,) = family.output(inputs).tensors
    assert out.dtype == dtype and out.shape == (4096,)
    assert family.rules(inputs) == [exact()]
    poison(family.output(inputs))  # as the backend does before the checked run
    assert bool(poisoned(out).all())
    unwritten = family.check(inputs, problem, "cuda")
    assert not unwritten.ok and unwritten.mismatched == 4096 and "4096 still hold the poison value" in unwritten.detail
    assert unwritten.to_dict()["rule"] == "B: exact()"
    out.copy_(inputs.expected.to(dtype))  # what a correct kernel writes
    written = family.check(inputs, problem, "cuda")
    assert written.ok and written.mismatched == 0


def test_the_vendor_of_an_int_output_writes_and_passes(kernels):
    sweep = _sweeps(kernels)[0]
    (vendor,) = sweep.vendor_cases("nvidia", "full")
    family = vendor.problem.family
    inputs = family.make_inputs(vendor.problem, 3, "cpu", dialect="cuda")
    poison(family.output(inputs))
    run, label = family.vendor_call(vendor, inputs, "cuda", timed=False)
    run()
    assert family.check(inputs, vendor.problem, "cuda", vendor=True).ok and label.endswith("<lambda>")


def test_both_bodies_lower_for_nvidia(kernels, nvidia_sm90a):
    for sweep in _sweeps(kernels):
        case = sweep.cases("nvidia", "full", dialect="cuda")[0]
        source = nvidia_sm90a.kernel_source(case)
        assert "__global__" in source and ("int" in source or "bool" in source)
