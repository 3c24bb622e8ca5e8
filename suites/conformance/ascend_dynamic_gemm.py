"""An Ascend port of tilelang's examples/dynamic_shape/example_dynamic.py (``matmul_dynamic_mnk``),
written by the README's "Porting a CUDA body to Ascend" rules: M, N and K stay ``T.dynamic``;
a 1-D grid of ``ceildiv(N, block_N) * ceildiv(M, block_M)`` blocks; operands in L1, the
accumulator in L0C zeroed by ``clear_accum`` on the first K tile; B stored N x K (the Ascend L1
GEMM is NT only: ``trans_B=True``, as the CUDA example also takes it); the accumulator copied
straight to global.  The CUDA example's keyword arguments but ``threads``, which Ascend's
``T.Kernel`` does not take (a constant only the CUDA body takes reaches that body alone).
Plain tilelang.
"""

import tilelang.ascend.language as T


def matmul_dynamic_nt_ascend(block_M, block_N, block_K, trans_A, trans_B, in_dtype, out_dtype, accum_dtype, num_stages):
    if trans_A or not trans_B:
        raise ValueError("the Ascend L1 GEMM is NT only: trans_A=False, trans_B=True")
    M, N, K = T.dynamic("m"), T.dynamic("n"), T.dynamic("k")

    @T.prim_func
    def main(A: T.Tensor((M, K), in_dtype), B: T.Tensor((N, K), in_dtype), C: T.Tensor((M, N), out_dtype)):
        with T.Kernel(T.ceildiv(N, block_N) * T.ceildiv(M, block_M)) as bid:
            bx = bid % T.ceildiv(N, block_N)
            by = bid // T.ceildiv(N, block_N)
            A_l1 = T.alloc_l1((block_M, block_K), in_dtype)
            B_l1 = T.alloc_l1((block_N, block_K), in_dtype)
            C_l0c = T.alloc_l0c((block_M, block_N), accum_dtype)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_l1)
                T.copy(B[bx * block_N, k * block_K], B_l1)
                T.gemm(A_l1, B_l1, C_l0c, transpose_B=True, clear_accum=(k == 0))
            T.copy(C_l0c, C[by * block_M, bx * block_N])

    return main
