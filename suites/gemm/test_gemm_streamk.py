"""Stream-K GEMM (body: suites/gemm/splitk.py), fp16 in, fp32 out, ``C = A @ B^T``: one block per
H200 SM takes an even share of all K iterations, then the whole tiles left.  CUDA only.  Its
tile-dependent trip count needs ``tl.disable_warp_specialized``.  Vendor item: cuBLAS."""

from tlbench.harness.sweep_api import kernel_sweep

K = "tlbench.suites.gemm.splitk:"
SWEEP = kernel_sweep(
    "gemm_streamk", {"cuda": K + "gemm_streamk_cuda"},
    sizes=[{"M": s, "N": s, "K": s, "dtype": "float16"} for s in (1024, 2048, 4096, 8192)],
    smoke={"M": 1024, "N": 1024, "K": 1024, "dtype": "float16"},
    quick=(),
    axes={"block_M": [128], "block_N": [128], "block_K": [32, 64], "num_stages": [1, 2]},
    pass_configs={"tl.disable_warp_specialized": True},
    inputs=K + "inputs", reference=K + "reference",
    vendor=K + "cublas", vendor_label="torch: A @ B.T (cuBLAS), fp16 out",
    flops=lambda M, N, K, dtype: 2 * M * N * K,
    bytes_moved=lambda M, N, K, dtype: 2 * (M * K + N * K) + 4 * M * N,
    description="stream-K GEMM fp16 -> fp32 on 132 SMs, 1k..8k cubed, vs cuBLAS",
)


def test_gemm_streamk(tlbench):
    tlbench.run()
