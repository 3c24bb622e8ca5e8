"""Results in other tools' formats: github-action-benchmark's custom JSON.

Contract: ``github_action_benchmark(results)`` returns two lists for
benchmark-action/github-action-benchmark:
- ``bigger`` (its ``tool: customBiggerIsBetter``): one entry per timed device item with
  throughput, ``value`` = TFLOP/s at the median, ``unit`` "TFLOP/s";
- ``smaller`` (``tool: customSmallerIsBetter``): one entry per timed item (device and
  compile), ``value`` = median time, ``unit`` "ms" for device time and "s" for compile time.
Each entry is ``{"name", "unit", "value", "range", "extra"}``: ``name`` is
``<suite>/<kind>-<backend>-<case id>`` (unique per item of a run), ``range`` the median's
~95 % CI half-width in the same unit, ``extra`` the sample count, the method, and % of peak
when the record has it.  The pytest extractor of that action keeps only ``stats.ops``,
which is why these files exist.  Pure; ``write_github_action_benchmark`` writes both files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tlbench.harness.core.stats import summarize
from tlbench.harness.results.roofline import format_pct
from tlbench.harness.results.store import Results, suite_of

BIGGER_FILE, SMALLER_FILE = "tflops-bigger-is-better.json", "time-smaller-is-better.json"


def _entry(rec: dict[str, Any], value: float, unit: str, half_width: float) -> dict[str, Any]:
    summary = summarize(rec["samples_s"])
    extra = [f"median of {summary.n} samples", str(rec.get("method") or "")]
    pct = format_pct(rec)
    if pct:
        extra.append(pct)
    return {
        "name": f"{suite_of(rec)}/{rec['kind']}-{rec['backend']}-{rec['case_id']}",
        "unit": unit,
        "value": value,
        "range": f"± {half_width:.4g}",
        "extra": "; ".join(e for e in extra if e),
    }


def github_action_benchmark(results: Results) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    bigger, smaller = [], []
    for rec in results.records:
        summary = summarize(rec["samples_s"])
        half = (summary.median_ci_high - summary.median_ci_low) / 2
        scale, unit = (1e3, "ms") if rec["kind"] == "device" else (1.0, "s")
        smaller.append(_entry(rec, summary.median * scale, unit, half * scale))
        tflops = (rec.get("throughput") or {}).get("tflops")
        if rec["kind"] == "device" and tflops and summary.median > 0:
            # TFLOP/s at the CI's ends, for the range
            flop_tera = tflops * summary.median
            lo = flop_tera / summary.median_ci_high if summary.median_ci_high > 0 else tflops
            hi = flop_tera / summary.median_ci_low if summary.median_ci_low > 0 else tflops
            bigger.append(_entry(rec, tflops, "TFLOP/s", (hi - lo) / 2))
    return bigger, smaller


def write_github_action_benchmark(results: Results, out_dir: str | Path) -> list[Path]:
    bigger, smaller = github_action_benchmark(results)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, entries in ((BIGGER_FILE, bigger), (SMALLER_FILE, smaller)):
        path = out / name
        path.write_text(json.dumps(entries, indent=1) + "\n", encoding="utf-8")
        paths.append(path)
    return paths
