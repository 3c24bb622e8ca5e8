"""The CUDA side of the one GEMM body: shared-memory operand tiles, a register-fragment
accumulator, ``T.Kernel(..., threads=)``, and a ReLU applied to the fragment before the
store (the fused-epilogue counterpart of Ascend's Vector-core ReLU), and an optional
store of the accumulator staged through shared memory (coalesced global writes)."""

from __future__ import annotations

import tilelang.language as T

from tlbench.backends.kernels.gemm.body import Dialect


@T.macro
def _relu_epilogue(C_accum, C, m, n):
    for i, j in T.Parallel(C_accum.shape[0], C_accum.shape[1]):
        C_accum[i, j] = T.max(C_accum[i, j], 0)
    T.copy(C_accum, C[m, n])


@T.macro
def _staged_store(C_accum, C, m, n):
    C_staging = T.alloc_shared((C_accum.shape[0], C_accum.shape[1]), C.dtype)
    T.copy(C_accum, C_staging)
    T.copy(C_staging, C[m, n])


CUDA_DIALECT = Dialect(
    name="cuda",
    lang=T,
    alloc_operand=T.alloc_shared,
    alloc_accum=T.alloc_fragment,
    kernel_takes_threads=True,
    relu_epilogue=_relu_epilogue,
    staged_store=_staged_store,
)
