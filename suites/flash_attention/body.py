"""The flash-attention forward body, written once for every target.

Contract: ``build_flash_attention(problem, config, dialect)`` returns a TileLang ``PrimFunc``
``main(Q, K, V, O)`` over ``FaProblem``'s flattened layout: one block per query tile on a 1-D
grid, or ``num_cores`` blocks walking them (``T.Persistent``).  The KV loop is the same text for
NVIDIA and Ascend, in three loop forms; causal: the loop stops at the diagonal and S is masked.

Both GEMMs ask for ``T.GemmWarpPolicy.FullRow``: each CUDA warp group owns whole rows of S, so
the softmax row reductions stay inside it (the default policy fails layout inference at 256
threads); the Ascend Cube ignores it.  A ``FaDialect`` supplies what must differ (ARCHITECTURE.md,
"Flash attention: one body, two targets").
"""

# No `from __future__ import annotations`: TileLang evaluates the PrimFunc parameter
# annotations (T.Tensor((rows, D), dtype)) against this closure.
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, ContextManager

from .problem import FaConfig, FaProblem


@dataclass(frozen=True)
class FaDialect:
    """Target-specific pieces of the one flash-attention body."""

    name: str
    lang: ModuleType
    alloc_operand: Callable[..., Any]  # Q, K, V tiles: shared memory / L1
    alloc_p_operand: Callable[..., Any]  # P as the A operand of O_tile = P V: fragment / L1
    alloc_accum: Callable[..., Any]  # GEMM accumulators: fragment / L0C
    alloc_vector: Callable[..., Any]  # softmax and output state: fragment / UB
    vector_units: int  # vector units sharing a tile's rows (Ascend: two AIV sub-cores)
    kernel_takes_threads: bool
    vector_reads_accumulator: bool  # True: softmax runs on the accumulator fragment itself
    v_transposed: bool  # True: the V tile is (D, block_N) and the PV GEMM is NT
    move: Callable[..., Any]  # macro (src, dst): accumulator -> vector, vector -> operand
    load_v: Callable[..., Any]  # macro (V, row, V_tile)
    vector_region: Callable[[], ContextManager]  # wraps plain vector arithmetic
    exp_diff: Callable[..., Any]  # macro (a, b, out, scale): out = exp(scale * (a - b)), per row
    exp_rows: Callable[..., Any]  # macro (S, m, scale): S = exp(scale * (S - m[row]))
    store_output: Callable[..., Any]  # macro (O_vec, O, row): O[row : row + block_M] = O_vec
    pin_versions: Callable[..., Any]  # macro (S_vec, num_stages): buffer-version pins, if any
    launch: Callable[..., ContextManager]  # (grid, kwargs, vector_id) -> frame yielding (block, vector unit id)
    mask_region: Callable[[], ContextManager]  # wraps the causal compare-and-select (SimtVF / none)

    def kernel_kwargs(self, config: FaConfig) -> dict[str, int]:
        return {"threads": config.threads} if self.kernel_takes_threads else {}


def validate(problem: FaProblem, config: FaConfig) -> None:
    """The body handles no partial tiles; raise with what to change."""
    if problem.seq_q % config.block_M:
        raise ValueError(f"seq_q={problem.seq_q} is not a multiple of block_M={config.block_M}: this body handles no partial tiles")
    if problem.seq_k % config.block_N:
        raise ValueError(f"seq_k={problem.seq_k} is not a multiple of block_N={config.block_N}: this body handles no partial tiles")
    tiles = problem.batch * problem.heads * (problem.seq_q // config.block_M)
    if config.num_cores is not None and (config.num_cores < 1 or tiles % config.num_cores):
        raise ValueError(f"num_cores={config.num_cores} must divide the {tiles} query tiles evenly")


def _kv_loop_statements(func) -> list:
    """The statements ``T.Pipelined`` schedules in the KV loop (replayable ``Bind``s excluded)."""
    from tvm import tirx

    found: list = []

    def visit(node):
        if not found and isinstance(node, tirx.For) and "num_stages" in (node.annotations or {}):
            body = node.body
            while not isinstance(body, tirx.SeqStmt) and hasattr(body, "body"):
                body = body.body
            seq = body.seq if isinstance(body, tirx.SeqStmt) else [body]
            found.extend(stmt for stmt in seq if not isinstance(stmt, tirx.Bind))

    tirx.stmt_functor.post_order_visit(func.body, visit)
    return found


def _is_global_load(stmt) -> bool:
    from tvm import tirx

    if not (isinstance(stmt, tirx.Evaluate) and isinstance(stmt.value, tirx.Call)):
        return False
    call = stmt.value
    if "copy" not in getattr(call.op, "name", "") or not call.args:
        return False
    src = call.args[0]
    if isinstance(src, tirx.Call) and src.args and isinstance(src.args[0], tirx.BufferLoad):
        return src.args[0].buffer.scope() == "global"
    return False


def manual_schedule(problem: FaProblem, config: FaConfig, dialect: FaDialect) -> tuple[list[int], list[int]]:
    """(stage, order) for ``manual``: the K and V loads one iteration ahead (stage 0), every other
    statement of the body as this dialect builds it in stage 1, in source order."""
    from dataclasses import replace

    probe = build_flash_attention(problem, replace(config, loop_form="auto", num_stages=2), dialect)
    statements = _kv_loop_statements(probe)
    if not statements:
        raise RuntimeError("the flash-attention body has no pipelined KV loop to schedule by hand")
    stage = [0 if _is_global_load(stmt) else 1 for stmt in statements]
    return stage, list(range(len(statements)))


def build(problem: FaProblem, config: FaConfig, dialect: FaDialect):
    """The one entry point: the body for any loop form (``manual`` reads its schedule first)."""
    manual = manual_schedule(problem, config, dialect) if config.loop_form == "manual" else None
    return build_flash_attention(problem, config, dialect, manual)


def build_flash_attention(problem: FaProblem, config: FaConfig, dialect: FaDialect, manual: tuple[list[int], list[int]] | None = None):
    """``manual`` (stage, order) is required for ``loop_form='manual'``; see ``manual_schedule``."""
    validate(problem, config)
    T = dialect.lang
    D, BM, BN = problem.dim, config.block_M, config.block_N
    dtype, accum, out_dtype = problem.dtype, problem.accum_dtype, problem.output_dtype
    rows = BM // dialect.vector_units  # query rows each vector unit owns
    m_tiles = problem.seq_q // BM
    kv_tiles = problem.seq_k // BN
    heads, group, seq_q, seq_k = problem.heads, problem.group_size, problem.seq_q, problem.seq_k
    num_tiles = problem.batch * heads * m_tiles
    q_rows = problem.batch * heads * seq_q
    kv_rows = problem.batch * problem.num_kv_heads * seq_k
    scale = problem.sm_scale
    loop_form, num_stages = config.loop_form, config.num_stages
    loop_annotations = {"enable_offset": True} if config.enable_offset else None
    if loop_form == "manual" and manual is None:
        raise ValueError("loop_form='manual' needs the (stage, order) lists: build through manual_schedule()")
    stage, order = manual if manual is not None else (None, None)
    persistent = config.num_cores is not None
    grid = config.num_cores if persistent else num_tiles
    launch = dialect.kernel_kwargs(config)
    split = not dialect.vector_reads_accumulator
    v_shape = (D, BN) if dialect.v_transposed else (BN, D)
    alloc_operand, alloc_p_operand = dialect.alloc_operand, dialect.alloc_p_operand
    alloc_accum, alloc_vector = dialect.alloc_accum, dialect.alloc_vector
    move, load_v, vector_region = dialect.move, dialect.load_v, dialect.vector_region
    exp_diff, exp_rows, store_output, pin_versions = dialect.exp_diff, dialect.exp_rows, dialect.store_output, dialect.pin_versions
    v_t = dialect.v_transposed
    causal = problem.causal
    full_row = T.GemmWarpPolicy.FullRow  # each warp group owns whole rows: the softmax's row reductions stay inside it
    launch_frame, mask_region = dialect.launch, dialect.mask_region

    def q_row(tile):
        return tile * BM  # (b, h, query tile) in row-major order

    def kv_trips(tile):
        """Causal: only the key tiles at or left of the diagonal (query i sees keys j <= i)."""
        return T.ceildiv((tile % m_tiles + 1) * BM, BN) if causal else kv_tiles

    def kv_loop(tile):
        """The KV loop in the config's form: the seed's three."""
        if loop_form == "auto":
            return T.Pipelined(kv_trips(tile), num_stages=num_stages, annotations=loop_annotations)
        if loop_form == "manual":
            return T.Pipelined(kv_trips(tile), stage=stage, order=order, annotations=loop_annotations)
        return T.serial(kv_trips(tile))

    def kv_row(tile):
        bh = tile // m_tiles
        return (bh // heads * problem.num_kv_heads + bh % heads // group) * seq_k

    @T.macro
    def online_softmax(S_vec, P_vec, m, m_prev, alpha, l, l_tile):
        with vector_region():
            T.copy(m, m_prev)
            T.reduce_max(S_vec, m, dim=1, clear=False)  # m = max(m_prev, rowmax S)
        exp_diff(m_prev, m, alpha, scale)  # alpha = exp(scale (m_prev - m))
        exp_rows(S_vec, m, scale)  # P = exp(scale (S - m))
        with vector_region():
            T.reduce_sum(S_vec, l_tile, dim=1)
            for i in T.Parallel(rows):
                l[i] = l[i] * alpha[i] + l_tile[i]
            T.copy(S_vec, P_vec)  # fp32 -> the input dtype for the second GEMM

    @T.macro
    def kv_step(K, V, Q_tile, K_tile, V_tile, S_acc, S_vec, P_vec, P_op, O_acc, O_part, O_vec, m, m_prev, alpha, l, l_tile, row, k, q_first):
        T.copy(K[row + k * BN, 0], K_tile)
        load_v(V, row + k * BN, V_tile)
        T.gemm(Q_tile, K_tile, S_acc, transpose_B=True, clear_accum=True, policy=full_row)
        if split:
            move(S_acc, S_vec)
        if causal:
            with mask_region():
                for i, j in T.Parallel(rows, BN):
                    S_vec[i, j] = T.if_then_else(q_first + i >= k * BN + j, S_vec[i, j], -T.infinity(accum))
        online_softmax(S_vec, P_vec, m, m_prev, alpha, l, l_tile)
        if split:
            move(P_vec, P_op)
        T.gemm(P_op, V_tile, O_acc, transpose_B=v_t, clear_accum=True, policy=full_row)
        if split:
            move(O_acc, O_part)
        with vector_region():
            for i, j in T.Parallel(rows, D):
                O_vec[i, j] = O_vec[i, j] * alpha[i] + O_part[i, j]

    @T.macro
    def attend(Q, K, V, O, Q_tile, K_tile, V_tile, S_acc, S_vec, P_vec, P_op, O_acc, O_part, O_vec, m, m_prev, alpha, l, l_tile, tile, unit):
        T.copy(Q[q_row(tile), 0], Q_tile)
        with vector_region():
            T.fill(O_vec, 0)
            T.fill(l, 0)
            T.fill(m, -T.infinity(accum))
        for k in kv_loop(tile):
            kv_step(K, V, Q_tile, K_tile, V_tile, S_acc, S_vec, P_vec, P_op, O_acc, O_part, O_vec, m, m_prev, alpha, l, l_tile, kv_row(tile), k, tile % m_tiles * BM + unit * rows)
        with vector_region():
            for i, j in T.Parallel(rows, D):
                O_vec[i, j] = O_vec[i, j] / l[i]
        store_output(O_vec, O, q_row(tile))

    @T.prim_func
    def main(Q: T.Tensor((q_rows, D), dtype), K: T.Tensor((kv_rows, D), dtype),
             V: T.Tensor((kv_rows, D), dtype), O: T.Tensor((q_rows, D), out_dtype)):
        with launch_frame(grid, launch, causal) as (bx, unit):
            Q_tile = alloc_operand((BM, D), dtype)
            K_tile = alloc_operand((BN, D), dtype)
            V_tile = alloc_operand(v_shape, dtype)
            S_acc = alloc_accum((BM, BN), accum)
            O_acc = alloc_accum((BM, D), accum)
            P_op = alloc_p_operand((BM, BN), dtype)
            S_vec = alloc_vector((rows, BN), accum) if split else S_acc
            P_vec = alloc_vector((rows, BN), dtype) if split else P_op
            O_part = alloc_vector((rows, D), accum) if split else O_acc
            O_vec = alloc_vector((rows, D), accum)
            m = alloc_vector((rows,), accum)
            m_prev = alloc_vector((rows,), accum)
            alpha = alloc_vector((rows,), accum)
            l = alloc_vector((rows,), accum)
            l_tile = alloc_vector((rows,), accum)
            pin_versions(S_vec, num_stages)
            if persistent:
                for tile in T.Persistent([num_tiles], grid, bx):
                    attend(Q, K, V, O, Q_tile, K_tile, V_tile, S_acc, S_vec, P_vec, P_op, O_acc, O_part, O_vec, m, m_prev, alpha, l, l_tile, tile, unit)
            else:
                attend(Q, K, V, O, Q_tile, K_tile, V_tile, S_acc, S_vec, P_vec, P_op, O_acc, O_part, O_vec, m, m_prev, alpha, l, l_tile, bx, unit)

    return main
