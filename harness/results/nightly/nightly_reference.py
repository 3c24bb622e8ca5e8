"""What a night's per-backend results are judged against, and what a night without a device sees.

Contract: ``reference_for(path, baseline_dir, history)``: the ``Reference`` of one per-backend
file (the baseline of the same name, else the history's last ``HISTORY_LAST`` runs of the
testbed), else a ``str`` saying why there is none; ``Reference.compare(new_path, thresholds,
keys)`` judges a file against it.  ``visibility_lines(results)``: what a night without a device
item can and cannot see.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Collection

from ..compare.compare import compare_runs
from ..compare.comparison import CompareError, ItemKey, RunComparison
from ..compare.judgement import Thresholds
from .remeasure import restrict
from ..files.store import Results, load_results, parse_results

HISTORY_LAST = 5
BASELINE, HISTORY = "baseline", "history"


@dataclass(frozen=True)
class Reference:
    kind: str  # BASELINE | HISTORY
    path: Path  # the baseline file, or the history database

    @property
    def words(self) -> str:
        if self.kind == BASELINE:
            return f"baseline `{self.path}`"
        return f"history `{self.path}` (per item the best of its last {HISTORY_LAST} runs on this testbed)"

    def compare(self, new_path: Path, thresholds: Thresholds, keys: Collection[ItemKey] | None = None) -> RunComparison:
        """``keys``: judge only these items, on both sides (a re-measurement and its references)."""
        if self.kind == BASELINE:
            base = load_results(self.path)
            if keys is not None:
                base = parse_results(restrict(base.document, keys), str(self.path))
            return compare_runs(base, load_results(new_path), thresholds, accept_missing=keys is not None)
        from ..history.judge import HistoryPolicy, compare_with_history
        from ..history.schema import open_history

        conn = open_history(self.path, create=False)
        try:
            found = compare_with_history(conn, load_results(new_path), HistoryPolicy("best", HISTORY_LAST), thresholds,
                                         source=str(self.path))
        finally:
            conn.close()
        return found.comparison


def _history_holds(history: Path, results: Results) -> str | None:
    """None when the history has runs of ``results``' testbed; else why not."""
    from ..history.judge import testbed_for
    from ..history.schema import open_history

    if not history.exists():
        return f"no history yet at {history}"
    conn = open_history(history, create=False)
    try:
        for backend in results.backends:
            testbed_for(conn, results, backend)
    except CompareError:
        return f"the history {history} holds no run of this testbed yet"
    finally:
        conn.close()
    return None


def reference_for(path: Path, baseline_dir: Path, history: Path | None) -> Reference | str:
    baseline = baseline_dir / path.name
    if baseline.exists():
        return Reference(BASELINE, baseline)
    why = f"no baseline {baseline}"
    if history is None:
        return f"{why} and no --history"
    missing = _history_holds(history, load_results(path))
    return f"{why}, and {missing}" if missing is not None else Reference(HISTORY, history)


def visibility_lines(results: Results) -> list[str]:
    """What a night that ran no device item of these results can and cannot see."""
    if any(r.kind == "device" for r in results.timed):
        return []
    compile_items = [r for r in results.timed if r.kind == "compile"]
    counted = [r for r in compile_items if r.instructions and r.instructions.get("lowering")]
    device_counted = [r for r in counted if r.instructions.get("device_compiler")]
    plans = [r for r in compile_items if r.plan is not None]
    modeled = [r for r in plans
               if (r.plan.get("schedule_model") or {}).get("modeled_cycles_per_core")]
    counters = sorted({str(r.instructions.get("counter")) for r in counted})
    built = any(r.cold_build_once or (r.compile_phases_s or {}).get("build") for r in compile_items)
    return [
        "**What this night can see without a device:** "
        f"compile time of {len(compile_items)} compile item(s) (CPU seconds over a machine probe: judged, but a shared "
        f"runner resolves only large changes); the instructions executed by the cold lowering of {len(counted)} of them "
        f"({', '.join(counters) or 'no counter'}: the compiler's work, which load cannot move)"
        + (f", and by the device compiler for {len(device_counted)}" if device_counted else "")
        + f"; the compiler's plan of {len(plans)} case(s) (pipeline, buffers and versions, threads, instruction use) and "
        f"the modeled schedule of {len(modeled)} (II and cycles: tilelang's model numbers, never times).",
        "**What it cannot see:** how fast any kernel runs on the device, whether it is correct there, the device "
        "runtime and driver; " + ("the device compiler's time is in the cold build only" if built
                                  else "the device compiler's time (no device build ran here)") + ".",
    ]
