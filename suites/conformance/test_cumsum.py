"""Chunk-local reverse cumulative sum (gated linear attention's cumsum: every 64 positions of
each head summed from the end): tilelang's examples/gdn/example_cumsum.py, with the
example's own settings (reverse, fp32 in and out).  The example checks against the fla
package; the reference here is torch's cumsum over each chunk.  Memory-bound.  No Ascend body."""

import torch

from tlbench import kernel_sweep
from conformance_examples import example

cumsum = example("gdn/example_cumsum.py")


def chunk_reverse_cumsum(g, chunk_size):
    B, S, H = g.shape
    chunks = g.float().view(B, S // chunk_size, chunk_size, H)
    return chunks.flip(2).cumsum(2).flip(2).view(B, S, H)


SWEEP = kernel_sweep(
    "cumsum", {"cuda": cumsum.tilelang_chunk_local_cumsum_scalar},
    sizes={"B": 1, "S": 32768, "H": 32},
    smoke={"B": 1, "S": 1024, "H": 4},
    quick=(),
    axes={"threads": [128, 256], "use_fragment": [False, True]},
    constants={"chunk_size": 64, "block_S": 64, "reverse": True, "input_dtype": "float32", "output_dtype": "float32"},
    inputs=lambda device, B, S, H: [torch.randn(B, S, H, device=device)],
    reference=chunk_reverse_cumsum,
    vendor=chunk_reverse_cumsum, vendor_label="torch: flip, cumsum, flip per chunk",
    bytes_moved=lambda B, S, H: 8 * B * S * H,
    flops=lambda B, S, H: B * S * H,
    description="chunk-local reverse cumsum fp32, 32768 positions x 32 heads: GB/s vs torch",
)


def test_cumsum(tlbench):
    tlbench.run()
