"""The ten-second answer: one block per backend x problem, skips folded by reason.

Contract: ``summary_lines(records, setup_s, setup_parts)`` (pure, over the session's records)
returns the terminal's last lines: per (backend, problem) a grid of tiles x loop forms (device
medians, else the model's II and cycles or the chosen pipeline), the best config's rates, flags
and first failures; then the portability tax, search accounts, skips and the untimed setup.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from ...core.described import described, family_for_record, record_stage
from ...core.record_reader import RecordReader
from ...measure.setup_compile import SLOW_SETUP_S, setup_words
from ...core.shard import placement
from ..files.error_text import failure_lines
from ..files.record_fields import Item, Outcome, Record
from .roofline import unknown_peak_words
from .table import format_seconds
from .portability_tax import TaxGroup, tax_lines
from .search_account import is_search_skip, search_accounts

FORM_ORDER = ("s0", "s1", "s2", "s3", "s4", "s5", "s6", "manual", "serial")
FLAGS = ("DRIFT", "CAPPED")
STAGE_KEYS = ("loop_form", "num_stages")  # the pipeline-depth axis: the columns, not the row
TILE_KEY = "_summary_tile"  # set on each record's copy by _blocks (the family's words for its tile)


AS_WRITTEN = "as written"  # the column of a kernel swept on no pipeline-depth axis: its loops as the body wrote them


def _form(config: Mapping[str, Any], record: Record | None = None) -> str:
    stage = record_stage(record.raw) if record is not None else None  # a described kernel's, as its family worded it
    if stage is not None:
        if stage.loop_form == "auto":
            return f"s{stage.num_stages}" if stage.num_stages is not None else "?"
        return stage.loop_form if stage.loop_form != "none" else AS_WRITTEN
    if config.get("loop_form") == "auto":
        return f"s{config.get('num_stages')}"
    return str(config.get("loop_form") or "?")


def _plain(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_plain(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_plain(v)}" for k, v in value.items()) + "}"
    return str(value)


def _tile(config: Mapping[str, Any], record: Record | None = None) -> str:
    """The config without its place on the pipeline-depth axis: the family's own words
    (``StagePoint.tile``) where the family can read the record, else every config value but
    ``loop_form`` / ``num_stages`` as ``key=value`` - no family's field names are known here."""
    if record is not None and record.raw.get(TILE_KEY):
        text = str(record.raw[TILE_KEY])
        words = set(text.split())
        for key, value in sorted(config.items()):  # a named variant (e.g. which kernel body): a row of its own
            if isinstance(value, str) and key not in STAGE_KEYS and value not in words:
                text += f" {value}"
        return text
    shown = [f"{k}={_plain(v)}" for k, v in config.items() if k not in STAGE_KEYS and v not in (None, False)]
    return " ".join(shown) or "?"


def _read(reader: RecordReader, record: Mapping[str, Any]) -> Any:
    try:
        return reader.read(record)
    except Exception:  # noqa: BLE001 - a family not installed, or a record it cannot read: the generic words
        return None


def _problem_label(item: Item, read: Any) -> str:
    """The record's problem id: as the store read it, else read through its family, else the
    case id up to its label (``<problem_id>[-<label>]-<config_id>``, the vendor suffix last)."""
    if isinstance(item.problem_id, str):
        return item.problem_id
    if read is not None:
        return read.problem_id
    if described(item.raw):  # its problem id is derived from its values, not cut from its case id
        return family_for_record(item.raw).problem_from_dict(item.raw.get("problem") or {}).problem_id
    if item.label and f"-{item.label}-" in item.case_id:
        return item.case_id[: item.case_id.index(f"-{item.label}-")]
    return item.case_id.rsplit("-", 1)[0]


def _versioned(plan: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """The plan's on-chip operand buffers whose versions a cell shows, in the plan's order."""
    return [b for b in (plan or {}).get("buffers", []) if b.get("scope") in ("shared.dyn", "shared.l1")]


def _short_plan(plan: Mapping[str, Any] | None) -> str:
    if not plan:
        return "?"
    pipe = plan.get("pipeline") or {}
    versions = [str(b.get("versions")) for b in _versioned(plan)]
    tag = {"warp-specialized": "ws", "software-pipeline": "sw"}.get(pipe.get("kind"), "-")
    return f"{tag} v{'/'.join(versions)}" if versions else tag


def _legend(records: list[Record]) -> str:
    """The legend under a block of plan cells: the tags, and which buffers ``vA/B/..`` counts -
    by name where every cell names the same buffers, else in words."""
    names = {tuple(str(b.get("name")) for b in _versioned(r.plan)) for r in records}
    names.discard(())
    tags = "ws = warp-specialized, sw = software pipeline, - = no pipeline"
    if not names:
        return tags
    if len(names) == 1:
        (shown,) = names
        return f"{tags}; v{'/'.join('N' * len(shown))} = buffer versions of {'/'.join(shown)}"
    return f"{tags}; vN/N/.. = buffer versions of each shared buffer, in the plan's order (they differ between cells)"


def _built(record: Record) -> bool:
    """Did this compile item build a device binary?  What its record says: the plan's ``built``,
    a ``build`` phase, or its one cold build."""
    features = (record.plan or {}).get("features") or {}
    return features.get("built") is True or "build" in (record.compile_phases_s or {}) or "cold_build_once" in record.raw


@dataclass
class _Block:
    backend: str
    problem: str
    timed: list[Record] = field(default_factory=list)  # device items
    compiled: list[Record] = field(default_factory=list)  # compile items
    vendor: list[Record] = field(default_factory=list)
    failed: list[Outcome] = field(default_factory=list)


def _median(record: Record) -> float | None:
    return record.summary.get("median")


def _status_flag(record: Record) -> str | None:
    status = record.summary.get("status") or (record.measurement or {}).get("status")
    return status if status in FLAGS else None


def _grid(records: list[Record], cell) -> tuple[list[str], dict[str, dict[str, str]]]:
    forms: set[str] = set()
    rows: dict[str, dict[str, str]] = {}
    for rec in records:
        config = rec.config or {}
        form, tile = _form(config, rec), _tile(config, rec)
        if rec.label:
            tile += f" ({rec.label})"
        forms.add(form)
        rows.setdefault(tile, {})[form] = cell(rec)
    ordered = [f for f in FORM_ORDER if f in forms] + sorted(forms - set(FORM_ORDER))
    return ordered, rows


def _render_grid(forms: list[str], rows: dict[str, dict[str, str]], head: str) -> list[str]:
    first = max([len(head), *(len(t) for t in rows)])
    widths = {f: max([len(f), *(len(r.get(f, "")) for r in rows.values())]) for f in forms}
    lines = ["  " + head.ljust(first) + "  " + "  ".join(f.rjust(widths[f]) for f in forms)]
    for tile, cells in rows.items():
        lines.append("  " + tile.ljust(first) + "  " + "  ".join(cells.get(f, "-").rjust(widths[f]) for f in forms))
    return lines


def _device_block(block: _Block) -> list[str]:
    best = min(block.timed, key=lambda r: _median(r) or float("inf"))
    same_gpu = [v for v in block.vendor if placement(v.raw) == placement(best.raw)]
    vendors = same_gpu or block.vendor  # a kernel is judged against its own GPU's (shard's) vendor item
    vendor = min(vendors, key=lambda r: _median(r) or float("inf")) if vendors else None

    def cell(rec):
        mark = "*" if rec is best else ""
        flag = "!" if _status_flag(rec) else ""
        return f"{format_seconds(_median(rec)).replace(' ', '')}{mark}{flag}"

    forms, rows = _grid(block.timed, cell)
    lines = _render_grid(forms, rows, "device time (median)")
    best_config = best.config or {}
    parts = [f"best {_tile(best_config, best)} {_form(best_config, best)}: {format_seconds(_median(best))}"]
    throughput, roofline = best.throughput, best.roofline or {}
    gbps, tflops = throughput.get("gbps_compulsory"), throughput.get("tflops")
    bandwidth = roofline.get("bandwidth_tbps")
    bandwidth = bandwidth if isinstance(bandwidth, (int, float)) and bandwidth > 0 else None
    bound = roofline.get("bound")
    # bytes per second against the bandwidth: a memory-bound kernel, and any kernel that moves
    # bytes but whose bound is not known (no FLOP peak for it); FLOP/s against the peak otherwise
    by_bytes = bool(gbps) and bound != "compute"
    by_flops = bool(tflops) and bound != "memory"
    if by_bytes:
        parts.append(f"{gbps:.0f} GB/s")
    if by_flops:
        parts.append(f"{tflops:.1f} TFLOP/s")
    if vendor is not None and _median(vendor) and _median(best):
        unjudged = "; a speed reference, not checked" if (vendor.check or {}).get("checked") is False else ""
        parts.append(f"{_median(vendor) / _median(best):.3f}x the vendor item ({format_seconds(_median(vendor))}{unjudged})")
    else:
        parts.append("no vendor item timed")
    if by_bytes:
        origin = roofline.get("origin") or "profile"
        parts.append(f"{gbps / (bandwidth * 10):.1f}% of the {origin} memory bandwidth ({bandwidth:.2f} TB/s)"
                     if bandwidth else "memory bandwidth unknown")
    if by_flops or not by_bytes:
        pct = best.raw.get("pct_of_peak", throughput.get("pct_of_peak"))
        parts.append(f"{pct:.1f}% of peak" if isinstance(pct, (int, float)) else unknown_peak_words(best.raw))
    calibrated = best.raw.get("roofline_calibrated") or {}
    copy = calibrated.get("bandwidth_tbps") if calibrated.get("status") == "ok" else None
    if by_bytes and isinstance(copy, (int, float)) and copy > 0:  # --tlbench-profile's measured copy
        parts.append(f"{gbps / (copy * 10):.1f}% of the calibrated copy ({copy:.2f} TB/s)")
    lines.append("  " + ", ".join(parts))
    gpus = sorted({str(r.device_uuid) for r in block.timed if r.device_uuid})
    if len(gpus) > 1:
        lines.append(f"  measured on {len(gpus)} devices: {', '.join(gpus)}")
    return lines


def _model_block(block: _Block) -> list[str]:
    def cycles(rec):
        return ((rec.plan or {}).get("schedule_model") or {}).get("modeled_cycles_per_core")

    ranked = [r for r in block.compiled if cycles(r)]
    best = min(ranked, key=cycles) if ranked else None

    def ii_cell(rec):
        ii = ((rec.plan or {}).get("pipeline") or {}).get("loop_ii_cycles_model")
        return f"{ii}{'*' if rec is best else ''}" if ii is not None else "?"

    forms, rows = _grid(block.compiled, ii_cell)
    lines = _render_grid(forms, rows, "K-loop II, cycles (model)")
    if best is not None:
        config = best.config or {}
        lines.append(f"  best by the model: {_tile(config, best)} {_form(config, best)}, {cycles(best)} modeled cycles per core (model, not a time)")
    for rec in block.compiled:
        overlap = ((rec.plan or {}).get("schedule_model") or {}).get("core_pipelining") or {}
        if overlap.get("applicable"):
            config = rec.config or {}
            verdict = (
                f"overlaps: {overlap['overlap_cycles']} cycles of tile t's Vector work under tile t+1's Cube work"
                if overlap.get("overlaps")
                else "no overlap: tile t+1's Cube work starts after tile t's Vector work"
            )
            lines.append(f"  Cube/Vector {_tile(config, rec)} {_form(config, rec)}: {verdict}, tile-loop II {overlap['tile_loop_ii_cycles']} vs span {overlap['tile_loop_span_cycles']} (model)")
    return lines


def _plan_block(block: _Block) -> list[str]:
    forms, rows = _grid(block.compiled, lambda rec: _short_plan(rec.plan))
    lines = _render_grid(forms, rows, "pipeline chosen")
    slowest = max(block.compiled, key=lambda r: _median(r) or 0.0)
    built = sum(_built(r) for r in block.compiled)
    once = any("cold_build_once" in r.raw for r in block.compiled)
    what = ("cold lowering, after one cold build each" if once else "cold lowering + build" if built == len(block.compiled)
            else f"cold lowering; {built} of {len(block.compiled)} built" if built else "cold lowering, no build")
    lines.append(f"  {_no_device_timing(block)} ({what}, slowest {format_seconds(_median(slowest))})")
    lines.append("  " + _legend(block.compiled))
    return lines


def _no_device_timing(block: _Block) -> str:
    """Why a block shows compile items only: its device items all failed, or it had none."""
    device_failed = [r for r in block.failed if r.kind == "device"]
    if device_failed:
        return f"no device timing: all {len(device_failed)} device item{'s' if len(device_failed) != 1 else ''} failed (below); compile items"
    return "no device timing: compile items only"


def _blocks(records: Iterable[Mapping[str, Any]]) -> tuple[list[_Block], Counter]:
    blocks: dict[tuple[str, str], _Block] = {}
    skips: Counter = Counter()
    reader = RecordReader()
    for rec in records:
        status = rec.get("status", "timed")
        if is_search_skip(rec):  # counted in the search's own line (harness/search/account.py)
            continue
        if status == "skipped":
            skips[(rec.get("kind", "?"), str(rec.get("reason")))] += 1
            continue
        read = _read(reader, rec)
        if read is not None and read.stage is not None:
            rec = {**rec, TILE_KEY: read.stage.tile}
        item = Outcome.of(status, rec) if status == "failed" else Record.of(rec)
        key = (str(item.backend), _problem_label(item, read))
        block = blocks.setdefault(key, _Block(*key))
        if isinstance(item, Outcome):
            block.failed.append(item)
        elif item.config is None and "problem" in rec:  # a vendor item
            block.vendor.append(item)
        elif item.kind == "device":
            block.timed.append(item)
        else:
            block.compiled.append(item)
    return list(blocks.values()), skips


def summary_lines(records: Iterable[Mapping[str, Any]], setup_s: dict[str, float] | None = None,
                  setup_parts: dict[str, dict] | None = None) -> list[str]:
    records = list(records)
    blocks, skips = _blocks(records)
    blocks.sort(key=lambda b: (b.problem, b.backend))
    lines: list[str] = []
    for block in blocks:
        lines.append(f"{block.backend} · {block.problem}")
        has_model = any(((r.plan or {}).get("schedule_model")) for r in block.compiled)
        if block.timed:
            lines += _device_block(block)
        elif block.compiled and has_model:
            lines += _model_block(block)
            if any(r.kind == "device" for r in block.failed):
                lines.append(f"  {_no_device_timing(block)}")
        elif block.compiled:
            lines += _plan_block(block)
        elif block.vendor:
            unjudged = " (a speed reference, not checked)" if any((v.check or {}).get("checked") is False for v in block.vendor) else ""
            lines.append(f"  vendor item only: {format_seconds(min(_median(v) or 0 for v in block.vendor))}{unjudged}")
        if block.timed and block.compiled and has_model:
            lines += _model_block(block)
        flags = Counter(f for f in (_status_flag(r) for r in block.timed + block.vendor) if f)
        notes = [f"{n} {flag}" for flag, n in sorted(flags.items())]
        if block.failed:
            notes.append(f"{len(block.failed)} failed (see the table: pytest -v, or tlbench report)")
        if notes:
            lines.append("  flags: " + ", ".join(notes) + ("  (! marks a flagged cell)" if flags else ""))
        lines += failure_lines([f.raw for f in block.failed])
        lines.append("")
    lines += tax_lines([TaxGroup(b.backend, b.problem, b.timed, b.vendor) for b in blocks])
    lines += [account.words() for account in search_accounts(records)]
    for (kind, reason), count in sorted(skips.items(), key=lambda kv: -kv[1]):
        lines.append(f"{count} {kind} item{'s' if count != 1 else ''} skipped: {reason}")
    if setup_s:
        shown = ", ".join(f"{name} {format_seconds(seconds)}" for name, seconds in sorted(setup_s.items()) if seconds)
        if shown:
            warmed = sorted(n for n, a in (setup_parts or {}).items() if a and a.get("warm_up_s") is not None)
            whose = (f"; {', '.join(warmed)}: no item compiled, the worker's own warm-up kernels compiled as it started"
                     if warmed else "")
            lines.append(f"setup (each backend's first compile, untimed, outside every item{whose}): {shown}")
        for name, seconds in sorted(setup_s.items()):
            account = (setup_parts or {}).get(name)
            if seconds > SLOW_SETUP_S and account:
                lines.append("  " + setup_words(name, account))
    return lines
