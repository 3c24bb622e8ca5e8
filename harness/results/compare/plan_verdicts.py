"""Run-vs-run verdicts on what the compiler decided and what its schedule model predicts.

Contract: ``compare_plans(paired, thresholds)``: one ``PlanVerdict`` per item with a plan in
both runs: MODEL WORSE (modeled cycles or a loop's II grew past ``model_threshold``; gates with
``gate_model``), MODEL BETTER, PLAN CHANGED (gates with ``gate_plan``) or SAME PLAN.
``add_options(parser)`` / ``threshold_values(args)``: the options that set those.
"""

from __future__ import annotations

import argparse
from typing import Any, Mapping

from .comparison import ItemKey, PlanVerdict
from ..files.fraction_arg import command_fraction
from .judgement import Thresholds
from .pairing import Paired

MODEL_WORSE, MODEL_BETTER, PLAN_CHANGED, SAME_PLAN = "MODEL WORSE", "MODEL BETTER", "PLAN CHANGED", "SAME PLAN"
ORDER = (MODEL_WORSE, PLAN_CHANGED, MODEL_BETTER, SAME_PLAN)
MODEL_KEYS = ("loop_ii_cycles_model",)  # pipeline entries that are model numbers, read from schedule_model
GATING = ("modeled cycles per core", " II")  # the model numbers whose growth is MODEL WORSE
MAX_WORDS = 12


_fraction = command_fraction(0.01)  # --model-threshold


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model-threshold", type=_fraction, default=0.01, metavar="FRACTION",
                        help="a modeled II or cycle count worse by more than this is MODEL WORSE (default 0.01 = 1 %%)")
    parser.add_argument("--no-gate-model", dest="gate_model", action="store_false",
                        help="show MODEL WORSE without gating on it (default: it gates)")
    parser.add_argument("--gate-plan-changes", dest="gate_plan", action="store_true",
                        help="also gate on any other change of a compiler plan or schedule (default: shown only)")


def threshold_values(args: argparse.Namespace) -> dict[str, Any]:
    return {"model_threshold": args.model_threshold, "gate_model": args.gate_model, "gate_plan": args.gate_plan}


def _loop_name(index: int, loop: Mapping[str, Any]) -> str:
    return f"loop {loop.get('loop_var')}" if loop.get("loop_var") else f"loop #{index}"


def _loops(plan: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    loops = ((plan.get("schedule_model") or {}).get("loops")) or []
    names: list[str] = []
    out = []
    for index, loop in enumerate(loops):
        name = _loop_name(index, loop)
        name = name if name not in names else f"{name} #{index}"
        names.append(name)
        out.append((name, loop))
    return out


def _show(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 1_000:
        return f"{value:,}"
    return str(value)


def plan_facts(plan: Mapping[str, Any]) -> dict[str, Any]:
    """The compiler's decisions of a plan, flattened to ``{label: value}``."""
    facts: dict[str, Any] = {}
    for key, value in (plan.get("pipeline") or {}).items():
        if key not in MODEL_KEYS:
            facts[f"pipeline {key}"] = value
    if plan.get("threads") is not None:
        facts["threads"] = plan["threads"]
    for scope, size in (plan.get("bytes_per_scope") or {}).items():
        facts[f"{scope} bytes"] = size
    for buf in plan.get("buffers") or []:
        name = buf.get("name")
        facts[f"buffer {name}"] = f"{buf.get('scope')} {buf.get('dtype')} {_show(buf.get('shape'))} x{buf.get('versions')}"
    for key, value in (plan.get("features") or {}).items():
        if key == "built":
            continue  # whether a binary was built here: the machine's toolchain, not a decision
        if key == "source_sha256":
            facts["generated source"] = str(value)[:12] if value else value
            continue
        facts[f"feature {key}"] = value
    model = plan.get("schedule_model") or {}
    for name, loop in _loops(plan):
        facts[f"{name} num_stages"] = loop.get("num_stages")
        facts[f"{name} buffer versions"] = loop.get("versions")
        for task in loop.get("tasks") or []:
            label = f"{name} task {task.get('index')} ({task.get('kind', 'task')})"
            facts[f"{label} pipes"] = task.get("pipes")
            facts[f"{label} cores"] = task.get("cores")
            facts[f"{label} start"] = task.get("start")
    overlap = model.get("core_pipelining") or {}
    if overlap.get("applicable"):
        facts["tile loop overlaps the next tile's work"] = overlap.get("overlaps")
    if "mixed_kernel" in model:
        facts["mixed kernel"] = model.get("mixed_kernel")
    return facts


def model_numbers(plan: Mapping[str, Any]) -> dict[str, float]:
    """The schedule model's cycle counts of a plan, ``{label: cycles}`` (model numbers, not times)."""
    model = plan.get("schedule_model") or {}
    out: dict[str, float] = {}
    if isinstance(model.get("modeled_cycles_per_core"), (int, float)):
        out["modeled cycles per core"] = model["modeled_cycles_per_core"]
    for name, loop in _loops(plan):
        for key, label in (("ii", " II"), ("span", " span"), ("modeled_cycles", " modeled cycles")):
            if isinstance(loop.get(key), (int, float)):
                out[name + label] = loop[key]
        for task in loop.get("tasks") or []:
            if isinstance(task.get("latency"), (int, float)):
                out[f"{name} task {task.get('index')} ({task.get('kind', 'task')}) latency"] = task["latency"]
    for index, block in enumerate(model.get("straight_line") or []):
        if isinstance(block.get("span"), (int, float)):
            out[f"straight-line block {index} span"] = block["span"]
    return out


def _fact_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    out = []
    for label in list(before) + [k for k in after if k not in before]:
        b, a = before.get(label, "absent"), after.get(label, "absent")
        if b != a:
            out.append(f"{label}: {_show(b)} -> {_show(a)}")
    return out


def _model_changes(before: Mapping[str, float], after: Mapping[str, float], threshold: float) -> tuple[list[str], int, int]:
    """Words for every model number that moved, and how many gating ones grew / shrank beyond the threshold."""
    words, worse, better = [], 0, 0
    for label in list(before) + [k for k in after if k not in before]:
        b, a = before.get(label), after.get(label)
        if b == a:
            continue
        if b is None or a is None:
            words.append(f"{label}: {_show(b) if b is not None else 'absent'} -> {_show(a) if a is not None else 'absent'} cycles (model)")
            continue
        change = a / b - 1 if b else float("inf")
        words.append(f"{label}: {_show(b)} -> {_show(a)} cycles ({change:+.1%}, model)")
        if any(label.endswith(g) or label == g.strip() for g in GATING):
            worse += change > threshold
            better += change < -threshold
    return words, worse, better


def judge_plan(key: ItemKey, base_plan: Mapping[str, Any], new_plan: Mapping[str, Any], thresholds: Thresholds) -> PlanVerdict:
    changes = _fact_changes(plan_facts(base_plan), plan_facts(new_plan))
    model, worse, better = _model_changes(model_numbers(base_plan), model_numbers(new_plan), thresholds.model_threshold)
    if worse:
        verdict = MODEL_WORSE
    elif better:
        verdict = MODEL_BETTER
    else:
        verdict = PLAN_CHANGED if changes or model else SAME_PLAN
    gates = (verdict == MODEL_WORSE and thresholds.gate_model) or (verdict != SAME_PLAN and thresholds.gate_plan)
    return PlanVerdict(key, verdict, gates, tuple(changes), tuple(model))


def compare_plans(paired: Paired, thresholds: Thresholds | None = None) -> tuple[PlanVerdict, ...]:
    thresholds = thresholds or Thresholds()
    seen: set[tuple[str, str, str]] = set()
    out = []
    for key in sorted((k for k in paired.base if k in paired.new), key=lambda k: (k.kind != "compile", k.suite, k.backend, k.case_id)):
        base_plan, new_plan = paired.base[key].plan, paired.new[key].plan
        case = (key.suite, key.backend, key.case_id)
        if not isinstance(base_plan, dict) or not isinstance(new_plan, dict) or case in seen:
            continue
        seen.add(case)
        out.append(judge_plan(key, base_plan, new_plan, thresholds))
    return tuple(out)


def summary_words(verdict: PlanVerdict, limit: int = MAX_WORDS) -> str:
    words = [*verdict.model, *verdict.changes]
    shown = "; ".join(words[:limit])
    return shown + (f"; and {len(words) - limit} more" if len(words) > limit else "")
