"""Search spaces: pruning with reasons, and the seed's bad-space diagnostics.

Contract: ``reject(case, scopes, dialect, rules)``: the first of the family's validation, the
backend's rules and the on-chip budget that objects, as a ``Rejection``.  ``diagnose`` counts a
space's configs and rejections with a verdict; ``inert_keys`` finds swept keys that change nothing.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, fields, replace
from typing import Any, Callable, Sequence

from . import budget

# Every kind of pre-compile rejection; a suite's ``skip_on`` chooses which of them skip,
# except those in ``ALWAYS_SKIP`` (an over-budget kernel only fails at launch; a config the
# suite calls invalid, or a dialect with no body, has nothing to build).
REJECTION_KINDS = ("divisibility", "invalid", "no body", "warp-partition", "budget")
ALWAYS_SKIP = ("budget", "invalid", "no body")


class Refusal(str):
    """A family's reason for refusing a config, with its kind: ``divisibility`` (the default, as for a plain
    ``str``), ``invalid`` (the suite's ``validate``) or ``no body`` (none for that dialect)."""

    kind: str = "divisibility"

    def __new__(cls, reason: str, kind: str = "divisibility") -> "Refusal":
        made = super().__new__(cls, reason)
        made.kind = kind
        return made


def skip_words(kind: str, reason: str, backend: str) -> str:
    """How a skipped item says why it was rejected."""
    if kind == "no body":
        return f"no body for {backend}: {reason}"
    return f"invalid: {reason}" if kind == "invalid" else f"pruned ({kind}): {reason}"


Rule = tuple[str, Callable[[Any], "str | None"]]  # (kind, case -> reason or None)


@dataclass(frozen=True)
class Rejection:
    config: Any
    kind: str
    reason: str


def reject(case: Any, scopes: Sequence[budget.Scope], dialect: str, rules: Sequence[Rule] = ()) -> Rejection | None:
    reason = case.problem.family.validate(case.problem, case.config, dialect)
    if reason:
        return Rejection(case.config, getattr(reason, "kind", "divisibility"), str(reason))
    for kind, rule in rules:
        reason = rule(case)
        if reason:
            return Rejection(case.config, kind, reason)
    verdict = budget.check(case, scopes, dialect)
    if not verdict.fits:
        return Rejection(case.config, "budget", verdict.reason)
    return None


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

    def summary(self) -> str:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(self.rejected_by_kind.items())) or "none"
        line = (f"[tlbench] {self.backend} {self.problem_id}: {self.requested} configs requested, {self.legal} legal "
                f"(rejected: {kinds}) -> {self.verdict}")
        if self.inert_keys:
            line += f"; swept keys that do not change the kernel: {', '.join(self.inert_keys)}"
        return line


def prune(configs: Sequence[Any], reject_config: Callable[[Any], Rejection | None]) -> tuple[list[Any], list[Rejection]]:
    """Split configs into legal ones and ``Rejection``s by ``reject_config``."""
    legal, rejected = [], []
    for config in configs:
        r = reject_config(config)
        (rejected.append(r) if r else legal.append(config))
    return legal, rejected


def diagnose(
    problem: Any, configs: Sequence[Any], backend: str, reject: Callable[[Any], Rejection | None]
) -> SpaceDiagnostics:
    """``reject`` is the backend's own rejection of one config of ``problem``."""
    legal, rejected = prune(configs, reject)
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


def probe_pairs(configs: Sequence[Any]) -> dict[str, list[tuple[Any, Any]]]:
    """Per key with several values, pairs differing only in that key: the first config against one config for each
    other value."""
    pairs: dict[str, list[tuple[Any, Any]]] = {}
    if not configs:
        return pairs
    present = set(configs)
    base = next(iter(configs))
    for key in _keys(base):
        found = []
        for v in dict.fromkeys(_value(c, key) for c in configs):
            if v == _value(base, key):
                continue
            try:
                other = base.with_value(key, v) if hasattr(base, "with_value") else replace(base, **{key: v})
            except ValueError:
                continue
            if other in present:
                found.append((base, other))
        if found:
            pairs[key] = found
    return pairs


def _keys(config: Any) -> list[str]:
    """A config's swept keys: a described config's axes (``values``), else its dataclass fields."""
    values = getattr(config, "values", None)
    return list(values) if hasattr(config, "with_value") and isinstance(values, dict) else [f.name for f in fields(config)]


def _value(config: Any, key: str) -> Any:
    values = getattr(config, "values", None)
    return values.get(key) if hasattr(config, "with_value") and isinstance(values, dict) else getattr(config, key)


def inert_keys(configs: Sequence[Any], kernel_source: Callable[[Any], str]) -> list[str]:
    """Keys for which every probed pair lowers to identical generated code."""
    source = functools.cache(kernel_source)  # each config lowered once
    return [key for key, pairs in probe_pairs(configs).items() if all(source(a) == source(b) for a, b in pairs)]
