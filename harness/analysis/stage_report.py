"""``tlbench report --stages FILE``: how many pipeline stages to use, and why.

Contract: ``main(path, png=None, markdown=None, png_dir=None, as_json=False)`` prints the stage
report of a results file (``as_json``: the document alone on stdout) and writes the markdown and
PNGs asked for. Returns 0, or 2 after one line on stderr when the input cannot be used.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .stage_figures import plot_stage_curves, write_pngs
from .stage_fit import loop_latencies
from .stage_grouping import build_stage_report
from .stage_json import stage_json
from .stage_text import format_stage_report, stage_markdown
from .stage_types import StageLine, StageReport, StageReportError, StageVerdict, TileGroup
from ..results.files.store import ResultsError, load_results

__all__ = ["StageLine", "StageReport", "StageReportError", "StageVerdict", "TileGroup", "build_stage_report", "format_stage_report", "loop_latencies", "main",
           "plot_stage_curves", "stage_markdown", "write_pngs"]


def main(path: str | Path, png: str | Path | None = None, markdown: str | Path | None = None,
         png_dir: str | Path | None = None, as_json: bool = False) -> int:
    """See the module docstring."""
    try:
        results = load_results(path)
        report = build_stage_report(results.document)
    except (ResultsError, StageReportError) as exc:
        where = "" if str(path) in str(exc) else f"{path}: "
        print(f"tlbench report --stages: {where}{exc}", file=sys.stderr)
        return 2
    said = sys.stderr if as_json else sys.stdout
    if as_json:
        json.dump(stage_json(report, str(path)), sys.stdout, indent=1, allow_nan=False)
        sys.stdout.write("\n")
    else:
        print(f"stage report: {path}")
        print("\n".join(format_stage_report(report)))
    if markdown is not None:
        out = Path(markdown)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(stage_markdown(report, str(path)), encoding="utf-8")
        print(f"wrote {out}", file=said)
    if png is not None:
        print(f"wrote {plot_stage_curves(report, png)}", file=said)
        for written in write_pngs(report, results.records, Path(png).parent, prefix=Path(png).stem + "-"):
            print(f"wrote {written}", file=said)
    if png_dir is not None:
        for written in write_pngs(report, results.records, png_dir):
            print(f"wrote {written}", file=said)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:2], png_dir=(sys.argv[2] if len(sys.argv) > 2 else None)))
