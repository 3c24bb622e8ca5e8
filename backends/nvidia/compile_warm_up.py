"""The NVIDIA backend's warm-up kernel: ``KERNELS``, makers of small PrimFuncs of its own.

Contract: ``warm_up_compile()`` (backends/backend_base.py) lowers each before a worker answers
``ready``, so a first lowering's one-off costs miss the first timed compile item.
"""

# No `from __future__ import annotations`: TileLang evaluates the PrimFunc parameter
# annotations against this closure.

TILE = 64
BLOCK_K = 32
STEPS = 4


def _gemm_tile():
    import tilelang.language as T

    @T.prim_func
    def gemm_tile(A: T.Tensor((TILE, BLOCK_K * STEPS), "float16"), B: T.Tensor((TILE, BLOCK_K * STEPS), "float16"),
                  C: T.Tensor((TILE, TILE), "float16")):
        with T.Kernel(1, threads=128) as _block:
            A_shared = T.alloc_shared((TILE, BLOCK_K), "float16")
            B_shared = T.alloc_shared((TILE, BLOCK_K), "float16")
            C_local = T.alloc_fragment((TILE, TILE), "float32")
            T.clear(C_local)
            for k in T.Pipelined(STEPS, num_stages=2):
                T.copy(A[0, k * BLOCK_K], A_shared)
                T.copy(B[0, k * BLOCK_K], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_B=True)
            T.copy(C_local, C[0, 0])

    return gemm_tile


KERNELS = (_gemm_tile,)
