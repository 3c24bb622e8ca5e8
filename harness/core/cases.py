"""Backend-neutral value types: what a benchmark case is, how it is measured, what came out.

Contract: frozen dataclasses that name themselves (``case_id``) and turn into JSON-ready dicts (``to_dict``); no
pytest, tilelang, torch, backend or family here.  A case id is a history key: its format only grows optional
suffixes.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

DTYPE_SHORT = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float8_e4m3": "f8e4m3"}
DTYPE_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4, "float8_e4m3": 1}


@dataclass(frozen=True)
class Case:
    """One kernel variant of one problem, id ``<problem_id>[-<label>]-<config_id>``; ``label`` names a case
    chosen for a reason (``best``: the autotuned winner) so it has its own history."""

    problem: Any
    config: Any
    label: str | None = None

    @property
    def family(self) -> Any:
        return self.problem.family

    @property
    def kernel(self) -> str:
        return self.problem.family.name

    @property
    def case_id(self) -> str:
        middle = f"-{self.label}" if self.label else ""
        return f"{self.problem.problem_id}{middle}-{self.config.config_id}"

    def to_dict(self) -> dict[str, object]:
        return {
            "kernel": self.kernel, "family": self.kernel, "label": self.label, "problem": fields_of(self.problem),
            "config": fields_of(self.config), **_described(self.family, self.problem, self.config)}


def fields_of(value: Any) -> dict[str, object]:
    """A problem's or config's dict: its own ``to_dict()`` where it has one, else ``asdict``."""
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if callable(to_dict) else asdict(value)


PORTABLE_KEY = "one_body"


def _described(family: Any, problem: Any, config: Any = None) -> dict[str, object]:
    """For a self-describing family (harness/core/described.py): ``family_described``, its words for the case
    (``described_as``) and ``one_body`` where it says whether the body lowers for every dialect it names."""
    if not getattr(family, "described", False):
        return {}
    words = getattr(family, "record_words", None)
    portable = getattr(family, "portable", None)
    one_body = portable(problem, config) if callable(portable) else None
    return {"family_described": True, **({"described_as": words(problem, config)} if callable(words) else {}),
            **({PORTABLE_KEY: one_body} if one_body is not None else {})}


VENDOR_SUFFIX = "vendor"


@dataclass(frozen=True)
class VendorCase:
    """A vendor library on the same problem; id ``<problem_id>-<library>``, or ``<problem_id>-vendor`` for the one
    vendor item."""

    problem: Any
    kernel: str = VENDOR_SUFFIX
    library: str | None = field(default=None, kw_only=True)

    @property
    def family(self) -> Any:
        return self.problem.family

    @property
    def case_id(self) -> str:
        return f"{self.problem.problem_id}-{self.library or VENDOR_SUFFIX}"

    def to_dict(self) -> dict[str, object]:
        library = {"library": self.library} if self.library else {}
        return {"kernel": self.kernel, "family": self.problem.family.name, **library, "problem": fields_of(self.problem),
                "config": None, **_described(self.family, self.problem)}


@dataclass(frozen=True)
class CaseIdParts:
    """A case id split back into its parts (``config_id`` ``vendor`` for the problem's vendor item)."""

    problem_id: str
    label: str | None
    config_id: str


@dataclass(frozen=True)
class StagePoint:
    """Where a config sits on the pipeline-depth axis: ``tile`` (the config without its depth keys), ``loop_id``
    (``auto-s3``, ``manual``, ``serial``) and ``num_stages`` where it is a number."""

    tile: str
    loop_id: str
    loop_form: str
    num_stages: int | None

    def point(self) -> "StagePoint":
        return self


@dataclass(frozen=True)
class MeasurePolicy:
    """How device time is sampled (harness/measure/rounds.py): ``rounds`` passes of ``batch`` samples per item
    (round-robin with ``interleave``) after ``warmup`` calls; more rounds until ``criterion`` holds, up to
    ``max_samples`` or ``max_seconds`` (then CAPPED); a batch shift of ``drift_threshold`` is re-measured once, then
    DRIFT.  ``compile_max_seconds`` stops a compile item's rounds after that many CPU seconds (at least one)."""

    warmup: int = 5
    # Six rounds of ten rather than three of twenty: more of the device's power states are sampled
    # (results/main-job-speed/README.md).
    batch: int = 10
    rounds: int = 6
    max_samples: int = 300
    max_seconds: float = 3.0
    criterion: str = "median-ci:rel=0.005"
    interleave: bool = True
    flush_l2: bool = True
    clock_warmup_s: float = 3.0
    throttle_threshold: float = 0.9
    drift_threshold: float = 0.02
    remeasure_on_drift: bool = True
    compile_max_seconds: float | None = None
    # ``search`` "model" (harness/search/live.py): configs in the models' order, at most ``search_fraction``,
    # until the best held for ``search_patience``; fewer than ``search_min_configs``: all; "off": all.
    search: str = "off"
    search_fraction: float = 0.25
    search_patience: int = 8
    search_min_configs: int = 20
    search_learn_from: tuple[str, ...] = ()  # earlier runs' results files the ranker learns from


@dataclass(frozen=True)
class CheckResult:
    """Outcome of comparing a kernel's output with the reference."""

    ok: bool
    max_abs_err: float
    max_rel_err: float
    mismatched: int
    total: int
    rtol: float
    atol: float
    detail: str = ""
    rule: str = ""  # the rule(s) that judged, per output (e.g. "C: steps(1)"); empty: tolerance(rtol, atol)
    checked: bool = True  # False: not judged at all (a vendor item kept as a speed reference)
    non_finite: int = 0  # NaN / infinity where the reference holds no such value; max_*_err are over the rest

    def wrong_result_words(self) -> str:
        """What a failed check says: its detail and the largest error over the finite elements."""
        where = f" over the finite elements, {self.non_finite} non-finite" if self.non_finite else ""
        return f"wrong result: {self.detail}; max abs err {self.max_abs_err:.4g}{where}"

    @property
    def rule_words(self) -> str:
        if not self.checked:
            return "not checked (speed reference)"
        return self.rule or f"tolerance(rtol={self.rtol:g}, atol={self.atol:g})"

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "rule": self.rule_words}


@dataclass
class Plan:
    """What the compiler decided for one case, in one shape for every backend: ``pipeline`` (``kind``: none,
    software-pipeline, warp-specialized, z3-modulo; ``num_stages`` ...), one dict per on-chip buffer (name, scope,
    shape, dtype, versions, bytes), bytes and ``limits`` per scope, and (Ascend) the Z3 ``schedule_model`` in
    cycles."""

    backend: str
    target: str
    pipeline: dict[str, Any]
    buffers: list[dict[str, Any]]
    bytes_per_scope: dict[str, int]
    limits: dict[str, int]
    threads: int | None = None
    features: dict[str, Any] = field(default_factory=dict)
    schedule_model: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, object]:
        return asdict(self)
