"""Inputs, the fp32 reference and the allowed error of the flash-attention suites.

Contract: ``make_inputs(problem, seed, device)`` draws Q, K, V from N(0, 1) (never zeros;
seeded) in the problem's dtype, in the flattened layout of ``FaProblem`` (Q: (B*H*Sq, D);
K, V: (B*Hkv*Sk, D)); ``inputs(device, **sizes)`` is the suite's ``inputs=``: the same, its
seed drawn from the generator tlbench seeded.  ``reference(Q, K, V, **sizes)`` is
``torch.nn.functional.scaled_dot_product_attention`` in fp32 on those same (rounded) inputs,
GQA by repeating each K/V head over its group.  ``allowed_error(ref, Q, K, V, **sizes)`` is the
suite's ``bound``: every output element must obey
``|out - ref| <= ATOL + RTOL * |ref| + P_SLACK * u * (P|V|)`` (RTOL = 2e-2, ATOL = 2e-3,
P_SLACK = 2; ``u`` the unit roundoff of the input dtype, 2^-8 for bf16; ``P|V|`` the
element of softmax(QK^T)·|V|, from one more fp32 SDPA on |V|).  Why: with N(0, 1) inputs the
scores have unit spread, the softmax is flat and |O| is small (about 1e-2 at S = 8192), so a
fixed atol of 1e-2 would pass a kernel that forgot the rescale.  A correct kernel rounds O
to bf16 (inside RTOL·|ref|) and P to the input dtype before the second GEMM: that error is
at most u·Σ_j p_j|v_j| = u·(P|V|), which is NOT bounded by |ref| where the weighted values
cancel - the first rows of a causal problem weigh two or three keys, |ref| can be 0.1 while
P|V| is 2 - so an ATOL + RTOL·|ref| rule alone failed correct kernels, torch's own SDPA
kernels included, at about one input seed in forty (tests/test_fa_kernel.py).  At S = 8192
P|V| is about 0.8 (E|v|), so the P term adds about 0.006: a forgotten rescale, whose errors
are of the order of |O| and more, still fails.  tlbench poisons O with NaN before the checked
run, so an unwritten O fails.  ``as_bhsd(Q, K, V, problem)`` views the flattened tensors as
(B, H, S, D) for SDPA (K and V with the KV heads).  torch is imported inside the functions only,
so the suite names them at collection without torch.
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
    """Q, K, V (``make_inputs``), the seed drawn from the generator tlbench seeded.  The sizes
    are named, not ``**sizes``: a ``**`` inputs is given every axis too, and its inputs (and the
    reference on them) would be made again for every config instead of once per problem."""
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
