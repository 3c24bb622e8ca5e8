"""Results in other tools' formats: github-action-benchmark's custom JSON.

Contract: ``github_action_benchmark(results)``: an ``ActionExport`` of ``bigger`` (TFLOP/s per
timed device item) and ``smaller`` (median time per timed item) entries, named uniquely
(``<suite>/<kind>-<backend>-<case id>``; the action pairs by name), ``range`` the median's ~95 %
CI half-width.  ``left_out(results)``: what a partial run lacks.
``write_github_action_benchmark(export, out_dir) -> (written, not_written)``: non-empty lists only.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from ...core.stats import summarize
from ..report.roofline import format_pct
from ..files.record_fields import Record
from ..files.store import Results

BIGGER_FILE, SMALLER_FILE = "tflops-bigger-is-better.json", "time-smaller-is-better.json"
BIGGER_TOOL, SMALLER_TOOL = "customBiggerIsBetter", "customSmallerIsBetter"


@dataclass(frozen=True)
class ActionEntry:
    """One entry of the action's custom JSON (written in this field order)."""

    name: str
    unit: str
    value: float
    range: str
    extra: str


@dataclass(frozen=True)
class ActionExport:
    bigger: tuple[ActionEntry, ...]
    smaller: tuple[ActionEntry, ...]


def _placement(rec: Record) -> str:
    parts = [f"shard {rec.shard}"] if rec.shard is not None else []
    if rec.device_uuid:
        parts.append(f"gpu {str(rec.device_uuid).removeprefix('GPU-')[:8]}")
    return ", ".join(parts)


def _names(records: list[Record]) -> list[str]:
    """One unique name per record: the item's, plus its placement where the item has several
    copies, plus an ordinal where a copy repeats."""
    base = [f"{r.suite}/{r.kind}-{r.backend}-{r.case_id}" for r in records]
    counts = Counter(base)
    placed = [f"{b} [{_placement(r)}]" if counts[b] > 1 and _placement(r) else b for b, r in zip(base, records)]
    seen: Counter = Counter()
    repeated = Counter(placed)
    out = []
    for name in placed:
        seen[name] += 1
        out.append(f"{name} [#{seen[name]}]" if repeated[name] > 1 else name)
    return out


def _entry(rec: Record, name: str, value: float, unit: str, half_width: float) -> ActionEntry:
    extra = [f"median of {len(rec.samples_s)} samples", str(rec.method or ""), format_pct(rec.raw)]
    return ActionEntry(name, unit, value, f"± {half_width:.4g}", "; ".join(e for e in extra if e))


def github_action_benchmark(results: Results) -> ActionExport:
    bigger, smaller = [], []
    records = list(results.timed)
    for rec, name in zip(records, _names(records)):
        summary = summarize(rec.samples_s)
        half = (summary.median_ci_high - summary.median_ci_low) / 2
        scale, unit = (1e3, "ms") if rec.kind == "device" else (1.0, "s")
        smaller.append(_entry(rec, name, summary.median * scale, unit, half * scale))
        tflops = rec.throughput.get("tflops")
        if rec.kind == "device" and tflops and summary.median > 0:
            # TFLOP/s at the CI's ends, for the range
            flop_tera = tflops * summary.median
            lo = flop_tera / summary.median_ci_high if summary.median_ci_high > 0 else tflops
            hi = flop_tera / summary.median_ci_low if summary.median_ci_low > 0 else tflops
            bigger.append(_entry(rec, name, tflops, "TFLOP/s", (hi - lo) / 2))
    return ActionExport(tuple(bigger), tuple(smaller))


def left_out(results: Results) -> list[str]:
    """What the run does not hold that a complete run would: its partial marker, its failed items."""
    out = []
    partial = (results.document.get("tlbench") or {}).get("partial")
    if partial:
        missing = partial.get("missing") or []
        out.append("a PARTIAL run" + (f" ({len(missing)} collected items missing)" if missing else " (the run did not finish)"))
    if results.failures:
        shown = ", ".join(r.case_id for r in results.failures[:3]) + (" ..." if len(results.failures) > 3 else "")
        out.append(f"{len(results.failures)} failed item(s) ({shown})")
    return out


def write_github_action_benchmark(export: ActionExport, out_dir: str | Path) -> tuple[list[tuple[Path, str, int]], list[str]]:
    out = Path(out_dir)
    written: list[tuple[Path, str, int]] = []
    not_written: list[str] = []
    for name, tool, what, entries in ((BIGGER_FILE, BIGGER_TOOL, "no timed device item with TFLOP/s", export.bigger),
                                      (SMALLER_FILE, SMALLER_TOOL, "no timed item", export.smaller)):
        path = out / name
        if not entries:
            stale = f"; an older {path} is there from an earlier export and is NOT this run's: delete it" if path.exists() else ""
            not_written.append(f"not written: {path} ({tool}): {what} in this run, and the action rejects an empty list "
                               f"(\"No benchmark result was found\"); leave that step out for such runs{stale}")
            continue
        out.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps([asdict(e) for e in entries], indent=1, allow_nan=False) + "\n", encoding="utf-8")
        written.append((path, tool, len(entries)))
    return written, not_written
