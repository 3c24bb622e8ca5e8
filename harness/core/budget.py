"""On-chip footprint of a GEMM config per memory scope, checked before anything compiles.

Contract: ``footprint(problem, config, memory)`` returns one ``ScopeUse`` per scope of the
memory model; ``check(...)`` turns it into a ``BudgetVerdict`` whose ``reason`` names the
scope, the bytes needed and the capacity, e.g.
``shared.dyn needs 262144 B, limit 232448 B``.  A config over budget is skipped with that
reason instead of being compiled.  Capacities are the ones tilelang 0.1.15 uses (see
shared/notes/tilelang-0.1.15.md); nothing here imports a backend.

Why this exists on top of the compiler: on NVIDIA, shared memory over the limit is caught by
neither lowering, nvcc nor ptxas (only the launch fails), and on Ascend an L0C accumulator
over 256 KiB lowers without error; the Z3 scheduler only checks scopes holding a
multi-buffer candidate.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.core.cases import DTYPE_BYTES, GemmConfig, GemmProblem

KiB = 1024

# Maximum dynamic shared memory per block (opt-in), by CUDA arch.
NVIDIA_SMEM_PER_BLOCK = {
    "sm_80": 163 * KiB,
    "sm_86": 99 * KiB,
    "sm_89": 99 * KiB,
    "sm_90": 227 * KiB,
    "sm_90a": 227 * KiB,
    "sm_100": 227 * KiB,
    "sm_100a": 227 * KiB,
    "sm_120": 99 * KiB,
}

# Capacities tilelang's Ascend scheduler uses (Ascend 950, dav-3510).
ASCEND_CAPACITY = {
    "shared.l1": 512 * KiB,
    "shared.l0a": 64 * KiB,
    "shared.l0b": 64 * KiB,
    "shared.l0c": 256 * KiB,
    "shared.ub": 248 * KiB,
}
ASCEND_UB_WITH_SIMT = 216 * KiB


@dataclass(frozen=True)
class ScopeUse:
    scope: str
    needed: int  # bytes at the requested pipeline depth
    minimum: int  # bytes with one version of every buffer
    capacity: int
    enforced_on: str  # "needed": the requested depth must fit; "minimum": one version must

    @property
    def over(self) -> bool:
        used = self.needed if self.enforced_on == "needed" else self.minimum
        return used > self.capacity

    def describe(self) -> str:
        used = self.needed if self.enforced_on == "needed" else self.minimum
        return f"{self.scope} needs {used} B, limit {self.capacity} B"


@dataclass(frozen=True)
class BudgetVerdict:
    uses: tuple[ScopeUse, ...]

    @property
    def fits(self) -> bool:
        return not any(u.over for u in self.uses)

    @property
    def reason(self) -> str:
        return "; ".join(u.describe() for u in self.uses if u.over)

    def to_dict(self) -> dict:
        return {
            "fits": self.fits,
            "scopes": {
                u.scope: {"needed": u.needed, "minimum": u.minimum, "capacity": u.capacity, "enforced_on": u.enforced_on}
                for u in self.uses
            },
        }


def _operand_tile_bytes(problem: GemmProblem, config: GemmConfig) -> int:
    elem = DTYPE_BYTES[problem.dtype]
    return (config.block_M + config.block_N) * config.block_K * elem


def nvidia_footprint(problem: GemmProblem, config: GemmConfig, arch: str, capacity: int | None = None) -> tuple[ScopeUse, ...]:
    """Shared memory: A and B tiles, one copy per pipeline version (``use - def + 1``).

    A staged output tile lives after the K loop: with one tile per block, tilelang's
    shared-memory merging reuses the operand buffers for it, so the block needs the larger
    of the two; in a persistent kernel the next tile's K loop follows, both are live and
    the block needs their sum (both measured, see tests/test_budget.py).
    """
    if arch not in NVIDIA_SMEM_PER_BLOCK:
        raise ValueError(f"unknown CUDA arch {arch!r}; known: {', '.join(sorted(NVIDIA_SMEM_PER_BLOCK))}")
    per_version = _operand_tile_bytes(problem, config)
    staging = config.block_M * config.block_N * DTYPE_BYTES[problem.output_dtype] if config.stage_output else 0
    combine = (lambda a, b: a + b) if config.num_cores is not None else max
    return (
        ScopeUse(
            scope="shared.dyn",
            needed=combine(per_version * config.pipeline_depth, staging),
            minimum=combine(per_version, staging),
            capacity=capacity if capacity is not None else NVIDIA_SMEM_PER_BLOCK[arch],
            enforced_on="needed",
        ),
    )


def ascend_footprint(problem: GemmProblem, config: GemmConfig) -> tuple[ScopeUse, ...]:
    """L1 operand tiles (Z3 may pick fewer versions than asked, so one version must fit),
    the L0C accumulator (no versions; tilelang does not check it), and for a fused
    epilogue the UB half-tile each of the two vector cores receives."""
    l1_per_version = _operand_tile_bytes(problem, config)
    l0c = config.block_M * config.block_N * DTYPE_BYTES[problem.accum_dtype]
    uses = [
        ScopeUse("shared.l1", l1_per_version * config.pipeline_depth, l1_per_version, ASCEND_CAPACITY["shared.l1"], "minimum"),
        ScopeUse("shared.l0c", l0c, l0c, ASCEND_CAPACITY["shared.l0c"], "minimum"),
    ]
    if problem.epilogue is not None:
        ub = (config.block_M // 2) * config.block_N * DTYPE_BYTES[problem.accum_dtype]
        uses.append(ScopeUse("shared.ub", ub, ub, ASCEND_UB_WITH_SIMT, "minimum"))
    return tuple(uses)


def check(
    problem: GemmProblem, config: GemmConfig, backend: str, arch: str | None = None, capacity: int | None = None
) -> BudgetVerdict:
    """``capacity`` overrides the shared-memory limit (NVIDIA), e.g. a conservative 228 KiB."""
    if backend == "nvidia":
        return BudgetVerdict(nvidia_footprint(problem, config, arch or "sm_90a", capacity))
    if backend == "ascend":
        return BudgetVerdict(ascend_footprint(problem, config))
    return BudgetVerdict(())
