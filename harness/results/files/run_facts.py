"""What ``tlbench report`` says about each item of one run, as data: the table and ``--json`` read it.

Contract: ``run_facts(results, traits_of)`` (and ``facts_of(records, traits_of)`` for session
records carrying their ``status``) returns one ``ItemFacts`` per item: ids, stage, median, rate
and % of peak or bandwidth, vendor ratio (same GPU or shard first), modeled cycles, plan
summary and status words; None where the record does not say.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from ...core.described import record_stage
from ...core.record_reader import RecordReader
from ...core.shard import placement
from .error_text import failure_line
from ..compare.pairing import is_vendor, modeled_cycles_of, problem_of
from .record_fields import Item, Outcome, Record, suite_from
from .store import Results
from ..report.text_table import split_id

TraitsOf = Callable[[str], Any]


@dataclass(frozen=True)
class ItemFacts:
    status: str  # timed | failed | skipped
    suite: str
    kind: str
    backend: str
    case_id: str
    problem_id: str
    config_id: str
    family: str | None
    vendor: bool
    num_stages: int | None
    loop_form: str | None
    median_s: float | None
    samples: int
    method: str | None
    criterion: str | None  # the stopping criterion that ended the sampling
    flag: str | None  # DRIFT / CAPPED: never shown as clean
    tflops: float | None
    gbps: float | None
    bound: str | None  # compute | memory (the roofline's word) | None
    pct_of_peak: float | None
    pct_of_bandwidth: float | None
    peak_known: bool | None  # False: the record says "peak unknown"; None: no roofline recorded
    vendor_ratio: float | None
    vendor_case_id: str | None
    modeled_cycles: float | None
    plan_summary: str | None
    pipeline: str | None
    stage: str | None  # where a failed item failed
    error: str | None
    reason: str | None  # why skipped
    judged: str = ""  # how a device item's output was judged (check_words)

    @property
    def words(self) -> str:
        """The status column: ok with how it was measured, the flag, FAILED and why, skipped and why."""
        if self.status == "failed":
            return f"FAILED {self.error or ''}".strip()
        if self.status == "skipped":
            return f"skipped: {self.reason}"
        how = ", ".join(x for x in (self.method, f"n={self.samples}", self.criterion) if x)
        return f"{self.flag or 'ok'} ({how}{'; ' + self.judged if self.judged else ''})"


def check_words(rec: Record) -> str:
    """How a device record's output was judged: ``checked by <rule>``, ``speed reference, not
    checked`` (a vendor item kept as one), or "" (a record that does not say)."""
    check = rec.check or {}
    if check.get("checked") is False:
        return "speed reference, not checked"
    return f"checked by {check['rule']}" if check.get("rule") else ""


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _stage(item: Item, reader: RecordReader) -> tuple[int | None, str | None]:
    config = item.config
    if not isinstance(config, dict):
        return None, None
    facts = record_stage(item.raw)  # a described kernel's, as its family worded it
    if facts is not None:
        return facts.num_stages, facts.loop_form
    try:
        point = reader.read(item.raw).stage
    except Exception:  # noqa: BLE001 - a family not installed here: the config's own values
        point = None
    if point is not None:
        return point.num_stages, point.loop_form
    stages = config.get("num_stages")
    return (stages if isinstance(stages, int) else None), config.get("loop_form")


def _problem(item: Item) -> str:
    """The problem id without a case label (``-best``): a labelled case competes for its problem."""
    problem = item.problem_id
    if not isinstance(problem, str):
        try:
            problem = problem_of(item)
        except Exception:  # noqa: BLE001 - a record no family here can read: the id decides nothing then
            problem = ""
    label = item.label
    return problem[: -len(label) - 1] if label and problem.endswith(f"-{label}") else problem


def _vendors(records: Iterable[Record]) -> dict[tuple[str, str], list[Record]]:
    out: dict[tuple[str, str], list[Record]] = {}
    for rec in records:
        if rec.kind == "device" and is_vendor(rec):
            out.setdefault((rec.backend, _problem(rec)), []).append(rec)
    return out


def _median(rec: Record) -> float | None:
    value = _num(rec.summary.get("median"))
    return value if value and value > 0 else None


def _vendor_of(rec: Record, vendors: dict[tuple[str, str], list[Record]]) -> Record | None:
    found = vendors.get((rec.backend, _problem(rec))) or []
    same = [v for v in found if placement(v.raw) == placement(rec.raw)] or found
    timed = [v for v in same if _median(v)]
    return min(timed, key=_median) if timed else None


def _rates(rec: Record | None) -> dict[str, Any]:
    throughput, roofline = (rec.throughput, rec.roofline or {}) if rec is not None else ({}, {})
    gbps = _num(throughput.get("gbps_compulsory"))
    bandwidth = _num(roofline.get("bandwidth_tbps"))
    bound = roofline.get("bound") if roofline.get("bound") in ("compute", "memory") else None
    return {
        "tflops": _num(throughput.get("tflops")), "gbps": gbps, "bound": bound,
        "pct_of_peak": _num(throughput.get("pct_of_peak")),
        "pct_of_bandwidth": gbps / (bandwidth * 10) if gbps and bandwidth else None,  # GB/s over TB/s x 1000, in %
        "peak_known": None if not roofline else roofline.get("status") == "ok",
    }


def _facts(item: Record | Outcome, vendors, reader: RecordReader, traits_of: TraitsOf) -> ItemFacts:
    problem, config_id = split_id(item.case_id, _problem(item) or None)
    stages, form = _stage(item, reader)
    rec = item if isinstance(item, Record) else None
    failed, skipped = (None, None) if rec else (item if item.status == "failed" else None,
                                                item if item.status == "skipped" else None)
    summary = rec.summary if rec else {}
    median = _median(rec) if rec else None
    kernel = rec is not None and rec.kind == "device" and not is_vendor(rec)
    vendor = _vendor_of(rec, vendors) if kernel else None
    plan = item.plan if isinstance(item.plan, dict) else None
    try:
        plan_text = traits_of(item.backend).plan_summary(plan) if plan else None
    except Exception:  # noqa: BLE001 - a backend's traits that cannot read this plan: say nothing rather than crash
        plan_text = None
    flag = summary.get("status") if summary.get("status") not in (None, "clean") else None
    return ItemFacts(
        status=item.status if rec is None else "timed",
        suite=item.suite if rec else suite_from(item.nodeid or item.fullname),
        kind=item.kind, backend=item.backend, case_id=item.case_id, problem_id=problem,
        config_id=config_id, family=item.family, vendor=is_vendor(item), num_stages=stages,
        loop_form=form,
        median_s=median, samples=int(summary.get("n") or len(rec.samples_s)) if rec else 0,
        method=rec.method if rec else None,
        criterion=((rec.measurement or {}).get("criterion") or {}).get("name") if rec else None,
        flag=flag if rec else None, **_rates(rec),
        vendor_ratio=(_median(vendor) / median) if vendor is not None and median else None,
        vendor_case_id=vendor.case_id if vendor is not None else None,
        modeled_cycles=modeled_cycles_of(item) if plan else None, plan_summary=plan_text,
        pipeline=((plan or {}).get("pipeline") or {}).get("kind"),
        stage=failed.stage if failed else None,
        error=failure_line(failed.raw) if failed else None,
        reason=str(skipped.reason) if skipped else None,
        judged=check_words(rec) if rec and rec.kind == "device" else "",
    )


def facts_of(records: Iterable[Mapping[str, Any]], traits_of: TraitsOf) -> list[ItemFacts]:
    """Records as the pytest session holds them: each says its ``status`` (timed when absent)."""
    items = [Record.of(r) if r.get("status", "timed") == "timed"
             else Outcome.of(str(r["status"]), r) for r in records]
    reader = RecordReader()
    vendors = _vendors(r for r in items if isinstance(r, Record))
    return [_facts(item, vendors, reader, traits_of) for item in items]


def run_facts(results: Results, traits_of: TraitsOf) -> list[ItemFacts]:
    vendors = _vendors(results.timed)
    reader = RecordReader()
    items = (*results.timed, *results.failures, *results.skips)
    return [_facts(item, vendors, reader, traits_of) for item in items]
