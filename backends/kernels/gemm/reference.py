"""Inputs and the torch reference for GEMM, on whatever torch device a backend runs.

Contract: ``make_gemm_inputs`` draws fresh N(0, 1) inputs (never zeros) from a seeded
generator and allocates the output; ``check_output`` compares the kernel's output with
``A.float() @ B.float().T`` (ReLU applied for the ``relu`` epilogue) at rtol = atol = 1e-2.
The caller poisons the output with NaN before the run, so an output the kernel never
wrote fails the check.  ``vendor_gemm`` is the vendor item: it computes what the kernel
computes, into the same output buffer (no extra copy), and says exactly what it launches.
"""

from __future__ import annotations

from typing import Any, Callable

import torch

from tlbench.harness.core.cases import CheckResult
from tlbench.backends.kernels.gemm.problem import GemmProblem
from tlbench.backends.kernels.torch_dtypes import torch_dtype

RTOL = 1e-2
ATOL = 1e-2


def make_gemm_inputs(problem: GemmProblem, seed: int, device: Any) -> dict[str, Any]:
    gen = torch.Generator(device=device).manual_seed(seed)
    dtype = torch_dtype(problem.dtype)
    A = torch.randn((problem.M, problem.K), generator=gen, device=device, dtype=torch.float32).to(dtype)
    B = torch.randn((problem.N, problem.K), generator=gen, device=device, dtype=torch.float32).to(dtype)
    C = torch.empty((problem.M, problem.N), device=device, dtype=torch_dtype(problem.output_dtype))
    return {"A": A, "B": B, "C": C, "seed": seed}


def reference(inputs: dict[str, Any], problem: GemmProblem) -> torch.Tensor:
    ref = inputs["A"].float() @ inputs["B"].float().T
    if problem.epilogue == "relu":
        ref = torch.relu(ref)
    return ref


def check_output(inputs: dict[str, Any], problem: GemmProblem) -> CheckResult:
    out = inputs["C"].float()
    ref = reference(inputs, problem)
    diff = (out - ref).abs()
    bad = ~torch.isclose(out, ref, rtol=RTOL, atol=ATOL)  # NaN counts as bad
    mismatched = int(bad.sum().item())
    finite = torch.isfinite(diff)
    max_abs = float(diff[finite].max().item()) if bool(finite.any()) else float("nan")
    rel = diff / ref.abs().clamp_min(ATOL)
    max_rel = float(rel[finite].max().item()) if bool(finite.any()) else float("nan")
    nan_count = int((~torch.isfinite(out)).sum().item())
    detail = ""
    if mismatched:
        detail = f"{mismatched} of {out.numel()} elements differ beyond rtol={RTOL}, atol={ATOL}"
        if nan_count:
            detail += f" ({nan_count} not finite: the kernel left the NaN poison or overflowed)"
    return CheckResult(
        ok=mismatched == 0,
        max_abs_err=max_abs,
        max_rel_err=max_rel,
        mismatched=mismatched,
        total=out.numel(),
        rtol=RTOL,
        atol=ATOL,
        detail=detail,
    )


def vendor_gemm(inputs: dict[str, Any], problem: GemmProblem) -> tuple[Callable[[], None], str]:
    """The vendor library's version of the kernel's work, writing ``inputs["C"]`` in place.

    Same output dtype as the kernel: ``matmul(out=C)``.  A wider output (bf16 in, fp32 out):
    ``torch.mm(out_dtype=..., out=C)`` (fp32 accumulate, fp32 store, one GEMM) where the
    device's torch has it; otherwise the GEMM writes the input dtype and one cast copies it
    into C, and the label says so.  The ReLU epilogue is an in-place ReLU on C (one
    elementwise kernel: no vendor GEMM API here fuses it at this output dtype).  Returns the
    callable and its exact label."""
    A, B, C = inputs["A"], inputs["B"], inputs["C"]
    relu = problem.epilogue == "relu"
    tail = " + 1 elementwise kernel (in-place ReLU on C)" if relu else ""
    if C.dtype == A.dtype:
        gemm, label = (lambda: torch.matmul(A, B.T, out=C)), "vendor GEMM torch.matmul(out=C)"
    else:
        try:
            torch.mm(A[:8], B[:8].T, out_dtype=C.dtype, out=C[:8, :8])
            gemm = lambda: torch.mm(A, B.T, out_dtype=C.dtype, out=C)  # noqa: E731
            label = f"vendor GEMM torch.mm(out_dtype={C.dtype}, out=C)"
        except (RuntimeError, TypeError, NotImplementedError):
            gemm = lambda: C.copy_(A @ B.T)  # noqa: E731
            label = f"vendor GEMM in {A.dtype} + 1 cast kernel (copy_ into {C.dtype} C): this torch has no mm out_dtype here"

    def run() -> None:
        gemm()
        if relu:
            torch.relu_(C)

    return run, label + tail
