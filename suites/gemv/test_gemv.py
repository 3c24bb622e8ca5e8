"""The README's "Benchmark your own kernel" example, as shipped (tests/test_front_door.py checks
that the README's code block is this file below this docstring): a GEMV, bodies in
suites/gemv/body.py, out of the quick scope."""

import torch
from tlbench import kernel_sweep
from tlbench.suites.gemv.body import gemv_ascend, gemv_cuda  # suites/gemv/body.py: plain tilelang

SWEEP = kernel_sweep(
    "gemv", {"cuda": gemv_cuda, "ascend": gemv_ascend},
    sizes={"M": 8192, "N": 8192},
    smoke={"M": 2048, "N": 2048},
    quick=(),  # out of the main job: --tlbench-scope=smoke or full
    axes={
        "cuda": {"block_M": [64, 128], "block_N": [128], "num_stages": [1, 2, 3]},
        "ascend": {"block_M": [4, 8], "block_N": [128], "num_stages": [1, 2]},
    },
    inputs=lambda device, M, N: [torch.randn(M, N, device=device).half(), torch.randn(N, device=device).half()],
    reference=lambda a, x: a.float() @ x.float(),
    vendor=lambda a, x: a @ x,
    flops=lambda M, N: 2 * M * N,
    bytes_moved=lambda M, N: 2 * (M * N + N + M),
)


def test_gemv(tlbench):
    tlbench.run()
