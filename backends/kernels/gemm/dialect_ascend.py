"""The Ascend side of the one GEMM body: L1 operand tiles, an L0C accumulator, the 1-D core
grid ``T.Kernel(n)`` (no threads), and the Cube->Vector ReLU epilogue of tilelang's Ascend
README: L0C -> UB on both vector cores (``T.dual_copy``), ReLU in ``T.SimtVF`` on the
Vector cores, UB -> GM."""

from __future__ import annotations

import tilelang.ascend.language as T

from tlbench.backends.kernels.gemm.body import Dialect

RELU_VECTOR_THREADS = 128


@T.macro
def _relu_epilogue(C_accum, C, m, n):
    C_ub = T.alloc_shared((C_accum.shape[0] // 2, C_accum.shape[1]), C_accum.dtype)
    T.dual_copy(C_accum, C_ub)
    with T.SimtVF(threads=RELU_VECTOR_THREADS):
        for i, j in T.Parallel(C_accum.shape[0] // 2, C_accum.shape[1]):
            C_ub[i, j] = T.max(C_ub[i, j], 0)
    T.dual_copy(C_ub, C[m : m + C_accum.shape[0], n : n + C_accum.shape[1]])


ASCEND_DIALECT = Dialect(
    name="ascend",
    lang=T,
    alloc_operand=T.alloc_l1,
    alloc_accum=T.alloc_l0c,
    kernel_takes_threads=False,
    relu_epilogue=_relu_epilogue,
)
