"""The flash-attention suites' vendor items: torch SDPA's fused kernels (CUDA) and
``torch_npu.npu_fusion_attention`` (Ascend), on the suite's inputs.

Contract: ``SDPA`` maps each SDPA kernel name to a vendor call allowing only it (one this torch
cannot run raises ``NotImplementedError``); ``VENDOR_LABELS`` names each.  torch imported inside.
"""

from __future__ import annotations

from .build import fa_problem
from .reference import as_bhsd

SDPA_KERNELS = ("flash", "cudnn", "efficient")


def _sdpa_backend(kernel: str):
    from torch.nn.attention import SDPBackend

    return {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION, "efficient": SDPBackend.EFFICIENT_ATTENTION}[kernel]


def _sdpa(kernel: str):
    def vendor(Q, K, V, **sizes):
        import torch.nn.functional as F
        from torch.nn.attention import sdpa_kernel

        fa = fa_problem(sizes)
        q, k, v = as_bhsd(Q, K, V, fa)
        gqa = {"enable_gqa": True} if fa.group_size > 1 else {}
        try:
            with sdpa_kernel([_sdpa_backend(kernel)]):
                out = F.scaled_dot_product_attention(q, k, v, is_causal=fa.causal, scale=fa.sm_scale, **gqa)
        except RuntimeError as exc:  # this torch has no such kernel for these inputs here (CPU torch: cuDNN)
            if "No viable backend" not in str(exc):
                raise
            raise NotImplementedError(f"torch SDPA's {kernel} kernel does not run on {Q.device.type} here: {exc}") from None
        return out.reshape(-1, fa.dim)

    vendor.__name__ = vendor.__qualname__ = f"sdpa_{kernel}"
    return vendor


def npu_fusion_attention(Q, K, V, **sizes):
    import torch_npu  # reached only where the Ascend backend can run (its device_blocker)

    fa = fa_problem(sizes)
    q, k, v = as_bhsd(Q, K, V, fa)
    out = torch_npu.npu_fusion_attention(q, k, v, fa.heads, input_layout="BNSD", scale=fa.sm_scale, keep_prob=1.0)[0]
    return out.reshape(-1, fa.dim)


SDPA = {f"sdpa_{kernel}": _sdpa(kernel) for kernel in SDPA_KERNELS}
VENDOR_LABELS = {
    **{name: f"torch.nn.functional.scaled_dot_product_attention with only the {name.removeprefix('sdpa_')} kernel allowed "
             "(sdpa_kernel)" for name in SDPA},
    "npu_fusion_attention": "torch_npu.npu_fusion_attention (BNSD)",
}
