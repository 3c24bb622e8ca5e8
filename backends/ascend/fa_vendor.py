"""The vendor flash attention on the NPU: ``torch_npu.npu_fusion_attention`` on the family's
inputs.  Reached only where the Ascend backend can run (torch_npu, CANN, an NPU: the runner
gates on ``device_blocker``); never imported or run on a machine without them.

Contract: ``fusion_attention_runner(inputs, problem)`` returns a closure that runs the fused
kernel in the BNSD layout (GQA: K/V carry ``num_kv_heads`` heads, which the op accepts) and
writes O.  Causal problems are refused before this (the family's rejection).
"""

from __future__ import annotations

from typing import Any, Callable

from tlbench.backends.kernels.fa_reference import as_bhsd
from tlbench.backends.kernels.fa_types import FaProblem


def fusion_attention_runner(inputs: dict[str, Any], problem: FaProblem) -> Callable[[], None]:
    import torch_npu  # guarded by the backend's device_blocker()

    q, k, v = as_bhsd(inputs, problem)
    O = inputs["O"]

    def run() -> None:
        out = torch_npu.npu_fusion_attention(q, k, v, problem.heads, input_layout="BNSD", scale=problem.sm_scale, keep_prob=1.0)[0]
        O.copy_(out.reshape(-1, problem.dim))

    return run
