"""A block-sparse GEMM with an fp8 output (bodies: suites/blocksparse/body.py, named as
strings so collecting this suite imports neither torch nor tilelang).  What it exercises:
``inputs`` that take the tile (the block mask is laid out by block_M / block_N / block_K, so
inputs are made per tile), an fp8 e4m3 output judged by ``steps(1)`` (a value the kernel's
fp32 sum rounds to the neighbouring e4m3 value of the reference's passes; two steps fail),
and dense cuBLAS as a speed reference (``vendor_check=False``: a different product, timed,
never judged).  Out of the quick scope; on an H200:
``pytest suites/blocksparse/test_blocksparse_fp8.py --tlbench-backend=nvidia --tlbench-scope=full``."""

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
