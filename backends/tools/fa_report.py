"""The flash-attention portability table from one pytest-benchmark JSON (suites/flash_attention/test_fa_stages.py).

Usage: ``python -m tlbench.backends.tools.fa_report RUN.json [--peak-tflops 989.5] [--markdown OUT.md]``

Contract: ``report(doc, peak)`` -> (the Markdown lines: per FA problem every FA item against the
fastest SDPA backend, failed and skipped items listed; whether a compiled FA kernel failed);
``main(argv)`` prints them (and writes ``--markdown``): exit 0, 1 when a compiled FA kernel
failed, 2 for an unusable file or one without flash-attention items.  No torch.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from typing import Any

from tlbench.harness.core.record import EXTRA_KEY, records_of
from tlbench.harness.results.files.store import ResultsError, load_results

H200_DENSE_BF16_TFLOPS = 989.5


def _fa(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if str(r.get("case_id", "")).startswith("fa-")]


def _problem_id(rec: dict[str, Any]) -> str:
    case_id = rec["case_id"]
    return case_id.split("-bm")[0] if "-bm" in case_id else case_id.rsplit("-", 1)[0]


def report(doc: dict[str, Any], peak: float) -> tuple[list[str], bool]:
    timed = [r for r in _fa(records_of(doc)) if r.get("kind") == "device"]
    extra = doc.get(EXTRA_KEY) or {}
    failed, skipped = _fa(extra.get("failed", [])), _fa(extra.get("skipped", []))
    by_problem: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for rec in timed:
        by_problem[_problem_id(rec)].append(rec)
    lines: list[str] = []
    for pid, recs in sorted(by_problem.items()):
        sdpa = [r for r in recs if "-sdpa_" in r["case_id"]]
        fastest = min((r["summary"]["median"] for r in sdpa), default=None)
        lines += [
            f"## {pid}", "",
            "| item | backend | median ms | TFLOP/s | % of peak | x fastest SDPA | max abs err | tolerance |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for rec in sorted(recs, key=lambda r: r["summary"]["median"]):
            check = rec.get("check") or {}
            tf = (rec.get("throughput") or {}).get("tflops", float("nan"))
            tol = f"{check.get('atol')} + {check.get('rtol')}·|ref|" if check else "-"
            ratio = f"{fastest / rec['summary']['median']:.3f}" if fastest else "-"
            lines.append(
                f"| {rec['case_id'][len(pid) + 1:]} | {rec.get('backend')} | {rec['summary']['median'] * 1e3:.3f} | {tf:.1f} | "
                f"{100 * tf / peak:.1f} | {ratio} | {check.get('max_abs_err', float('nan')):.2e} | {tol} |"
            )
        shared = [r for r in recs if r.get("config") and r["config"].get("body", "shared") == "shared"]
        target = [r for r in recs if r.get("config") and r["config"].get("body", "shared") != "shared"]  # hopper, hopper_ws ...
        lines.append("")
        if sdpa:
            best_sdpa = min(sdpa, key=lambda r: r["summary"]["median"])
            lines.append(f"SDPA backends that ran: {', '.join(r['case_id'].rsplit('-', 1)[1] for r in sdpa)}; fastest: {best_sdpa['case_id']}")
            for name, group in (("shared-body FA", shared), ("target-specific FA (any non-shared body)", target)):
                if group:
                    best = min(group, key=lambda r: r["summary"]["median"])
                    ratio = best_sdpa["summary"]["median"] / best["summary"]["median"]
                    lines.append(f"best {name}: {best['case_id']} = {ratio:.3f}x the fastest SDPA (speed; >1 is faster)")
        refused = [s for s in failed + skipped if "-sdpa_" in s.get("case_id", "") and _problem_id(s) == pid]
        for s in refused:
            lines.append(f"SDPA not run: {s['case_id']}: {s.get('error') or s.get('reason')}")
        curves: dict[str, dict[str, float]] = defaultdict(dict)
        for rec in shared:
            cfg = rec["config"]
            tile = f"{cfg['block_M']}x{cfg['block_N']} t{cfg['threads']}"
            form = f"s{cfg['num_stages']}" if cfg["loop_form"] == "auto" else cfg["loop_form"]
            curves[tile][form] = rec["throughput"]["tflops"]
        for tile, points in sorted(curves.items()):
            order = ["s1", "s2", "s3", "s4", "manual", "serial"]
            lines.append(f"stage curve {tile} (TFLOP/s): " + ", ".join(f"{k} {points[k]:.1f}" if k in points else f"{k} -" for k in order))
        lines.append("")
    kernels_failed = [f for f in failed if "-sdpa_" not in f.get("case_id", "")]
    for f in kernels_failed:
        first = str(f.get("error", "")).strip().splitlines()[0] if f.get("error") else ""
        what = "compiler refused" if f.get("stage") == "compile" else "FAILED"
        lines.append(f"{what} [{f.get('stage')}] {f['case_id']} ({f.get('backend')}): {first}")
    bad = [f for f in kernels_failed if f.get("stage") != "compile"]
    for s in skipped:
        if "-sdpa_" not in s.get("case_id", ""):
            lines.append(f"skipped {s['case_id']} ({s.get('backend')}): {s.get('reason')}")
    return lines, bool(bad)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json")
    parser.add_argument("--peak-tflops", type=float, default=H200_DENSE_BF16_TFLOPS, help="dense bf16 peak (H200 SXM: 989.5)")
    parser.add_argument("--markdown", default=None, help="also write the table here")
    args = parser.parse_args(argv)
    try:
        doc = load_results(args.json).document
    except ResultsError as exc:  # one line naming the file, what is wrong and what to do
        print(f"fa_report: {exc}", file=sys.stderr)
        return 2
    lines, any_failed = report(doc, args.peak_tflops)
    if not lines:
        print(f"fa_report: {args.json} holds no flash-attention items (run suites/flash_attention/test_fa_stages.py)", file=sys.stderr)
        return 2
    print("\n".join(lines))
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write("\n".join(lines) + "\n")
    return 1 if any_failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
