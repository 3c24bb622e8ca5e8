"""Top-k over each row (MoE gating): tilelang's examples/topk/example_topk.py (values and int32
indices) and its Ascend twin examples/ascend/example_simdvf_topk_gate.py (int32 indices only,
the row count left T.dynamic).  Indices are judged exactly (the default for integer outputs),
values by the default tolerance.  Vendor item: torch.topk."""

import torch

from tlbench import kernel_sweep
from conformance_examples import example

rows_topk = example("topk/example_topk.py")
gate_topk = example("ascend/example_simdvf_topk_gate.py")


def topk_gate_mn(N, topk):
    return gate_topk.topk_gate(N, topk)  # num_experts, num_topk; the token count M stays symbolic


def torch_topk(logits, topk, dialect):
    gates, indices = rows_topk.ref_program(logits, topk)
    return (gates, indices) if dialect == "cuda" else indices


SWEEP = kernel_sweep(
    "topk", {"cuda": rows_topk.tl_topk, "ascend": topk_gate_mn},
    sizes={"M": 16384, "N": 128, "topk": 6},
    smoke={"M": 320, "N": 128, "topk": 6},
    quick=(),
    axes={"cuda": {"blk_m": [64, 128], "threads": [128]}},
    inputs=lambda device, M, N: [torch.rand(M, N, device=device)],
    reference=torch_topk,
    vendor=torch_topk, vendor_label="torch.topk",
    bytes_moved=lambda M, N, topk: 4 * M * N + 8 * M * topk,
    description="top-6 of 128 experts per token, fp32: values + int32 indices vs torch.topk",
)


def test_topk(tlbench):
    tlbench.run()
