"""LayerNorm forward with three outputs (Y in bf16, the row mean and rstd in fp32): tilelang's
examples/norm/layernorm.py (``_layernorm_fwd``).  Memory-bound: GB/s and % of bandwidth
against torch.native_layer_norm, which returns the same three.  No Ascend body."""

import torch

from tlbench import kernel_sweep
from conformance_examples import example

layernorm = example("norm/layernorm.py")


def make_inputs(device, N, D):
    return [torch.randn(N, D, device=device, dtype=torch.bfloat16),
            torch.randn(D, device=device, dtype=torch.bfloat16), torch.randn(D, device=device, dtype=torch.bfloat16)]


def reference(x, gamma, beta, eps):
    xf = x.float()
    mean = xf.mean(dim=-1)
    rstd = torch.rsqrt(xf.var(dim=-1, unbiased=False) + eps)
    return layernorm.ref_program(x, gamma, beta, eps), mean, rstd


def torch_layer_norm(x, gamma, beta, eps):
    y, mean, rstd = torch.native_layer_norm(x, (x.shape[-1],), gamma, beta, eps)
    return y, mean.view(-1).float(), rstd.view(-1).float()


SWEEP = kernel_sweep(
    "layernorm", {"cuda": layernorm._layernorm_fwd},
    sizes={"N": 4096, "D": 8192},
    smoke={"N": 256, "D": 1024},
    quick=(),
    axes={"blk_m": [1, 2], "threads": [256]},
    constants={"eps": 1e-5},
    inputs=make_inputs,
    reference=reference,
    vendor=torch_layer_norm, vendor_label="torch.native_layer_norm",
    bytes_moved=lambda N, D: 2 * (2 * N * D + 2 * D) + 8 * N,
    flops=lambda N, D: 8 * N * D,
    description="LayerNorm forward bf16, 4096 x 8192, y + mean + rstd: GB/s vs torch",
)


def test_layernorm(tlbench):
    tlbench.run()
