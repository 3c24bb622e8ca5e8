"""What a quick-scope run left for ``--tlbench-scope full``, in the summary.

Contract: ``ScopeCounts.add(sweep, state, items)`` keeps each suite's item count here and in full
(same backends and kinds; no ``best`` case); ``lines(records, compile_rounds, full_rounds, cap_s)``
say, for a quick-scope run only, what ran of how many and how the compile items were cut.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence


@dataclass
class ScopeCounts:
    scope: str = "quick"
    counts: dict[str, tuple[int, int]] = field(default_factory=dict)  # sweep name -> (items here, items in full)

    def add(self, sweep: Any, state: Any, items: int) -> None:
        if self.scope != "quick":
            return
        full = sum(len([c for c in sweep.cases(backend, "full", load_best=lambda *_: None) if c.label is None])
                   + (len(sweep.vendor_cases(backend, "full")) if kind == "device" else 0)
                   for kind in state.options.kinds if kind in sweep.kinds for backend in state.backends())
        self.counts[sweep.name] = (items, full)

    def lines(self, records: Sequence[Mapping[str, object]], compile_rounds: int, full_rounds: int,
              cap_s: float | None) -> list[str]:
        if self.scope != "quick" or not self.counts:
            return []
        here = sum(q for q, _ in self.counts.values())
        full = sum(max(q, f) for q, f in self.counts.values())
        idle = sorted(name for name, (q, f) in self.counts.items() if q == 0 and f > 0)
        fewer = sorted((name, q, f) for name, (q, f) in self.counts.items() if 0 < q < f)
        parts = []
        if idle:
            parts.append(f"{len(idle)} suite{'s that run' if len(idle) != 1 else ' that runs'} nothing here ({', '.join(idle)})")
        if fewer:
            parts.append("larger sweeps of " + ", ".join(f"{name} ({q} -> {f})" for name, q, f in fewer))
        compile_words = [f"{compile_rounds} cold round{'s' if compile_rounds != 1 else ''} per compile item ({full_rounds} in full)"]
        if cap_s is not None:
            capped = sum(1 for r in records if r.get("compile_rounds_capped_s") is not None)
            compile_words.append(f"at most {cap_s:g} CPU seconds of rounds per item (no cap in full; it stopped {capped} here)")
        compile_words.append("lowering only (full also times one cold device build per item where the device compiler is here)")
        left = f"{full - here} more items: " + "; ".join(parts) if full > here else "no further items"
        return [f"quick scope: {here} of the {full} items of --tlbench-scope full; left for full: {left}",
                f"quick scope's compile items: {', '.join(compile_words)}"]
