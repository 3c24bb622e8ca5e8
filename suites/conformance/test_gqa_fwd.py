"""Grouped-query attention forward (BSHD, ``groups`` query heads per K/V head): tilelang's
examples/flash_attention/example_gqa_fwd_bshd.py (``flashattn`` under its @autotune: tlbench
sweeps the axes itself).  Vendor item: torch SDPA with enable_gqa (cuDNN / flash).  No Ascend
body here (tilelang's Ascend attention is a separate example)."""

import torch
import torch.nn.functional as F

from tlbench import kernel_sweep
from conformance_examples import example

gqa = example("flash_attention/example_gqa_fwd_bshd.py")


def make_inputs(device, batch, heads, seq_len, dim, groups):
    q = torch.randn(batch, seq_len, heads, dim, device=device, dtype=torch.float16)
    k, v = (torch.randn(batch, seq_len, heads // groups, dim, device=device, dtype=torch.float16) for _ in range(2))
    return [q, k, v]


def sdpa(q, k, v, is_causal):
    out = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                         is_causal=is_causal, enable_gqa=True)
    return out.transpose(1, 2)


SWEEP = kernel_sweep(
    "gqa_fwd", {"cuda": gqa.flashattn},
    sizes={"batch": 1, "heads": 64, "seq_len": 4096, "dim": 128, "groups": 16},
    smoke={"batch": 1, "heads": 8, "seq_len": 256, "dim": 128, "groups": 4},
    quick=(),
    axes={"block_M": [64, 128], "block_N": [64], "num_stages": [2], "threads": [128]},
    constants={"is_causal": False},
    inputs=make_inputs,
    reference=gqa.ref_program,
    vendor=sdpa, vendor_label="torch SDPA, enable_gqa",
    flops=lambda batch, heads, seq_len, dim: 4 * batch * heads * seq_len * seq_len * dim,
    description="GQA forward fp16, 64 query heads over 4 K/V heads, S=4096, D=128, vs SDPA",
)


def test_gqa_fwd(tlbench):
    tlbench.run()
