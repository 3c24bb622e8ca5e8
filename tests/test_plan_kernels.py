"""A PrimFunc that launches several kernels: its NVIDIA plan names every one of them.

Real tilelang lowering for sm_90a, kernels written here: ``two_launches`` copies its input
into ``T.alloc_global`` scratch with one ``T.Kernel`` (4 blocks) and doubles the scratch into
the output with a second (2 blocks of 64 threads).  The plan keeps the first kernel's grid and
threads as its own, and ``features["kernels"]`` lists both kernels' names, grids and
threads; a PrimFunc of one kernel has no such entry (its record is as before).
"""

import pytest

pytest.importorskip("tilelang")

import tilelang  # noqa: E402,F401  (tilelang first: it puts its tvm on the path)
import tilelang.language as T  # noqa: E402
import tvm  # noqa: E402

from tlbench.backends.gpu.plan import lower_with_plan  # noqa: E402

SM90A = {"kind": "cuda", "arch": "sm_90a"}


def two_launches(N):
    @T.prim_func
    def main(src: T.Tensor((N,), "float32"), dst: T.Tensor((N,), "float32")):
        scratch = T.alloc_global((N,), "float32")
        with T.Kernel(4, threads=128) as a:
            for i in T.Parallel(N // 4):
                scratch[a * (N // 4) + i] = src[a * (N // 4) + i]
        with T.Kernel(2, threads=64) as b:
            for i in T.Parallel(N // 2):
                dst[b * (N // 2) + i] = scratch[b * (N // 2) + i] * 2
    return main


def one_launch(N):
    @T.prim_func
    def main(src: T.Tensor((N,), "float32"), dst: T.Tensor((N,), "float32")):
        with T.Kernel(4, threads=128) as a:
            for i in T.Parallel(N // 4):
                dst[a * (N // 4) + i] = src[a * (N // 4) + i]
    return main


def test_every_kernel_of_a_primfunc_is_in_its_plan():
    _, facts = lower_with_plan(two_launches(1024), tvm.target.Target(SM90A))
    assert facts.grid_dims == [4, 1, 1] and facts.threads == 128  # the first kernel's, as before
    assert facts.features["kernels"] == [{"name": "main_kernel", "grid_dims": [4, 1, 1], "threads": 128},
                                         {"name": "main_kernel_1", "grid_dims": [2, 1, 1], "threads": 64}]


def test_a_primfunc_of_one_kernel_has_no_kernel_list():
    _, facts = lower_with_plan(one_launch(1024), tvm.target.Target(SM90A))
    assert "kernels" not in facts.features and facts.grid_dims == [4, 1, 1]
