"""One-pass RMSNorm on CUDA (``rms_norm_onepass_cuda``): whole rows on chip, the matrix read once;
the same problems as test_rmsnorm.py, against torch's RMSNorm."""

from tlbench.harness.sweep_api import kernel_sweep

K = "tlbench.suites.rmsnorm.body:"
SWEEP = kernel_sweep(
    "rmsnorm_onepass", {"cuda": K + "rms_norm_onepass_cuda"},
    sizes=[{"M": 4096, "N": n, "dtype": "float32"} for n in (1024, 2048, 4096, 8192, 16384)],
    smoke={"M": 4096, "N": 1024, "dtype": "float32"},
    quick=(),  # --tlbench-scope=smoke or full
    axes={"blk_m": [1, 2], "threads": [256, 512, 1024], "staged": [True, False]},
    inputs=K + "inputs", reference=K + "reference", footprint=K + "onepass_footprint",
    vendor=K + "torch_rms_norm", vendor_label="torch.nn.functional.rms_norm",
    bytes_moved=lambda M, N, dtype: 2 * M * N * 4,
    flops=lambda M, N, dtype: 3 * M * N,
    description="one-pass RMSNorm, 4096 rows x hidden 1k..16k, fp32, CUDA: GB/s and % of memory bandwidth vs torch",
)


def test_rmsnorm_onepass(tlbench):
    tlbench.run()
