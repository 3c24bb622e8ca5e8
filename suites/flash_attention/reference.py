"""Inputs, the fp32 reference and the allowed error of the flash-attention suites.

Contract: ``make_inputs(problem, seed, device)`` draws Q, K, V from N(0, 1); ``inputs`` is the
suite's ``inputs=``; ``reference`` fp32 SDPA (GQA by repeating K/V heads); ``allowed_error`` the
``bound``: ``|out - ref| <= ATOL + RTOL * |ref| + P_SLACK * u * (P|V|)`` (``u`` the input
dtype's unit roundoff).  The P term: rounding P errs by up to u·(P|V|), which |ref| does not
bound where weighted values cancel (early causal rows).  torch is imported inside.
"""

from __future__ import annotations

from typing import Any

from .build import fa_problem

from .problem import FaProblem

RTOL = 2e-2
ATOL = 2e-3
P_SLACK = 2.0  # times the bound u * (P|V|) of rounding P to the input dtype
UNIT_ROUNDOFF = {"bfloat16": 2.0**-8, "float16": 2.0**-11, "float32": 2.0**-24}  # by the inputs' dtype
TORCH_DTYPES = ("float16", "bfloat16", "float32")


def torch_dtype(name: str) -> Any:
    import torch

    if name not in TORCH_DTYPES:
        raise ValueError(f"dtype {name!r} has no torch reference; known: {', '.join(TORCH_DTYPES)}")
    return getattr(torch, name)


def make_inputs(problem: FaProblem, seed: int, device: Any) -> list[Any]:
    import torch

    gen = torch.Generator(device=device).manual_seed(seed)
    dtype = torch_dtype(problem.dtype)
    q_rows = problem.batch * problem.heads * problem.seq_q
    kv_rows = problem.batch * problem.num_kv_heads * problem.seq_k

    def draw(rows: int) -> Any:
        return torch.randn((rows, problem.dim), generator=gen, device=device, dtype=torch.float32).to(dtype)

    return [draw(q_rows), draw(kv_rows), draw(kv_rows)]


def inputs(device, batch, heads, seq_q, seq_k, dim, dtype, causal, kv_heads, out_dtype):
    """Q, K, V (``make_inputs``), seeded from tlbench's generator.  The sizes are named, not
    ``**sizes``: a ``**`` inputs is given every axis, so it would be made again for every config."""
    import torch

    problem = FaProblem(batch=batch, heads=heads, seq_q=seq_q, seq_k=seq_k, dim=dim, dtype=dtype, causal=causal,
                        kv_heads=kv_heads, out_dtype=out_dtype)
    return make_inputs(problem, int(torch.randint(0, 2**31 - 1, ())), device)


def as_bhsd(Q: Any, K: Any, V: Any, problem: FaProblem) -> tuple[Any, Any, Any]:
    B, H, Hkv, D = problem.batch, problem.heads, problem.num_kv_heads, problem.dim
    return Q.view(B, H, problem.seq_q, D), K.view(B, Hkv, problem.seq_k, D), V.view(B, Hkv, problem.seq_k, D)


def fp32_attention(Q: Any, K: Any, V: Any, problem: FaProblem, absolute_values: bool = False) -> Any:
    """softmax(QK^T·scale)·V (``absolute_values``: ·|V|) in fp32 on the (rounded) inputs, flattened."""
    import torch.nn.functional as F

    q, k, v = (t.float() for t in as_bhsd(Q, K, V, problem))
    if absolute_values:
        v = v.abs()
    if problem.group_size > 1:
        k = k.repeat_interleave(problem.group_size, dim=1)
        v = v.repeat_interleave(problem.group_size, dim=1)
    out = F.scaled_dot_product_attention(q, k, v, is_causal=problem.causal, scale=problem.sm_scale)
    return out.reshape(-1, problem.dim)


def reference(Q, K, V, **sizes):
    return fp32_attention(Q, K, V, fa_problem(sizes))


def allowed_error(ref, Q, K, V, **sizes):
    """Each element's allowed |out - ref| (the module's contract)."""
    u = UNIT_ROUNDOFF.get(str(Q.dtype).removeprefix("torch."), 2.0**-8)
    return ATOL + RTOL * ref.abs() + P_SLACK * u * fp32_attention(Q, K, V, fa_problem(sizes), absolute_values=True)
