"""GEMM on packed int4 operands, int32 output (``C = A @ B^T``, A and B declared T.int4, two
values a byte): tilelang's examples/gemm_int4/example_tilelang_gemm_int4.py, fed by its
pack_int4 (int8 tensors of half the columns: tlbench reads a sub-byte parameter's last
dimension as packed).  On sm_90a tilelang 0.1.15 cannot put int4 through TMA
("to_CUtensorMapDataType: int4"), so TMA lowering and warp specialization are switched off by
pass_configs.  The int32 output is judged exactly (the default for integers).  Vendor item:
the same values as int8 through torch._int_mm (cuBLASLt int8), unpacking included.  No
Ascend body."""

import torch

from tlbench import kernel_sweep
from conformance_examples import example

gemm_int4 = example("gemm_int4/example_tilelang_gemm_int4.py")


def unpack_int4(packed):  # the inverse of pack_int4: two signed nibbles a byte, low first
    low, high = (packed << 4) >> 4, packed >> 4
    return torch.stack((low, high), dim=-1).flatten(-2)


def int4_inputs(device, M, N, K):
    return [gemm_int4.pack_int4(torch.randint(-8, 8, (rows, K), dtype=torch.int8, device=device)) for rows in (M, N)]


def reference(a, b):  # exact in fp32: every partial sum is an integer below 2**24
    return (unpack_int4(a).float() @ unpack_int4(b).float().T).to(torch.int32)


SWEEP = kernel_sweep(
    "gemm_int4", {"cuda": gemm_int4.matmul_nt_int4},
    sizes={"M": 4096, "N": 4096, "K": 4096},
    smoke={"M": 256, "N": 256, "K": 256},
    quick=(),
    axes={"block_M": [128], "block_N": [128], "block_K": [64, 128], "threads": [128]},
    pass_configs={"tl.disable_tma_lower": True, "tl.disable_warp_specialized": True},
    inputs=int4_inputs,
    reference=reference,
    vendor=lambda a, b: torch._int_mm(unpack_int4(a), unpack_int4(b).t()),
    vendor_label="torch._int_mm on the values unpacked to int8",
    flops=lambda M, N, K: 2 * M * N * K,
    description="int4 x int4 -> int32 GEMM (packed operands), 4096 cubed, vs int8 cuBLASLt",
)


def test_gemm_int4(tlbench):
    tlbench.run()
