"""What ``tlbench report`` says about each item of one run, as data: the table and ``--json`` read it.

Contract: ``run_facts(results, traits_of)`` returns one ``ItemFacts`` per record (timed,
failed, skipped; ``facts_of(records, traits_of)`` for records carrying their own ``status``):
key, problem and config ids, place on the pipeline-depth axis, median, rate (TFLOP/s or, for a
memory-bound kernel, GB/s, with % of peak or bandwidth), the vendor ratio (same GPU or shard
first; above 1 the kernel is faster), modeled cycles, the plan summary and the status words.
Only the plan summary is formatted; None where the record does not say.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from ...core.described import record_stage
from ...core.record_reader import RecordReader
from ...core.shard import placement
from .error_text import failure_line
from ..compare.pairing import is_vendor, modeled_cycles_of, problem_of
from .store import Results, suite_of
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


def check_words(rec: Mapping[str, Any]) -> str:
    """How a device record's output was judged: ``checked by <rule>``, ``speed reference, not
    checked`` (a vendor item kept as one), or "" (a record that does not say)."""
    check = rec.get("check") or {}
    if check.get("checked") is False:
        return "speed reference, not checked"
    return f"checked by {check['rule']}" if check.get("rule") else ""


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _stage(rec: Mapping[str, Any], reader: RecordReader) -> tuple[int | None, str | None]:
    config = rec.get("config")
    if not isinstance(config, dict):
        return None, None
    facts = record_stage(rec)  # a described kernel's, as its family worded it
    if facts is not None:
        return facts.num_stages, facts.loop_form
    try:
        point = reader.read(rec).stage
    except Exception:  # noqa: BLE001 - a family not installed here: the config's own values
        point = None
    if point is not None:
        return point.num_stages, point.loop_form
    stages = config.get("num_stages")
    return (stages if isinstance(stages, int) else None), config.get("loop_form")


def _problem(rec: Mapping[str, Any]) -> str:
    """The problem id without a case label (``-best``): a labelled case competes for its problem."""
    problem = rec.get("problem_id")
    if not isinstance(problem, str):
        try:
            problem = problem_of(rec)
        except Exception:  # noqa: BLE001 - a record no family here can read: the id decides nothing then
            problem = ""
    label = rec.get("label")
    return problem[: -len(label) - 1] if label and problem.endswith(f"-{label}") else problem


def _vendors(records: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], list[Mapping[str, Any]]]:
    out: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for rec in records:
        if rec.get("kind") == "device" and is_vendor(rec):
            out.setdefault((str(rec.get("backend")), _problem(rec)), []).append(rec)
    return out


def _median(rec: Mapping[str, Any]) -> float | None:
    value = _num((rec.get("summary") or {}).get("median"))
    return value if value and value > 0 else None


def _vendor_of(rec: Mapping[str, Any], vendors: dict[tuple[str, str], list[Mapping[str, Any]]]) -> Mapping[str, Any] | None:
    found = vendors.get((str(rec.get("backend")), _problem(rec))) or []
    same = [v for v in found if placement(v) == placement(rec)] or found
    timed = [v for v in same if _median(v)]
    return min(timed, key=_median) if timed else None


def _rates(rec: Mapping[str, Any]) -> dict[str, Any]:
    throughput, roofline = rec.get("throughput") or {}, rec.get("roofline") or {}
    gbps = _num(throughput.get("gbps_compulsory"))
    bandwidth = _num(roofline.get("bandwidth_tbps"))
    bound = roofline.get("bound") if roofline.get("bound") in ("compute", "memory") else None
    return {
        "tflops": _num(throughput.get("tflops")), "gbps": gbps, "bound": bound,
        "pct_of_peak": _num(throughput.get("pct_of_peak")),
        "pct_of_bandwidth": gbps / (bandwidth * 10) if gbps and bandwidth else None,  # GB/s over TB/s x 1000, in %
        "peak_known": None if not roofline else roofline.get("status") == "ok",
    }


def _facts(rec: Mapping[str, Any], status: str, vendors, reader: RecordReader, traits_of: TraitsOf) -> ItemFacts:
    case_id = str(rec.get("case_id", "?"))
    problem, config_id = split_id(case_id, _problem(rec) or None)
    stages, form = _stage(rec, reader)
    summary = rec.get("summary") or {}
    timed = status == "timed"
    median = _median(rec) if timed else None
    vendor = _vendor_of(rec, vendors) if timed and rec.get("kind") == "device" and not is_vendor(rec) else None
    plan = rec.get("plan") if isinstance(rec.get("plan"), dict) else None
    try:
        plan_text = traits_of(str(rec.get("backend"))).plan_summary(plan) if plan else None
    except Exception:  # noqa: BLE001 - a backend's traits that cannot read this plan: say nothing rather than crash
        plan_text = None
    flag = summary.get("status") if summary.get("status") not in (None, "clean") else None
    return ItemFacts(
        status=status, suite=suite_of(rec if timed else {"nodeid": rec.get("nodeid") or rec.get("fullname")}),
        kind=str(rec.get("kind", "?")), backend=str(rec.get("backend", "?")), case_id=case_id, problem_id=problem,
        config_id=config_id, family=rec.get("family"), vendor=is_vendor(rec), num_stages=stages, loop_form=form,
        median_s=median, samples=int(summary.get("n") or len(rec.get("samples_s") or ())) if timed else 0,
        method=rec.get("method") if timed else None,
        criterion=((rec.get("measurement") or {}).get("criterion") or {}).get("name") if timed else None, flag=flag if timed else None, **(_rates(rec) if timed else _rates({})),
        vendor_ratio=(_median(vendor) / median) if vendor is not None and median else None,
        vendor_case_id=vendor.get("case_id") if vendor is not None else None,
        modeled_cycles=modeled_cycles_of(rec) if plan else None, plan_summary=plan_text,
        pipeline=((plan or {}).get("pipeline") or {}).get("kind"),
        stage=rec.get("stage") if status == "failed" else None,
        error=failure_line(rec) if status == "failed" else None,
        reason=str(rec.get("reason")) if status == "skipped" else None,
        judged=check_words(rec) if timed and rec.get("kind") == "device" else "",
    )


def facts_of(records: Iterable[Mapping[str, Any]], traits_of: TraitsOf) -> list[ItemFacts]:
    """Records as the pytest session holds them: each says its ``status`` (timed when absent)."""
    records = list(records)
    reader = RecordReader()
    vendors = _vendors(r for r in records if r.get("status", "timed") == "timed")
    return [_facts(rec, str(rec.get("status", "timed")), vendors, reader, traits_of) for rec in records]


def run_facts(results: Results, traits_of: TraitsOf) -> list[ItemFacts]:
    reader = RecordReader()
    vendors = _vendors(results.records)
    groups = (("timed", results.records), ("failed", results.failed), ("skipped", results.skipped))
    return [_facts(rec, status, vendors, reader, traits_of) for status, records in groups for rec in records]
