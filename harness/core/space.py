"""Search spaces: axes -> configs, pruning with reasons, and the seed's bad-space diagnostics.

Contract: ``Axes(...).configs()`` expands the product of the swept keys in a stable order.
``prune(problem, configs, backend, arch)`` splits them into legal ones and ``Rejection``s,
each with a kind (``divisibility``, ``warp-partition``, ``budget``) and a sentence; nothing
is compiled.  ``diagnose`` summarizes a space before it compiles: how many requested, how
many legal, rejections by kind, and the verdict for the seed's bad spaces (section 5.3):
``all infeasible`` and ``degenerate (one legal config)``.  The third bad space, a swept key
that does not change the kernel, needs the compiler: ``inert_keys`` takes a function that
returns a kernel's generated source and reports keys whose values all lower to identical
code (``probe_pairs`` picks the pairs to lower).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from itertools import product
from typing import Any, Callable, Iterable, Sequence

from harness.core import budget
from harness.core.cases import GemmConfig, GemmProblem

# Every kind of pre-compile rejection; a suite's ``skip_on`` chooses which of them skip.
REJECTION_KINDS = ("divisibility", "warp-partition", "budget")

SWEPT_KEYS = ("block_M", "block_N", "block_K", "threads", "num_stages", "group_m", "stage_output", "enable_offset", "num_cores")


@dataclass(frozen=True)
class Axes:
    block_M: Sequence[int]
    block_N: Sequence[int]
    block_K: Sequence[int]
    num_stages: Sequence[int]
    threads: Sequence[int] = (128,)
    group_m: Sequence[int | None] = (None,)
    stage_output: Sequence[bool] = (False,)
    enable_offset: Sequence[bool] = (False,)
    num_cores: Sequence[int | None] = (None,)

    def swept(self) -> list[str]:
        return [k for k in SWEPT_KEYS if len(getattr(self, k)) > 1]

    def configs(self) -> list[GemmConfig]:
        values = [getattr(self, k) for k in SWEPT_KEYS]
        return [GemmConfig(loop_form="auto", **dict(zip(SWEPT_KEYS, combo))) for combo in product(*values)]


@dataclass(frozen=True)
class Rejection:
    config: GemmConfig
    kind: str
    reason: str


def _divisibility(problem: GemmProblem, config: GemmConfig) -> str | None:
    for dim, block in (("M", config.block_M), ("N", config.block_N), ("K", config.block_K)):
        if getattr(problem, dim) % block:
            return f"{dim}={getattr(problem, dim)} is not a multiple of block_{dim}={block}"
    if config.group_m is not None and (problem.M // config.block_M) % config.group_m:
        return f"group_m={config.group_m} does not divide the {problem.M // config.block_M} tile rows"
    return None


def _warp_partition(config: GemmConfig, arch: str) -> str | None:
    """tilelang's T.gemm warp partition: each warp owns a multiple of 16 rows and 8 columns;
    on Hopper (warp-group MMA) the warps along M come in groups of 4."""
    if config.threads % 32:
        return f"threads={config.threads} is not a whole number of warps"
    warps = config.threads // 32
    group = 4 if arch.startswith("sm_90") else 1
    for m_warps in range(group, warps + 1, group):
        if warps % m_warps:
            continue
        n_warps = warps // m_warps
        if config.block_M % (16 * m_warps) == 0 and config.block_N % (8 * n_warps) == 0:
            return None
    return f"no valid warp partition of {config.block_M}x{config.block_N} over {warps} warps"


def rejection(
    problem: GemmProblem, config: GemmConfig, backend: str, arch: str | None = None, smem_capacity: int | None = None
) -> Rejection | None:
    reason = _divisibility(problem, config)
    if reason:
        return Rejection(config, "divisibility", reason)
    if backend == "nvidia":
        reason = _warp_partition(config, arch or "sm_90a")
        if reason:
            return Rejection(config, "warp-partition", reason)
    verdict = budget.check(problem, config, backend, arch, smem_capacity)
    if not verdict.fits:
        return Rejection(config, "budget", verdict.reason)
    return None


def prune(
    problem: GemmProblem,
    configs: Iterable[GemmConfig],
    backend: str,
    arch: str | None = None,
    smem_capacity: int | None = None,
) -> tuple[list[GemmConfig], list[Rejection]]:
    legal, rejected = [], []
    for config in configs:
        r = rejection(problem, config, backend, arch, smem_capacity)
        (rejected.append(r) if r else legal.append(config))
    return legal, rejected


@dataclass
class SpaceDiagnostics:
    backend: str
    problem_id: str
    requested: int
    legal: int
    rejected_by_kind: dict[str, int]
    examples: dict[str, str]
    verdict: str
    inert_keys: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.rejected_by_kind.items())) or "none"
        line = (
            f"[tlbench] {self.backend} {self.problem_id}: {self.requested} configs requested, {self.legal} legal "
            f"(rejected: {kinds}) -> {self.verdict}"
        )
        if self.inert_keys:
            line += f"; swept keys that do not change the kernel: {', '.join(self.inert_keys)}"
        return line


def diagnose(
    problem: GemmProblem,
    configs: Sequence[GemmConfig],
    backend: str,
    arch: str | None = None,
    smem_capacity: int | None = None,
    reject: Callable[[GemmConfig], Rejection | None] | None = None,
) -> SpaceDiagnostics:
    """``reject`` (a backend's own ``rejection``) replaces the built-in rules when given."""
    if reject is None:
        legal, rejected = prune(problem, configs, backend, arch, smem_capacity)
    else:
        verdicts = [(c, reject(c)) for c in configs]
        legal = [c for c, r in verdicts if r is None]
        rejected = [r for _, r in verdicts if r is not None]
    by_kind: dict[str, int] = {}
    examples: dict[str, str] = {}
    for r in rejected:
        by_kind[r.kind] = by_kind.get(r.kind, 0) + 1
        examples.setdefault(r.kind, f"{r.config.config_id}: {r.reason}")
    if not configs:
        verdict = "empty (no configs requested)"
    elif not legal:
        verdict = "all infeasible: nothing to compile or time"
    elif len(legal) == 1:
        verdict = "degenerate (one legal config): the sweep can rank nothing"
    else:
        verdict = "ok"
    return SpaceDiagnostics(backend, problem.problem_id, len(configs), len(legal), by_kind, examples, verdict)


def probe_pairs(configs: Sequence[GemmConfig]) -> dict[str, list[tuple[GemmConfig, GemmConfig]]]:
    """For each key with several values, pairs of configs that differ only in that key:
    the first config against one config for each other value of the key."""
    pairs: dict[str, list[tuple[GemmConfig, GemmConfig]]] = {}
    if not configs:
        return pairs
    present = set(configs)
    for key in (f.name for f in fields(GemmConfig)):
        values = []
        for c in configs:
            v = getattr(c, key)
            if v not in values:
                values.append(v)
        if len(values) < 2:
            continue
        base = next(iter(configs))
        found = []
        for v in values:
            if v == getattr(base, key):
                continue
            try:
                other = replace(base, **{key: v})
            except ValueError:
                continue
            if other in present:
                found.append((base, other))
        if found:
            pairs[key] = found
    return pairs


def inert_keys(configs: Sequence[GemmConfig], kernel_source: Callable[[GemmConfig], str]) -> list[str]:
    """Keys for which every probed pair lowers to identical generated code."""
    cache: dict[GemmConfig, str] = {}

    def source(config: GemmConfig) -> str:
        if config not in cache:
            cache[config] = kernel_source(config)
        return cache[config]

    inert = []
    for key, pairs in probe_pairs(configs).items():
        if all(source(a) == source(b) for a, b in pairs):
            inert.append(key)
    return inert
