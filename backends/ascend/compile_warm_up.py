"""The Ascend backend's warm-up kernels: ``KERNELS``, makers of small PrimFuncs of its own.

Contract: ``warm_up_compile()`` (backends/backend_base.py) lowers each before a worker answers
``ready``: an NT GEMM tile on the Cube core and ``0.5 x + y`` on the Vector cores.
"""

# No `from __future__ import annotations`: TileLang evaluates the PrimFunc parameter
# annotations against this closure.

CORES = 2
TILE = 64
STEPS = 4


def _gemm_tile():
    import tilelang.ascend.language as T

    @T.prim_func
    def gemm_tile(A: T.Tensor((TILE, TILE * STEPS), "float16"), B: T.Tensor((TILE, TILE * STEPS), "float16"),
                  C: T.Tensor((TILE, TILE), "float32")):
        with T.Kernel(1) as _core:
            A_l1 = T.alloc_l1((TILE, TILE), "float16")
            B_l1 = T.alloc_l1((TILE, TILE), "float16")
            C_l0c = T.alloc_l0c((TILE, TILE), "float32")
            for k in T.Pipelined(STEPS, num_stages=2):
                T.copy(A[0, k * TILE], A_l1)
                T.copy(B[0, k * TILE], B_l1)
                T.gemm(A_l1, B_l1, C_l0c, transpose_B=True, clear_accum=(k == 0))
            T.copy(C_l0c, C[0, 0])

    return gemm_tile


def _axpy():
    import tilelang.ascend.language as T

    n = CORES * TILE * STEPS

    @T.prim_func
    def axpy(X: T.Tensor((n,), "float32"), Y: T.Tensor((n,), "float32"), Out: T.Tensor((n,), "float32")):
        with T.Kernel(CORES) as core:  # core c takes the c-th contiguous block of STEPS tiles
            x_ub = T.alloc_shared((TILE,), "float32")
            y_ub = T.alloc_shared((TILE,), "float32")
            out_ub = T.alloc_shared((TILE,), "float32")
            for step in T.Pipelined(STEPS, num_stages=2):
                T.copy(X[(core * STEPS + step) * TILE : (core * STEPS + step + 1) * TILE], x_ub)
                T.copy(Y[(core * STEPS + step) * TILE : (core * STEPS + step + 1) * TILE], y_ub)
                with T.SimtVF(threads=TILE):
                    for i in T.Parallel(TILE):
                        out_ub[i] = x_ub[i] * 0.5 + y_ub[i]
                T.copy(out_ub, Out[(core * STEPS + step) * TILE : (core * STEPS + step + 1) * TILE])

    return axpy


KERNELS = (_gemm_tile, _axpy)
