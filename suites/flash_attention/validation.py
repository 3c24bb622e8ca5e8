"""Which flash-attention configs a body refuses, per dialect, with a sentence that says what to change.

Contract: ``validate(problem, config, dialect)`` is the whole verdict (None: it builds);
``dialect_refusal`` the dialect's part; ``hopper_ws_refusal`` the hopper_ws body's rules;
``FAST_MATH_DIALECTS`` the dialects that carry ``fast_math``.  No tilelang, no torch.
"""

from __future__ import annotations

from .problem import WS_BODIES, FaConfig, FaProblem

VREG_FP32_LANES = 64
ASCEND_VECTOR_UNITS = 2


def _tile_divisibility(problem: FaProblem, config: FaConfig) -> str | None:
    if problem.seq_q % config.block_M:
        return f"seq_q={problem.seq_q} is not a multiple of block_M={config.block_M}"
    if problem.seq_k % config.block_N and config.body not in WS_BODIES:  # the ws body masks a partial last key tile
        return f"seq_k={problem.seq_k} is not a multiple of block_N={config.block_N}"
    tiles = problem.batch * problem.heads * (problem.seq_q // config.block_M)
    if config.num_cores is not None and tiles % config.num_cores and config.body not in WS_BODIES:  # the ws body walks any count
        return f"num_cores={config.num_cores} does not divide the {tiles} query tiles"
    return None


def _ascend_vreg(problem: FaProblem, config: FaConfig) -> str | None:
    rows = config.block_M // ASCEND_VECTOR_UNITS
    if rows % VREG_FP32_LANES:
        return (
            f"block_M={config.block_M} gives each of the {ASCEND_VECTOR_UNITS} vector sub-cores {rows} rows; "
            f"T.fill inside SimdVF needs extents divisible by the {VREG_FP32_LANES}-lane VReg: use block_M >= 128"
        )
    if config.block_N % VREG_FP32_LANES or problem.dim % VREG_FP32_LANES:
        return f"block_N={config.block_N} and dim={problem.dim} must be multiples of the {VREG_FP32_LANES}-lane VReg (SIMD exp)"
    return None


FAST_MATH_DIALECTS = ("cuda",)  # the dialects whose backend carries fast_math into the compile


def dialect_refusal(problem: FaProblem, config: FaConfig, dialect: str) -> str | None:
    if config.fast_math and dialect not in FAST_MATH_DIALECTS:
        return (f"fast_math=True is an NVIDIA build choice (tilelang's tl.enable_fast_math -> nvcc --use_fast_math); "
                f"the {dialect} backend does not pass it to its compiler, so it would build the fast_math=False kernel "
                f"under another id: use fast_math=False")
    if dialect == "ascend":
        if config.body != "shared":
            return f"body={config.body!r} is NVIDIA's target-specific kernel; Ascend runs body='shared'"
        return _ascend_vreg(problem, config)
    return None


def validate(problem: FaProblem, config: FaConfig, dialect: str) -> str | None:
    reason = _tile_divisibility(problem, config)
    if reason:
        return reason
    if problem.causal and config.body == "hopper":
        return "the hopper body has no causal mask; causal runs on body='shared'"
    if config.body in WS_BODIES:
        reason = hopper_ws_refusal(problem, config)
        if reason:
            return reason
    return dialect_refusal(problem, config, dialect)


WS_CONSUMER_THREADS, WS_PRODUCER_THREADS = 256, 128


def hopper_ws_refusal(problem: FaProblem, config: FaConfig) -> str | None:
    """Why the explicitly warp-specialized body (hopper_ws.py) cannot take
    (problem, config); None when it can."""
    if config.threads != WS_CONSUMER_THREADS + WS_PRODUCER_THREADS:
        return f"the {config.body} body runs 2 consumer + 1 producer warp groups: threads must be 384, got {config.threads}"
    if config.block_M != 128:
        return f"the {config.body} body splits block_M over two consumer warp groups of 64 rows: block_M must be 128, got {config.block_M}"
    if config.loop_form != "auto":
        return f"the {config.body} body writes its own schedule: loop_form='auto' only"
    if config.num_cores is not None and (problem.causal or config.num_cores < 1):
        return (f"the {config.body} body walks query tiles with num_cores >= 1 blocks on non-causal problems only "
                f"(a causal tile's key count varies): got num_cores={config.num_cores}, causal={problem.causal}")
    if (config.num_stages or 0) < 2:
        return f"the {config.body} body double-buffers K and V at least: num_stages >= 2, got {config.num_stages}"
    if problem.seq_q % config.block_M:
        return f"seq_q={problem.seq_q} is not a multiple of block_M={config.block_M}"
    if problem.seq_k // config.block_N < 2:
        return f"the {config.body} body needs at least two key tiles: seq_k={problem.seq_k}, block_N={config.block_N}"
    return None
