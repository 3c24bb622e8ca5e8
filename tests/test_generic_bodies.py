"""Bodies as upstream writes them, per-backend knobs and fixed arguments on the generic path;
real tilelang bodies written here, lowered on CPU (no device, no bisheng).

What is pinned: per-body ``axes`` give each backend only its body's ids (golden lists); a
backend with no body is skipped as ``no body for <backend>``; a suite's ``validate`` skip
says ``invalid``; ``constants`` reach the factory and the callables naming them, never an
id, and are hashed into the kernel's hash; a PrimFunc, a compiled kernel object and a plain
function returning an upstream Ascend example's ``_build()`` (a ``@tilelang.jit(target=
"ascend")`` call) are taken as their PrimFunc, the last without bisheng, and lower for their
backend.
"""

import importlib

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tilelang")

from tlbench import kernel_sweep  # noqa: E402
from tlbench.harness.core.backend_api import BackendOptions  # noqa: E402
from tlbench.harness.core.kernel_traits import kernel_hash, kernel_traits  # noqa: E402
from tlbench.harness.core.record import BenchItem  # noqa: E402
from tlbench.harness.core.space import reject  # noqa: E402
from tlbench.harness.measure.outcome import gate  # noqa: E402

KERNELS = '''
import tilelang
import tilelang.language as T
import tilelang.ascend.language as TA

SEEN = []  # what the CUDA factory was called with (the test reads it)


def copy_cuda(N, block_M, threads, dtype):
    SEEN.append({"N": N, "block_M": block_M, "threads": threads, "dtype": dtype})

    @T.prim_func
    def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype)):
        with T.Kernel(T.ceildiv(N, block_M), threads=threads) as bx:
            for i in T.Parallel(block_M):
                B[bx * block_M + i] = A[bx * block_M + i]
    return main


def copy_ascend(N, mode, dtype):
    """The upstream Ascend examples' form: a plain function returning a jit call."""
    tile = 1024 if mode == "wide" else 512

    @tilelang.jit(out_idx=[1], target="ascend", pass_configs={"tl.enable_fast_math": True})
    def _build():
        @TA.prim_func
        def main(A: TA.Tensor((N,), dtype), B: TA.Tensor((N,), dtype)):
            with TA.Kernel(8) as bx:
                a = TA.alloc_shared((tile,), dtype)
                for step in TA.Pipelined(N // (8 * tile), num_stages=2):
                    begin = (step * 8 + bx) * tile
                    TA.copy(A[begin : begin + tile], a)
                    TA.copy(a, B[begin : begin + tile])
        return main

    return _build()
'''


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    root = tmp_path_factory.mktemp("bodies")
    (root / "copy_bodies.py").write_text(KERNELS)
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(root))
        yield importlib.import_module("copy_bodies")


def _sweep(kernels, **changes):
    arguments = dict(
        sizes=[{"N": 65536}, {"N": 131072}],
        axes={"cuda": {"block_M": [128, 256], "threads": [128]}, "ascend": {"mode": ["wide", "narrow"]}},
        constants={"dtype": "float32"},
        inputs=lambda device, N, dtype: [torch.randn(N, device=device, dtype=getattr(torch, dtype))],
        reference=lambda a: a,
        module=__name__,
    )
    arguments.update(changes)
    return kernel_sweep("copy", {"cuda": kernels.copy_cuda, "ascend": kernels.copy_ascend}, **arguments)


CUDA_IDS = ["copy-N65536-block_M128-threads128", "copy-N65536-block_M256-threads128",
            "copy-N131072-block_M128-threads128", "copy-N131072-block_M256-threads128"]
ASCEND_IDS = ["copy-N65536-modewide", "copy-N65536-modenarrow", "copy-N131072-modewide", "copy-N131072-modenarrow"]


def test_per_body_axes_give_each_backend_only_its_bodys_ids(kernels):
    sweep = _sweep(kernels)
    assert [c.case_id for c in sweep.cases("nvidia", "full", dialect="cuda")] == CUDA_IDS
    assert [c.case_id for c in sweep.cases("ascend", "full", dialect="ascend")] == ASCEND_IDS
    assert [c.case_id for c in sweep.cases("nvidia", "full")] == CUDA_IDS  # the dialect from the backend's traits
    assert sweep.problems[0].family.preflight(sweep.problems[0], "cuda") == ([], [])
    assert sweep.problems[0].family.preflight(sweep.problems[0], "ascend") == ([], [])


def test_a_backend_with_no_body_is_skipped_as_no_body(kernels, ascend):
    sweep = kernel_sweep("copy", {"cuda": kernels.copy_cuda}, sizes={"N": 65536}, axes={"block_M": [128], "threads": [128]},
                         constants={"dtype": "float32"}, inputs=lambda device, N: [torch.randn(N, device=device)],
                         module=__name__)
    (case,) = sweep.cases("ascend", "full", dialect="ascend")
    rejection = reject(case, ascend.scopes(), "ascend")
    assert rejection.kind == "no body"
    outcome = gate(BenchItem("ascend", "compile", case), ascend)
    assert outcome.status == "skipped"
    assert outcome.reason == "no body for ascend: copy has no body for the ascend dialect (it has: cuda)"


def test_a_suite_validate_skip_says_invalid(kernels, nvidia_sm90a):
    sweep = _sweep(kernels, validate=lambda N, block_M: "the tile exceeds N/512" if block_M > N // 512 else None)
    cases = sweep.cases("nvidia", "full", dialect="cuda")
    outcomes = [gate(BenchItem("nvidia", "compile", c), nvidia_sm90a) for c in cases]
    assert [o.reason if o else None for o in outcomes] == [None, "invalid: the tile exceeds N/512", None, None]


def test_constants_reach_the_factory_never_an_id_and_key_the_kernel_hash(kernels):
    sweep = _sweep(kernels)
    case = sweep.cases("nvidia", "full", dialect="cuda")[0]
    kernels.SEEN.clear()
    case.family.build(case.problem, case.config, "cuda")
    assert kernels.SEEN == [{"N": 65536, "block_M": 128, "threads": 128, "dtype": "float32"}]
    assert "float32" not in case.case_id and "f32" not in case.case_id
    other = _sweep(kernels, constants={"dtype": "float16"}).cases("nvidia", "full", dialect="cuda")[0]
    assert other.case_id == case.case_id and kernel_hash(other, "cuda") != kernel_hash(case, "cuda")


def test_a_plain_function_around_an_ascend_jit_call_gives_its_prim_func_without_bisheng(kernels, ascend):
    import tilelang

    assert tilelang.__file__  # the jit call itself would compile (bisheng): tlbench never makes it
    sweep = _sweep(kernels)
    case = sweep.cases("ascend", "full", dialect="ascend")[0]
    func = case.family.build(case.problem, case.config, "ascend")
    assert type(func).__name__ == "PrimFunc" and "tilelang_out_idx" not in (func.attrs or {})
    traits = kernel_traits(case, "ascend")
    assert traits.target == "ascend" and traits.pass_configs == {"tl.enable_fast_math": True}
    assert "__global__ __vector__" in ascend.kernel_source(case)  # AscendC, lowered here without bisheng
    with pytest.raises(Exception, match="bisheng"):
        kernels.copy_ascend(N=65536, mode="wide", dtype="float32")  # called as upstream does, it needs bisheng


def test_a_prim_func_and_a_compiled_kernel_object_are_taken_as_they_are(kernels, nvidia_sm90a):
    import tilelang

    func = kernels.copy_cuda(N=65536, block_M=128, threads=128, dtype="float32")
    compiled = tilelang.compile(func, target={"kind": "cuda", "arch": "sm_90a"}, execution_backend="tvm_ffi")
    for body in (func, compiled):
        sweep = kernel_sweep("fixed", body, sizes={"N": 65536}, inputs=lambda device, N: [torch.randn(N, device=device)],
                             reference=lambda a: a, module=__name__)
        (case,) = sweep.cases("nvidia", "full", dialect="cuda")
        assert case.case_id == "fixed-N65536-default"
        assert case.family.build(case.problem, case.config, "cuda").same_as(func)
        assert case.family.preflight(case.problem, "cuda") == ([], [])
        assert "__global__" in nvidia_sm90a.kernel_source(case)


def test_per_body_configs_name_only_what_each_body_takes(kernels):
    sweep = _sweep(kernels, axes=None, configs={"cuda": [{"block_M": 512, "threads": 256}], "ascend": [{"mode": "wide"}]})
    assert [c.case_id for c in sweep.cases("nvidia", "smoke", dialect="cuda")] == ["copy-N65536-block_M512-threads256"]
    assert [c.case_id for c in sweep.cases("ascend", "smoke", dialect="ascend")] == ["copy-N65536-modewide"]
    with pytest.raises(ValueError, match="name dialect.s. npu that have no body"):
        _sweep(kernels, axes={"cuda": {"block_M": [128], "threads": [128]}, "npu": {"mode": ["wide"]}})

