"""RMSNorm (bodies: suites/rmsnorm/body.py, named as strings), memory-bound: GB/s and % of memory
bandwidth against torch's RMSNorm, 4096 rows over hidden sizes 1024..16384."""

from tlbench.harness.sweep_api import kernel_sweep

K = "tlbench.suites.rmsnorm.body:"
SWEEP = kernel_sweep(
    "rmsnorm", {"cuda": K + "rms_norm_cuda", "ascend": K + "rms_norm_ascend"},
    sizes=[{"M": 4096, "N": n, "dtype": "float32"} for n in (1024, 2048, 4096, 8192, 16384)],
    smoke={"M": 4096, "N": 1024, "dtype": "float32"},
    quick=(),  # 60 compile items: minutes on a small CPU box; --tlbench-scope=smoke or full
    axes={"blk_m": [1, 2], "num_stages": [1, 2, 3]},
    inputs=K + "inputs", reference=K + "reference",
    vendor=K + "torch_rms_norm", vendor_label="torch.nn.functional.rms_norm",
    bytes_moved=lambda M, N, dtype: 2 * M * N * 4,
    flops=lambda M, N, dtype: 3 * M * N,  # square, sum, scale: 0.375 FLOP/B puts it under the memory roof
    description="RMSNorm, 4096 rows x hidden 1k..16k, fp32: GB/s and % of memory bandwidth vs torch",
)


def test_rmsnorm(tlbench):
    tlbench.run()
