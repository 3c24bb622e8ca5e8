"""Space-time PNG of a pipelined K loop as Ascend's Z3 scheduler placed it (a model, in cycles).

Contract: ``schedule_panels(records, iterations_shown=8, lanes="pipe")`` is one ``Panel`` per
record from its ``plan.schedule_model`` (K step ``i``'s task ``t`` runs from ``i * II +
start[t]`` for ``latency[t]`` cycles; the first ``iterations_shown`` steps drawn, then the
straight-line tail), lanes per pipe (``PIPE_ORDER``) or per core (AIC / AIV); ``write_schedule_png(records, path, title=...)``
renders them and returns the path (``AscendTraits.schedule_figure``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from .pipes import LOAD_PIPES
from tlbench.harness.analysis.timeline_plot import Bar, Lane, Panel, Phase, draw_space_time, pack_tracks

PIPE_ORDER = ("MTE2", "MTE1", "Cube", "Fixpipe", "Vector", "MTE3", "Scalar")
CORE_ORDER = ("AIC", "AIV")
PIPE_CORE = {"MTE1": "AIC", "MTE2": "AIC", "Cube": "AIC", "Fixpipe": "AIC", "Vector": "AIV", "MTE3": "AIV"}
PIPE_DESCRIPTIONS = {
    "MTE2": "MTE2: GM -> L1 copy (issue -> data in L1)", "MTE1": "MTE1: L1 -> L0 copy",
    "Cube": "Cube: gemm", "Fixpipe": "Fixpipe: L0C -> GM store", "Vector": "Vector",
    "MTE3": "MTE3: UB -> GM copy", "Scalar": "Scalar",
    "AIC": "AIC (cube core)", "AIV": "AIV (vector core)"}
DEFAULT_SHOWN = 8


def schedule_panels(records: Sequence[Mapping[str, Any]], iterations_shown: int = DEFAULT_SHOWN,
                    lanes: str = "pipe") -> tuple[Panel, ...]:
    """See the module docstring; raises ``ValueError`` naming the record without a schedule."""
    if lanes not in ("pipe", "core"):
        raise ValueError(f"lanes must be 'pipe' or 'core', got {lanes!r}")
    if iterations_shown < 1:
        raise ValueError(f"iterations_shown must be >= 1, got {iterations_shown}")
    if not records:
        raise ValueError("schedule_panels: no records (pass the Ascend records of one tile, one per num_stages)")
    loops = [_k_loop(rec) for rec in records]
    reference = next((lp["modeled_cycles"] for lp in loops if lp.get("num_stages") == 1 and lp.get("modeled_cycles")), None)
    return tuple(_schedule_panel(rec, loop, iterations_shown, lanes, reference) for rec, loop in zip(records, loops))


def write_schedule_png(records: Sequence[Mapping[str, Any]], path: str | Path, *, title: str = "",
                       iterations_shown: int = DEFAULT_SHOWN, lanes: str = "pipe") -> Path:
    panels = schedule_panels(records, iterations_shown, lanes)
    trips = {_trip_count(_k_loop(r)) or 0 for r in records}
    shown = min(iterations_shown, min(trips) or iterations_shown)
    steps = f"first {shown} of {max(trips)} K steps" if max(trips) > shown else f"{shown} K steps"
    heading = "\n".join(filter(None, [title, f"Z3 modulo schedule (MODEL, not measured), {steps}"]))
    return draw_space_time(panels, path, heading, lane_descriptions=PIPE_DESCRIPTIONS, xlabel=(
        "cycles (model: tilelang EstimateLatency latencies placed at Z3 start times; "
        "step i starts at i x II)"))


def _trip_count(loop: Mapping[str, Any]) -> int | None:
    """The loop's step count; None where it is symbolic (a ``T.dynamic`` size with no value
    bound: the record holds its text, e.g. ``(k + 63) // 64``), and the first steps are drawn."""
    trip = loop.get("trip_count")
    return trip if isinstance(trip, int) and not isinstance(trip, bool) else None


def _k_loop(record: Mapping[str, Any]) -> dict[str, Any]:
    model = ((record.get("plan") or {}).get("schedule_model")) or {}
    loops = model.get("loops") or []
    if not loops or not loops[0].get("tasks"):
        case = record.get("case_id", "?")
        raise ValueError(f"{case}: no scheduled K loop in plan.schedule_model; "
                         "pass Ascend records from a run with the Z3 schedule captured")
    return loops[0]


def _schedule_panel(record: Mapping[str, Any], loop: Mapping[str, Any], shown: int, lanes: str,
                    reference: float | None) -> Panel:
    ii = float(loop["ii"])
    count = min(shown, _trip_count(loop) or shown)
    bars: dict[str, list[Bar]] = {}
    for i in range(count):
        for task in loop["tasks"]:
            start = i * ii + float(task["start"])
            bar = Bar(start, start + float(task["latency"]), f"{_task_tag(task)}{i}")
            bars.setdefault(_lane_of(task, lanes), []).append(bar)
    loop_end = max(b.end for lane in bars.values() for b in lane)
    tail_end = _add_tail(record, loop, loop_end, bars, lanes)
    ordered = [n for n in (PIPE_ORDER if lanes == "pipe" else CORE_ORDER) if n in bars]
    ordered += [n for n in bars if n not in ordered]
    captions = _busy_captions(loop, bars) if lanes == "pipe" else {}
    lanes_drawn = tuple(Lane(n, tuple(bars[n]), captions.get(n, "")) for n in ordered)
    return Panel(title=_schedule_title(record, loop), lanes=lanes_drawn,
                 phases=_schedule_phases(loop, count, ii, loop_end),
                 subtitle=_schedule_subtitle(loop, reference), end_marker=tail_end)


def _busy_captions(loop: Mapping[str, Any], bars: Mapping[str, Sequence[Bar]]) -> dict[str, str]:
    """``busy 95%, 2 in flight``: the pipe's share of the II held by its tasks (their
    EstimateLatency ``ii``) and how many of its tasks overlap at most (latency windows)."""
    ii = float(loop["ii"])
    held: dict[str, float] = {}
    for task in loop["tasks"]:
        lane = _lane_of(task, "pipe")
        held[lane] = held.get(lane, 0.0) + float(task.get("ii") or task["latency"])
    captions = {}
    for lane, busy in held.items():
        in_flight = max(pack_tracks(tuple(bars[lane])), default=0) + 1
        captions[lane] = f"busy {busy / ii:.0%}" + (f", {in_flight} in flight" if in_flight > 1 else "")
    return captions


def _add_tail(record: Mapping[str, Any], loop: Mapping[str, Any], loop_end: float,
              bars: dict[str, list[Bar]], lanes: str) -> float:
    """Straight-line tasks that start after the whole loop (schedule's ``straight_line``),
    moved to the end of the shown steps."""
    model = (record.get("plan") or {}).get("schedule_model") or {}
    total = float(loop.get("modeled_cycles") or 0)
    end = loop_end
    for segment in model.get("straight_line") or ():
        for task in segment.get("tasks") or ():
            if total and float(task.get("start", 0)) >= total:
                start = loop_end + float(task["start"]) - total
                bars.setdefault(_lane_of(task, lanes), []).append(Bar(start, start + float(task["latency"]), "after loop"))
                end = max(end, start + float(task["latency"]))
    return end


def _schedule_phases(loop: Mapping[str, Any], count: int, ii: float, loop_end: float) -> tuple[Phase, ...]:
    tasks = loop["tasks"]
    loads = [t for t in tasks if set(t.get("pipes") or ()) <= LOAD_PIPES]
    computes = [t for t in tasks if t not in loads] or tasks
    fill_end = min(float(t["start"]) for t in computes)
    drain_start = (count - 1) * ii + max(float(t["start"]) + float(t["latency"]) for t in (loads or tasks))
    bounds = [(0.0, fill_end), (fill_end, drain_start), (drain_start, loop_end)]
    return tuple(Phase(kind, a, b) for kind, (a, b) in zip(("prologue", "steady", "epilogue"), bounds) if b > a)


def _schedule_title(record: Mapping[str, Any], loop: Mapping[str, Any]) -> str:
    config = record.get("config") or {}
    form = config.get("loop_form", "auto")
    knob = f"num_stages={config.get('num_stages')}" if form == "auto" else form
    versions = "/".join(str(v) for v in loop.get("versions") or ()) or "?"
    return f"{knob}: II {float(loop['ii']):.0f} cyc, buffers {versions}"


def _schedule_subtitle(loop: Mapping[str, Any], reference: float | None) -> str:
    cycles = loop.get("modeled_cycles")
    text = f"whole K loop ({loop.get('trip_count')} steps): {cycles} cyc"
    if reference and cycles:
        text += f" (x{reference / float(cycles):.2f} vs 1 stage)"
    return text


def _lane_of(task: Mapping[str, Any], lanes: str) -> str:
    """The task's pipes, or its cores; a task recorded without cores (the straight-line
    tail) goes to the core its pipes live on (``PIPE_CORE``)."""
    pipes = list(task.get("pipes") or ["?"])
    if lanes == "pipe":
        return "+".join(pipes)
    return "+".join(task.get("cores") or sorted({PIPE_CORE.get(p, "?") for p in pipes}))


def _task_tag(task: Mapping[str, Any]) -> str:
    """``copy A->A_tile (...)`` -> ``A``; ``gemm`` -> ``g``; else the first letter."""
    kind = str(task.get("kind", "?"))
    if kind.startswith("copy ") and "->" in kind:
        return kind[5:].split("->")[0].strip()
    return kind[:1] or "?"
