"""Implicit-GEMM 2-D convolution (NHWC data, HWCF filter, T.im2col into shared memory):
tilelang's examples/convolution/example_convolution.py, against cuDNN through torch.conv2d
(the example's own reference).  No Ascend body (T.im2col is a CUDA-path op)."""

import torch

from tlbench import kernel_sweep
from conformance_examples import example

conv = example("convolution/example_convolution.py")


def conv_reference(data, kernel, S, P, D):
    return conv.ref_program(S, P, D)(data, kernel)


def out_hw(H, W, K, S, P, D):
    return (H + 2 * P - D * (K - 1) - 1) // S + 1, (W + 2 * P - D * (K - 1) - 1) // S + 1


SWEEP = kernel_sweep(
    "convolution", {"cuda": conv.convolution},
    sizes={"N": 128, "C": 256, "H": 56, "W": 56, "F": 256, "K": 3},
    smoke={"N": 8, "C": 64, "H": 32, "W": 32, "F": 64, "K": 3},
    quick=(),
    axes={"block_M": [64], "block_N": [128], "block_K": [32], "num_stages": [2, 3], "threads": [256]},
    constants={"S": 1, "D": 1, "P": 1},
    inputs=lambda device, N, C, H, W, F, K: [torch.randn(N, H, W, C, device=device).half(),
                                             torch.randn(K, K, C, F, device=device).half()],
    reference=conv_reference,
    vendor=conv_reference, vendor_label="torch.conv2d (cuDNN), NHWC views",
    flops=lambda N, C, H, W, F, K, S, P, D: 2 * N * F * C * K * K * out_hw(H, W, K, S, P, D)[0] * out_hw(H, W, K, S, P, D)[1],
    description="implicit-GEMM conv2d 3x3 fp16 NHWC, ResNet-like layer, vs cuDNN",
)


def test_convolution(tlbench):
    tlbench.run()
