"""What the built-in flash-attention suites declare their kernel with through ``kernel_sweep``.

Contract: ``problem(...)`` and ``config(...)`` are dicts with every key in the order records have
always carried them; ``stage_configs`` gives each tile's ``auto`` at each num_stages, then
``manual`` and ``serial``; ``FA`` holds the keyword arguments every flash-attention suite passes
to ``kernel_sweep``.  No tilelang and no torch at import.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Iterable

from .build import fa_ascend, fa_config, fa_cuda, fa_problem
from .footprint import footprint_bytes
from .reference import allowed_error, inputs, reference
from .validation import FAST_MATH_DIALECTS, validate as refusal
from .vendor import SDPA, VENDOR_LABELS, npu_fusion_attention

from tlbench import bound, pruned
from .records import FLASH_ATTENTION as WORDS
from .problem import FaConfig, FaProblem

FAST_MATH_PASS_CONFIG = "tl.enable_fast_math"  # tilelang's PassConfigKey.TL_ENABLE_FAST_MATH (nvcc --use_fast_math)


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


# ids and labels are history keys: never change them
def problem_id(**sizes) -> str:
    return fa_problem(sizes).problem_id


def config_id(**axes) -> str:
    return fa_config(axes).config_id


def problem_label(**sizes) -> str:
    return WORDS.problem_label(fa_problem(sizes))


def config_label(**axes) -> str:
    return WORDS.stage_point(fa_config(axes)).tile


def loop_trips(**values) -> int | None:
    return WORDS.loop_trips(fa_problem(values), fa_config(values))


def validate(dialect, **values):
    reason = refusal(fa_problem(values), fa_config(values), dialect)
    return pruned(reason) if reason else None


def footprint(dialect, **values) -> dict[str, tuple[int, int]]:
    return footprint_bytes(fa_problem(values), fa_config(values), dialect)


def pass_configs(dialect, fast_math) -> dict[str, bool]:
    return {FAST_MATH_PASS_CONFIG: True} if fast_math and dialect in FAST_MATH_DIALECTS else {}


def flops(**sizes) -> int:
    return fa_problem(sizes).flops


def bytes_moved(**sizes) -> int:
    return fa_problem(sizes).bytes_moved


# tlbench's own files are not followed into the kernel hash: the values the bodies read are named
BODY_VALUES = ["tlbench.suites.flash_attention.problem"]

FA = dict(
    body={"cuda": fa_cuda, "ascend": fa_ascend}, body_modules=BODY_VALUES,
    problem_id=problem_id, config_id=config_id, problem_label=problem_label, config_label=config_label, loop_trips=loop_trips,
    validate=validate, footprint=footprint, pass_configs=pass_configs, flops=flops, bytes_moved=bytes_moved,
    inputs=inputs, reference=reference, check=bound(allowed_error, "2e-3 + 2e-2 |ref| + 2u (P|V|)"),
    vendor={"cuda": SDPA, "ascend": {"npu_fusion_attention": npu_fusion_attention}}, vendor_label=VENDOR_LABELS,
)
