"""``tlbench calibrate --backend NAME``: measure this machine's device profile.

Contract: runs the backend's optional ``calibrate(seconds)``, writes the profile as JSON (default
``results/profiles/<backend>-<device>.calibrated.json``) and prints it beside the datasheet's.
No device or no ``calibrate`` method, or an output over a results file, is exit 2.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from .common import add_output, exit_codes, parser_args, write_text
from ..results.history.schema import HistoryError


def register(sub: Any) -> None:
    cal = sub.add_parser("calibrate", **parser_args(
        "measure this machine's peak matmul FLOP/s and copy bandwidth (vendor library)",
        "Write a calibrated device profile (use it with --tlbench-profile).",
        exit_codes("written", unusable="no such backend, no device here, or an output that would destroy a file")))
    cal.add_argument("--backend", required=True, help="the backend whose device to calibrate")
    cal.add_argument("--seconds", type=float, default=30.0, help="rough time cap (default 30)")
    add_output(cal, "FILE.json", "where to write the calibrated profile (default results/profiles/<backend>-<device>.calibrated.json)")
    cal.set_defaults(handler=run_calibrate)


def run_calibrate(args: argparse.Namespace) -> int:
    from ..core.registry import BackendRegistry, UnknownBackend
    from ..pytest_plugin.enrich import profile_of

    registry = BackendRegistry.from_entry_points()
    try:
        registry.validate(args.backend)
    except UnknownBackend as exc:
        raise HistoryError(str(exc)) from None
    reason = registry.compile_blocker(args.backend)
    backend = None if reason else registry.get(args.backend)
    reason = reason or backend.device_blocker()
    if reason:
        raise HistoryError(f"calibrate --backend {args.backend}: no device here ({reason})")
    measure = getattr(backend, "calibrate", None)
    if not callable(measure):
        raise HistoryError(f"calibrate: backend {args.backend} cannot calibrate (it has no calibrate method)")
    from .outputs import guard

    datasheet, device = profile_of(backend)
    slug = re.sub(r"[^a-z0-9]+", "-", (device or "device").lower()).strip("-")
    out = Path(args.output or f"results/profiles/{args.backend}-{slug}.calibrated.json")
    guard([out], [], False)  # never over a results file or a journal (checked before the measurement)
    profile = measure(args.seconds)
    write_text(out, json.dumps(profile.to_dict(), indent=1) + "\n")
    print(f"calibrated {profile.device} ({profile.source})")
    for dtype, flops in sorted(profile.peak_flops.items()):
        sheet = datasheet.peak_flops_for(dtype) if datasheet else None
        versus = f" = {100 * flops / sheet:.1f}% of the datasheet {sheet / 1e12:.1f}" if sheet else " (no datasheet figure)"
        print(f"  {dtype}: {flops / 1e12:.1f} TFLOP/s{versus}")
    bw = profile.memory_bandwidth or 0
    sheet_bw = datasheet.memory_bandwidth if datasheet else None
    versus = f" = {100 * bw / sheet_bw:.1f}% of the datasheet {sheet_bw / 1e12:.2f}" if sheet_bw else " (no datasheet figure)"
    print(f"  copy bandwidth: {bw / 1e12:.2f} TB/s{versus}")
    print(f"wrote {out} (calibrated; the datasheet profiles in backends/ are unchanged)")
    return 0
