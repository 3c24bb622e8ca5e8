"""Multi-head latent attention decode (DeepSeek MLA: 128 query heads, one token each, over a
shared 512-wide latent K/V cache with a 64-wide rotary key part): tilelang's
examples/deepseek_mla/example_mla_decode.py (``flashattn``; ``num_split`` > 1 adds a combine
kernel over global scratch).  Vendor item: torch SDPA on the concatenated query and key (a
576-wide head: whichever SDPA kernel takes it), each K/V head's query heads as its query rows.
No Ascend body."""

import torch
import torch.nn.functional as F

from tlbench import kernel_sweep
from conformance_examples import example

mla = example("deepseek_mla/example_mla_decode.py")


def make_inputs(device, batch, heads, kv_head_num, seqlen_kv, dim, pe_dim):
    def half(*shape):
        return torch.randn(*shape, device=device, dtype=torch.float16)
    return [half(batch, heads, dim), half(batch, heads, pe_dim),
            half(batch, seqlen_kv, kv_head_num, dim), half(batch, seqlen_kv, kv_head_num, pe_dim)]


def sdpa(q, q_pe, kv, k_pe):
    """Each K/V head's query heads as the query rows of one attention (no causal mask: the same
    product), so SDPA never copies the cache per query head."""
    batch, heads, _ = q.shape
    kv_heads = kv.shape[2]
    query = torch.cat([q, q_pe], dim=-1).view(batch, kv_heads, heads // kv_heads, -1)  # [b, K/V heads, group, 576]
    key = torch.cat([kv, k_pe], dim=-1).transpose(1, 2)  # [b, K/V heads, s, 576]
    return F.scaled_dot_product_attention(query, key, kv.transpose(1, 2)).reshape(batch, heads, -1)


SWEEP = kernel_sweep(
    "mla_decode", {"cuda": mla.flashattn},
    sizes={"batch": 132, "heads": 128, "kv_head_num": 1, "seqlen_kv": 8192, "dim": 512, "pe_dim": 64},
    smoke={"batch": 2, "heads": 128, "kv_head_num": 1, "seqlen_kv": 1024, "dim": 512, "pe_dim": 64},
    quick=(),
    axes={"block_N": [32, 64], "block_H": [64], "num_split": [1, 4]},
    constants={"softmax_scale": (512 + 64) ** -0.5},
    inputs=make_inputs,
    reference=lambda q, q_pe, kv, k_pe: mla.ref_program(q.float(), q_pe.float(), kv.float(), k_pe.float()),
    vendor=sdpa, vendor_label="torch SDPA, a K/V head's query heads as its query rows, 576-wide query and key",
    flops=lambda batch, heads, seqlen_kv, dim, pe_dim: 2 * batch * heads * seqlen_kv * (2 * dim + pe_dim),
    bytes_moved=lambda batch, heads, kv_head_num, seqlen_kv, dim, pe_dim:
        2 * (batch * seqlen_kv * kv_head_num * (dim + pe_dim) + batch * heads * (2 * dim + pe_dim)),
    description="MLA decode fp16, 132 x 128 heads over an 8192-token latent cache (512 + 64), vs SDPA",
)


def test_mla_decode(tlbench):
    tlbench.run()
