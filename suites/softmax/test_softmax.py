"""Row softmax (bodies: suites/softmax/body.py), fp16, memory-bound, against torch.softmax."""

from tlbench.harness.sweep_api import kernel_sweep

K = "tlbench.suites.softmax.body:"
SWEEP = kernel_sweep(
    "softmax", {"cuda": K + "softmax_cuda", "ascend": K + "softmax_ascend"},
    sizes=[{"M": 4096, "N": n, "dtype": "float16"} for n in (2048, 8192, 16384)],
    smoke={"M": 4096, "N": 2048, "dtype": "float16"},
    quick=(),  # compile items cost minutes on a small CPU box: --tlbench-scope=smoke or full
    axes={"BLOCK_N": [1024, 2048], "num_stages": [1, 2, 3]},
    inputs=K + "inputs", reference=K + "reference",
    vendor=K + "torch_softmax", vendor_label="torch.softmax",
    bytes_moved=lambda M, N, dtype: 2 * M * N * 2,
    flops=lambda M, N, dtype: 5 * M * N,  # max, subtract, exp, sum, divide
    description="row softmax, 4096 rows x 2k..16k, fp16: GB/s vs torch",
)


def test_softmax(tlbench):
    tlbench.run()
