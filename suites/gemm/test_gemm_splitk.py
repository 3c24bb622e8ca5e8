"""Split-K GEMM (bodies: suites/gemm/splitk.py), fp16 in, fp32 out, ``C = A @ B^T``: for small
shapes that leave the H200's SMs idle, each tile's K loop split over 2 or 4 blocks adding into
C.  Vendor item: cuBLAS through torch."""

from tlbench.harness.sweep_api import kernel_sweep

K = "tlbench.suites.gemm.splitk:"
SWEEP = kernel_sweep(
    "gemm_splitk", {"cuda": K + "gemm_splitk_cuda", "ascend": K + "gemm_splitk_ascend"},
    sizes=[{"M": s, "N": s, "K": s, "dtype": "float16"} for s in (1024, 2048, 4096, 8192)],
    smoke={"M": 1024, "N": 1024, "K": 1024, "dtype": "float16"},
    quick=(),  # compile items cost minutes on a small CPU box: --tlbench-scope=smoke or full
    axes={"block_M": [128], "block_N": [128], "block_K": [32, 64], "split_k": [2, 4], "num_stages": [2, 3]},
    inputs=K + "inputs", reference=K + "reference", validate=K + "splitk_refusal", footprint=K + "splitk_footprint",
    vendor=K + "cublas", vendor_label="torch: A @ B.T (cuBLAS), fp16 out",
    flops=lambda M, N, K, dtype: 2 * M * N * K,
    bytes_moved=lambda M, N, K, dtype: 2 * (M * K + N * K) + 4 * M * N,
    description="split-K GEMM fp16 -> fp32, 1k..8k cubed, split 2/4, vs cuBLAS",
)


def test_gemm_splitk(tlbench):
    tlbench.run()
