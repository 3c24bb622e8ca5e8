"""A block-sparse GEMM with an fp8 output (suites/blocksparse/body.py): inputs that take the tile,
an e4m3 output judged by ``steps(1)``, and dense cuBLAS as an unjudged speed reference.  Out of the
quick scope."""

from tlbench import kernel_sweep, steps

K = "tlbench.suites.blocksparse.body:"
SWEEP = kernel_sweep(
    "blocksparse_fp8", {"cuda": K + "blocksparse_gemm"},
    sizes=[{"M": 4096, "N": 4096, "K": 4096}, {"M": 8192, "N": 8192, "K": 8192}],
    smoke={"M": 1024, "N": 1024, "K": 1024},
    quick=(),
    axes={"block_M": [128], "block_N": [128], "block_K": [32, 64], "num_stages": [1, 2, 3]},
    constants={"threads": 128, "density": 0.5},
    inputs=K + "inputs", reference=K + "reference", check=steps(1),
    vendor=K + "dense_cublas", vendor_label="torch.matmul (dense, cuBLAS)", vendor_check=False,
    flops=K + "flops",
    description="block-sparse GEMM, half the K tiles, fp8 e4m3 output by steps(1), dense cuBLAS as a speed reference",
)


def test_blocksparse_fp8(tlbench):
    tlbench.run()
