"""What the built-in flash-attention suites declare their kernel with through ``kernel_sweep``.

Contract: ``problem(batch, heads, seq, ...)`` and ``config(block_M, block_N, num_stages, ...)``
are a size dict and a config dict with every key, in the order records have always carried
them (``FaProblem`` / ``FaConfig`` of backends/kernels/flash_attention/problem.py, whose
docstring says what each means), so ids, records and reports stay what they were;
``stage_configs`` gives each tile's ``auto`` at each num_stages, then ``manual`` and
``serial``.  ``FA`` holds the keyword arguments every flash-attention suite passes to
``kernel_sweep``; a suite adds its sizes and configs.
- bodies: ``fa_cuda`` / ``fa_ascend`` build the one shared body (``body="shared"``) for that
  target, or on CUDA the target-specific Hopper kernels (``hopper``, ``hopper_ws``,
  ``hopper_ws_ov``) - the bodies of backends/kernels/flash_attention/, which its own tests
  lower and check; ``body_modules`` names them so the kernel hash covers their source.
- ids, labels, the KV loop's trip count (None when causal), the refusals (``pruned``: what
  the compiler or the body would refuse), the on-chip footprint per dialect, FLOPs of the
  attended pairs and the compulsory bytes: the family's own rules, called by value.
- ``fast_math``: tilelang's ``tl.enable_fast_math`` (nvcc ``--use_fast_math``) on CUDA.
- the check: every element within ``2e-3 + 2e-2 |ref| + 2u (P|V|)`` of fp32 SDPA
  (reference.py's contract); the vendor items: torch SDPA with one kernel allowed (flash,
  cuDNN, memory-efficient), each its own item, and ``npu_fusion_attention`` on Ascend; timed,
  each is the call alone (its output copied into O for the check, outside the timing).
No tilelang and no torch at import: collecting a suite needs neither.
"""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any, Iterable

from tlbench import bound, pruned
from tlbench.backends.kernels.flash_attention.problem import FaConfig, FaProblem

FA_PACKAGE = "tlbench.backends.kernels.flash_attention"
FAST_MATH_PASS_CONFIG = "tl.enable_fast_math"
_PROBLEM_KEYS = tuple(f.name for f in fields(FaProblem))
_CONFIG_KEYS = tuple(f.name for f in fields(FaConfig))


def problem(batch: int, heads: int, seq: int, dim: int = 128, dtype: str = "bfloat16", causal: bool = False,
            kv_heads: int | None = None, out_dtype: str | None = None, seq_k: int | None = None) -> dict[str, Any]:
    made = FaProblem(batch=batch, heads=heads, seq_q=seq, seq_k=seq if seq_k is None else seq_k, dim=dim, dtype=dtype,
                     causal=causal, kv_heads=kv_heads, out_dtype=out_dtype)
    return asdict(made)


def config(block_M: int = 128, block_N: int = 128, num_stages: int | None = 2, **extra: Any) -> dict[str, Any]:
    return asdict(FaConfig(block_M, block_N, num_stages, **extra))


def stage_configs(tiles: Iterable[tuple[int, int, int]], num_stages: Iterable[int], **extra: Any) -> list[dict[str, Any]]:
    """Each (block_M, block_N, threads) tile's ``auto`` at each num_stages, then ``manual`` and ``serial``."""
    stages = list(num_stages)
    out: list[dict[str, Any]] = []
    for block_M, block_N, threads in tiles:
        tile = dict(threads=threads, **extra)
        out += [config(block_M, block_N, s, loop_form="auto", **tile) for s in stages]
        out += [config(block_M, block_N, None, loop_form=form, **tile) for form in ("manual", "serial")]
    return out


def _problem(values: dict[str, Any]) -> FaProblem:
    return FaProblem(**{k: values[k] for k in _PROBLEM_KEYS if k in values})


def _config(values: dict[str, Any]) -> FaConfig:
    return FaConfig(**{k: values[k] for k in _CONFIG_KEYS if k in values})


def _family():
    from tlbench.backends.kernels.flash_attention.family import FLASH_ATTENTION

    return FLASH_ATTENTION


# -- the bodies ------------------------------------------------------------------------------
def fa_cuda(**values):
    return _family().build(_problem(values), _config(values), "cuda")


def fa_ascend(**values):
    return _family().build(_problem(values), _config(values), "ascend")


def body_modules(dialect, **values) -> list[str]:
    from tlbench.backends.kernels.flash_attention.family import body_modules as modules

    return list(modules(_config(values), dialect))


# -- ids and labels (history keys: never change them) -------------------------------------------
def problem_id(**sizes) -> str:
    return _problem(sizes).problem_id


def config_id(**axes) -> str:
    return _config(axes).config_id


def problem_label(**sizes) -> str:
    return _family().problem_label(_problem(sizes))


def config_label(**axes) -> str:
    return _family().stage_point(_config(axes)).tile


def loop_trips(**values) -> int | None:
    return _family().loop_trips(_problem(values), _config(values))


# -- what a config can build, and what it costs ------------------------------------------------
def validate(dialect, **values):
    from tlbench.backends.kernels.flash_attention.validation import validate as refusal

    reason = refusal(_problem(values), _config(values), dialect)
    return pruned(reason) if reason else None


def footprint(dialect, **values) -> dict[str, tuple[int, int]]:
    from tlbench.backends.kernels.flash_attention.family import footprint_bytes

    return footprint_bytes(_problem(values), _config(values), dialect)


def pass_configs(dialect, fast_math) -> dict[str, bool]:
    from tlbench.backends.kernels.flash_attention.validation import FAST_MATH_DIALECTS

    return {FAST_MATH_PASS_CONFIG: True} if fast_math and dialect in FAST_MATH_DIALECTS else {}


def flops(**sizes) -> int:
    return _problem(sizes).flops


def bytes_moved(**sizes) -> int:
    return _problem(sizes).bytes_moved


# -- inputs, the reference, the check, the vendor items (torch, imported when called) -----------
def inputs(device, batch, heads, seq_q, seq_k, dim, dtype, causal, kv_heads, out_dtype):
    """Q, K, V from N(0, 1) in the problem's dtype, flattened (reference.py's ``make_fa_inputs``;
    its seed drawn from the generator tlbench seeded).  The sizes are named, not ``**sizes``:
    a ``**`` inputs is given every axis too, and its inputs (and the reference on them) would
    be made again for every config instead of once per problem."""
    import torch

    from tlbench.backends.kernels.flash_attention.reference import make_fa_inputs

    sizes = dict(batch=batch, heads=heads, seq_q=seq_q, seq_k=seq_k, dim=dim, dtype=dtype, causal=causal,
                 kv_heads=kv_heads, out_dtype=out_dtype)
    made = make_fa_inputs(_problem(sizes), int(torch.randint(0, 2**31 - 1, ())), device)
    return [made["Q"], made["K"], made["V"]]


def _named(Q, K, V) -> dict[str, Any]:
    return {"Q": Q, "K": K, "V": V}


def reference(Q, K, V, **sizes):
    from tlbench.backends.kernels.flash_attention.reference import reference as fp32_sdpa

    return fp32_sdpa(_named(Q, K, V), _problem(sizes))


def allowed_error(ref, Q, K, V, **sizes):
    from tlbench.backends.kernels.flash_attention.reference import tolerance

    return tolerance(_named(Q, K, V), _problem(sizes))


def _sdpa(kernel: str):
    def vendor(Q, K, V, **sizes):
        import torch.nn.functional as F
        from torch.nn.attention import sdpa_kernel

        from tlbench.backends.kernels.flash_attention.reference import _sdpa_backend, as_bhsd

        fa = _problem(sizes)
        q, k, v = as_bhsd(_named(Q, K, V), fa)
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

    from tlbench.backends.kernels.flash_attention.reference import as_bhsd

    fa = _problem(sizes)
    q, k, v = as_bhsd(_named(Q, K, V), fa)
    out = torch_npu.npu_fusion_attention(q, k, v, fa.heads, input_layout="BNSD", scale=fa.sm_scale, keep_prob=1.0)[0]
    return out.reshape(-1, fa.dim)


SDPA = {f"sdpa_{kernel}": _sdpa(kernel) for kernel in ("flash", "cudnn", "efficient")}
VENDOR_LABELS = {
    **{name: f"torch.nn.functional.scaled_dot_product_attention with only the {name.removeprefix('sdpa_')} kernel allowed "
             "(sdpa_kernel)" for name in SDPA},
    "npu_fusion_attention": "torch_npu.npu_fusion_attention (BNSD)",
}

FA = dict(
    body={"cuda": fa_cuda, "ascend": fa_ascend},
    body_modules=body_modules,
    problem_id=problem_id, config_id=config_id, problem_label=problem_label, config_label=config_label, loop_trips=loop_trips,
    validate=validate, footprint=footprint, pass_configs=pass_configs, flops=flops, bytes_moved=bytes_moved,
    inputs=inputs, reference=reference, check=bound(allowed_error, "2e-3 + 2e-2 |ref| + 2u (P|V|)"),
    vendor={"cuda": SDPA, "ascend": {"npu_fusion_attention": npu_fusion_attention}}, vendor_label=VENDOR_LABELS,
)
