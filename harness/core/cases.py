"""Backend-neutral value types: what a benchmark case is, how it is measured, what came out.

Contract: frozen dataclasses with no behaviour beyond naming themselves (``case_id``) and turning into JSON-ready
dicts (``to_dict``).  Nothing here knows about pytest, tilelang, torch, a particular backend or a particular kernel
family (those bring their own problem and config types: backends/kernels/).  A ``Case`` id is a history key: results
are compared across runs and backends by it, so its format only ever grows new optional suffixes.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

MeasureKind = Literal["compile", "device"]

DTYPE_SHORT = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float8_e4m3": "f8e4m3"}
DTYPE_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4, "float8_e4m3": 1}


@dataclass(frozen=True)
class Case:
    """One kernel variant of one problem: the unit that compiles, checks and is timed.

    ``problem`` and ``config`` are a kernel family's types (``problem.family`` is the family, see
    harness/core/family.py).  ``label`` names a case chosen for a reason (``best``: the autotuned winner); it goes
    into the id so the named case has its own history.  The id is ``<problem_id>[-<label>]-<config_id>`` for every
    family.
    """

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

    def to_dict(self) -> dict[str, Any]:
        return {
            "kernel": self.kernel, "family": self.kernel, "label": self.label, "problem": fields_of(self.problem),
            "config": fields_of(self.config), **_described(self.family, self.problem, self.config),
        }


def fields_of(value: Any) -> dict[str, Any]:
    """A problem's or config's dict: its own ``to_dict()`` where it has one, else ``asdict``."""
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if callable(to_dict) else asdict(value)


PORTABLE_KEY = "one_body"


def _described(family: Any, problem: Any, config: Any = None) -> dict[str, Any]:
    """``{"family_described": True}`` and the family's words for the case (``described_as``: ids, labels, stage
    point) for a family whose records describe themselves (harness/core/described.py), so readers without the family
    read them as it wrote them; and ``one_body`` (``PORTABLE_KEY``) where the family says whether the config's body
    is the one body that lowers for every dialect it names (``family.portable``: True) or a target-specific kernel
    (False)."""
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
    """A vendor library on the same problem (cuBLAS via torch, torch_npu matmul, one of torch SDPA's kernels).
    ``library`` names it where a problem has several (id ``<problem_id>-<library>``); None: the one vendor item
    (``<problem_id>-vendor``)."""

    problem: Any
    kernel: str = VENDOR_SUFFIX
    library: str | None = field(default=None, kw_only=True)

    @property
    def family(self) -> Any:
        return self.problem.family

    @property
    def case_id(self) -> str:
        return f"{self.problem.problem_id}-{self.library or VENDOR_SUFFIX}"

    def to_dict(self) -> dict[str, Any]:
        library = {"library": self.library} if self.library else {}
        return {"kernel": self.kernel, "family": self.problem.family.name, **library, "problem": fields_of(self.problem),
                "config": None, **_described(self.family, self.problem)}


@dataclass(frozen=True)
class CaseIdParts:
    """A case id split back into its parts: ``problem_id``, optional ``label``, ``config_id`` (``vendor`` for the
    vendor item of the problem)."""

    problem_id: str
    label: str | None
    config_id: str


@dataclass(frozen=True)
class StagePoint:
    """Where a config sits on the pipeline-depth axis: ``tile`` names the config without its depth keys
    (``128x256x64 t256``), ``loop_id`` the depth (``auto-s3``, ``manual``, ``serial``) and ``num_stages`` it as a
    number where it has one."""

    tile: str
    loop_id: str
    loop_form: str
    num_stages: int | None


@dataclass(frozen=True)
class MeasurePolicy:
    """How device time is sampled (harness/measure/rounds.py applies it).

    ``rounds`` round-robin passes over the items (``interleave``; else one item at a time), each taking ``batch``
    samples of every item, after ``warmup`` discarded calls per item and a clock warmup of at most
    ``clock_warmup_s``; more rounds run for items whose ``criterion`` (``NAME[:key=value,...]``,
    harness/measure/criteria.py) is not met, up to ``max_samples`` samples or ``max_seconds`` of sampling per item
    (then CAPPED).  A batch median shift or trend of ``drift_threshold`` or more is drift: re-measured once, then
    DRIFT. Compile items (harness/measure/runner.py::run_compile_items): with ``compile_max_seconds`` an item's
    rounds stop once they took that many CPU seconds (at least one round; its record says so).
    """

    warmup: int = 5
    # Ten samples in each of six rounds rather than twenty in three: the same samples, twice the
    # interleaved rounds.  An item's rounds then sample more of the device's power states (an
    # H200 at its power cap holds one for seconds), and a kernel with two levels shows both
    # (results/main-job-speed/README.md: the A/A of the main job both ways, one session).
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
    # ``search`` "model": a problem's configs are measured in the order the pipeline models ask
    # (harness/search/live.py), at most ``search_fraction`` of them, stopping once the best held
    # for ``search_patience`` model-chosen measurements; problems with fewer than
    # ``search_min_configs`` configs are measured whole; ``search_learn_from``: earlier runs' results
    # files whose timed configs of the same kernel, backend and device teach the ranker.  "off": every config.
    search: str = "off"
    search_fraction: float = 0.25
    search_patience: int = 8
    search_min_configs: int = 20
    search_learn_from: tuple[str, ...] = ()  # results files of earlier runs the ranker learns from


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

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "rule": self.rule_words}


@dataclass
class Plan:
    """What the compiler decided for one case, in one shape for every backend.

    ``pipeline``: {"kind": "none" | "software-pipeline" | "warp-specialized" | "z3-modulo", "num_stages", "stage",
    "order", ...}.  ``buffers``: one dict per on-chip buffer with name, scope, shape (declared tile), dtype,
    versions, bytes (all versions). ``bytes_per_scope`` sums ``buffers``; ``limits`` are the capacities of those
    scopes. ``schedule_model`` (Ascend) holds the Z3 schedule in modeled cycles: never a time.
    """

    backend: str
    target: str
    pipeline: dict[str, Any]
    buffers: list[dict[str, Any]]
    bytes_per_scope: dict[str, int]
    limits: dict[str, int]
    threads: int | None = None
    features: dict[str, Any] = field(default_factory=dict)
    schedule_model: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
