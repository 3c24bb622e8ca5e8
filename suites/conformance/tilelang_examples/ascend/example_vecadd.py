"""Pipelined fp32 vector add on Ascend, by SIMT threads or SIMD registers: after tilelang examples/ascend/example_vecadd.py.

Our own code with that file's public function (``vector_add(N, mode)``).  64 cores walk the
vector in rounds; in each round a core copies one 8192-value tile of A and of B into UB,
adds them in a vector function (SIMT: 2048 threads over the tile; SIMD: 64-lane registers),
and copies the sum out.  The UB tiles keep two versions, so a round's copies overlap the
previous round's add.
"""

import tilelang.ascend.language as T

CORES = 64
TILE = 8192  # values a core handles per round
STAGES = 2
SIMT_THREADS = 2048
LANES = 64  # fp32 values in one SIMD register


def vector_add(N, mode="simt"):
    """The PrimFunc ``C = A + B`` over N fp32 values (N a multiple of CORES * TILE)."""
    if mode not in ("simt", "simd"):
        raise ValueError(f"mode must be 'simt' or 'simd', not {mode!r}")
    per_round = CORES * TILE
    if N <= 0 or N % per_round:
        raise ValueError(f"N must be a positive multiple of {per_round}, not {N}")
    rounds = N // per_round

    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"), C: T.Tensor((N,), "float32")):
        with T.Kernel(CORES) as core:
            x_ub = T.alloc_shared((TILE,), "float32")
            y_ub = T.alloc_shared((TILE,), "float32")
            sum_ub = T.alloc_shared((TILE,), "float32")
            T.annotate_buffer_versions({x_ub: STAGES, y_ub: STAGES, sum_ub: STAGES})
            for rnd in T.Pipelined(rounds, num_stages=STAGES):
                start = (rnd * CORES + core) * TILE
                T.copy(A[start : start + TILE], x_ub)
                T.copy(B[start : start + TILE], y_ub)
                if mode == "simd":
                    with T.SimdVF():
                        every_lane = T.simd.pset(32)
                        for v in range(TILE // LANES):
                            x_reg = T.simd.vld(x_ub[v * LANES])
                            y_reg = T.simd.vld(y_ub[v * LANES])
                            s_reg = T.simd.vadd(x_reg, y_reg, every_lane)
                            T.simd.vsts(sum_ub[v * LANES], s_reg, every_lane)
                else:
                    with T.SimtVF(threads=SIMT_THREADS):
                        for i in T.Parallel(TILE):
                            sum_ub[i] = x_ub[i] + y_ub[i]
                T.copy(sum_ub, C[start : start + TILE])

    return main
