"""The flash-attention family's vendor items: torch SDPA's kernels (CUDA) and
``torch_npu.npu_fusion_attention`` (Ascend), on the family's inputs.

Contract: ``vendor_runner(case, inputs, dialect, timed)`` returns the callable of the vendor
item ``case.library`` and its exact label (the family's ``vendor_call``,
harness/core/kernel_traits.py).  ``sdpa_flash`` / ``sdpa_cudnn`` / ``sdpa_efficient``: SDPA with
only that kernel allowed (``sdpa_kernel``); ``timed``: the SDPA call alone, without the copy
into O (reference.py's ``sdpa_runner``).  ``npu_fusion_attention``: the fused kernel in the
BNSD layout (GQA: K/V carry ``num_kv_heads`` heads, which the op accepts), writing O; reached
only where the Ascend backend can run (torch_npu, CANN, an NPU), never imported elsewhere.
Causal problems are refused on Ascend before this (the family's rejection).  A library the
dialect has not raises ValueError naming the ones it has.
"""

from __future__ import annotations

from typing import Any, Callable

from tlbench.backends.kernels.flash_attention.problem import VENDOR_LIBRARIES as LIBRARIES, FaProblem, FaVendorCase
from tlbench.backends.kernels.flash_attention.reference import as_bhsd, sdpa_runner


def fusion_attention_runner(inputs: dict[str, Any], problem: FaProblem) -> Callable[[], None]:
    import torch_npu  # guarded by the backend's device_blocker()

    q, k, v = as_bhsd(inputs, problem)
    O = inputs["O"]

    def run() -> None:
        out = torch_npu.npu_fusion_attention(q, k, v, problem.heads, input_layout="BNSD", scale=problem.sm_scale, keep_prob=1.0)[0]
        O.copy_(out.reshape(-1, problem.dim))

    return run


def vendor_runner(case: FaVendorCase, inputs: dict[str, Any], dialect: str, timed: bool) -> tuple[Callable[[], None], str]:
    if case.library not in LIBRARIES.get(dialect, ()):
        raise ValueError(f"flash attention has no vendor item {case.library!r} for dialect {dialect!r}; "
                         f"it has: {', '.join(LIBRARIES.get(dialect, ())) or 'none'}")
    if case.library == "npu_fusion_attention":
        return fusion_attention_runner(inputs, case.problem), "torch_npu.npu_fusion_attention (BNSD)"
    library = case.library.removeprefix("sdpa_")
    run = sdpa_runner(inputs, case.problem, library, write_output=not timed)
    return run, f"torch.nn.functional.scaled_dot_product_attention with only the {library} kernel allowed (sdpa_kernel)"
