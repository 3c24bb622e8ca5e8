"""One GEMM body, lowered for real by tilelang for sm_90a and for Ascend.

The built-in suites' body (suites/gemm/body.py: ``gemm_cuda`` / ``gemm_ascend``, both through
``build_gemm``) must lower on both targets for every loop form, for the persistent variant
and for the fused ReLU epilogue; the dialects may differ only in the allocators, the launch and
the epilogue store.  The problems and configs are the suites' own words
(suites/gemm/sweep.py ``problem`` / ``config``).
"""

import inspect

import pytest

tilelang = pytest.importorskip("tilelang")
import tvm  # noqa: E402

from tlbench.suites.gemm import body as kernel_gemm  # noqa: E402
from builtin_gemm import config, gemm_case, problem  # noqa: E402

FP16 = problem(1024, 1024, 1024, "float16")
RELU = problem(512, 512, 1024, "bfloat16", out_dtype="float32", epilogue="relu")
CONFIGS = [
    (FP16, config(128, 128, 32, 128, "auto", 3)),
    (FP16, config(128, 128, 32, 128, "auto", 0)),
    (FP16, config(128, 128, 32, 128, "manual", None)),
    (FP16, config(128, 128, 32, 128, "serial", None)),
    (FP16, config(128, 128, 32, 128, "auto", 2, num_cores=4)),
    (RELU, config(128, 128, 128, 128, "auto", 2, num_cores=4)),
]


def _lower(func, target):
    with target:
        return tilelang.lower(func, target=target)


@pytest.mark.parametrize("sizes, axes", CONFIGS, ids=[gemm_case(p, c).case_id for p, c in CONFIGS])
def test_identical_body_lowers_for_both_targets(sizes, axes):
    from tilelang.ascend.target import _make_ascend_target

    cuda = _lower(kernel_gemm.gemm_cuda(**sizes, **axes), tvm.target.Target({"kind": "cuda", "arch": "sm_90a"}))
    ascend = _lower(kernel_gemm.gemm_ascend(**sizes, **axes), _make_ascend_target())
    assert "__global__" in cuda.kernel_source
    assert "__aicore__" in ascend.kernel_source or "__global__" in ascend.kernel_source
    if sizes["epilogue"] == "relu":
        assert "__mix__" in ascend.kernel_source  # Cube and Vector in one kernel


def test_the_body_has_no_target_branches():
    """The body talks to the target only through the dialect object."""
    source = inspect.getsource(kernel_gemm.build_gemm)
    for word in ("ascend", "cuda", "alloc_l1", "alloc_shared", "alloc_fragment", "alloc_l0c"):
        assert word not in source, word


def test_partial_tiles_are_refused_with_the_dimension_named():
    with pytest.raises(ValueError, match="K=1000 is not a multiple of block_K=32"):
        kernel_gemm.gemm_cuda(**problem(1024, 1024, 1000), **config(128, 128, 32))


def test_the_tile_order_covers_every_tile_once_in_panels_of_group_m_rows():
    """suites/gemm/raster.py: the one tile order of the GEMM body and suites/gemm/ws.py."""
    from tlbench.suites.gemm.raster import tile_origin

    tiles_M, tiles_N, bm, bn = 8, 3, 128, 64
    for group_m in (None, 1, 2, 4, 8):
        row, col = tile_origin(tiles_N, bm, bn, group_m)
        origins = [(row(t), col(t)) for t in range(tiles_M * tiles_N)]
        assert sorted(origins) == [(m * bm, n * bn) for m in range(tiles_M) for n in range(tiles_N)], group_m
    row, col = tile_origin(tiles_N, bm, bn, 2)
    assert [(row(t) // bm, col(t) // bn) for t in range(6)] == [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2)]
    row, col = tile_origin(tiles_N, bm, bn, None)
    assert [(row(t) // bm, col(t) // bn) for t in range(4)] == [(0, 0), (0, 1), (0, 2), (1, 0)]
