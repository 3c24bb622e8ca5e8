"""Backend-neutral value types: what a benchmark case is, how it is measured, what came out.

Contract: frozen dataclasses with no behaviour beyond naming themselves (``case_id``) and
turning into JSON-ready dicts (``to_dict``).  Nothing here knows about pytest, tilelang,
torch or a particular backend.  A ``Case`` id is a history key: results are compared across
runs and backends by it, so its format only ever grows new optional suffixes.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

LoopForm = Literal["auto", "manual", "serial"]
MeasureKind = Literal["compile", "device"]

DTYPE_SHORT = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float8_e4m3": "f8e4m3"}
DTYPE_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4, "float8_e4m3": 1}


@dataclass(frozen=True)
class GemmProblem:
    """``C = A @ B^T`` with A (M, K), B (N, K); optional fused epilogue (``"relu"``)."""

    M: int
    N: int
    K: int
    dtype: str = "float16"
    accum_dtype: str = "float32"
    out_dtype: str | None = None  # None: same as dtype
    epilogue: str | None = None

    @property
    def output_dtype(self) -> str:
        return self.out_dtype or self.dtype

    @property
    def flops(self) -> int:
        return 2 * self.M * self.N * self.K

    @property
    def bytes_moved(self) -> int:
        """Compulsory DRAM traffic: read A and B once, write C once."""
        ab = (self.M * self.K + self.N * self.K) * DTYPE_BYTES[self.dtype]
        return ab + self.M * self.N * DTYPE_BYTES[self.output_dtype]

    @property
    def problem_id(self) -> str:
        kind = "gemm" if self.epilogue is None else f"gemm_{self.epilogue}"
        out = "" if self.out_dtype in (None, self.dtype) else f"-o{DTYPE_SHORT[self.out_dtype]}"
        return f"{kind}-{self.M}x{self.N}x{self.K}-{DTYPE_SHORT[self.dtype]}{out}"


@dataclass(frozen=True)
class GemmConfig:
    """Tile, threads and loop schedule of one kernel variant.

    ``loop_form``: ``auto`` is ``T.Pipelined(n, num_stages=num_stages)``; ``manual`` is
    ``T.Pipelined(n, stage=[0, 0, 1], order=[0, 1, 2])`` (no num_stages, depth 2);
    ``serial`` is ``T.serial(n)``.  ``num_cores`` set: a persistent kernel of that many
    blocks walks the output tiles (``T.Persistent``); unset: one block per output tile.
    ``enable_offset`` asks tilelang's Ascend scheduler for a real prologue/body/epilogue
    software pipeline.  ``group_m`` rasterizes the 1-D grid in panels of that many tile rows
    (L2 reuse; what ``T.use_swizzle`` does on a 2-D grid).  ``stage_output`` routes the
    accumulator through an on-chip buffer before the global store, where the target has
    one for that (CUDA shared memory; the Ascend path stores L0C through Fixpipe anyway).
    """

    block_M: int
    block_N: int
    block_K: int
    threads: int = 128
    loop_form: LoopForm = "auto"
    num_stages: int | None = 2
    num_cores: int | None = None
    enable_offset: bool = False
    group_m: int | None = None
    stage_output: bool = False

    def __post_init__(self) -> None:
        if self.loop_form not in ("auto", "manual", "serial"):
            raise ValueError(f"loop_form must be auto, manual or serial, got {self.loop_form!r}")
        if self.loop_form == "auto" and (self.num_stages is None or self.num_stages < 0):
            raise ValueError("loop_form='auto' needs num_stages >= 0")
        if self.loop_form != "auto" and self.num_stages is not None:
            raise ValueError(f"loop_form={self.loop_form!r} takes no num_stages (got {self.num_stages})")

    @property
    def loop_id(self) -> str:
        if self.loop_form == "auto":
            return f"auto-s{self.num_stages}"
        return self.loop_form

    @property
    def pipeline_depth(self) -> int:
        """Buffer versions the loop asks for: num_stages (0 and 1 mean one), manual: 2."""
        if self.loop_form == "manual":
            return 2
        if self.loop_form == "serial":
            return 1
        return max(1, int(self.num_stages or 0))

    @property
    def config_id(self) -> str:
        parts = [f"bm{self.block_M}", f"bn{self.block_N}", f"bk{self.block_K}", f"t{self.threads}"]
        if self.num_cores is not None:
            parts.append(f"c{self.num_cores}")
        if self.group_m is not None:
            parts.append(f"g{self.group_m}")
        if self.stage_output:
            parts.append("so")
        parts.append(self.loop_id)
        if self.enable_offset:
            parts.append("offset")
        return "-".join(parts)


@dataclass(frozen=True)
class Case:
    """One kernel variant of one problem: the unit that compiles, checks and is timed.

    ``label`` names a case chosen for a reason (``best``: the autotuned winner); it goes
    into the id so the named case has its own history.
    """

    problem: GemmProblem
    config: GemmConfig
    kernel: str = "gemm"
    label: str | None = None

    @property
    def case_id(self) -> str:
        middle = f"-{self.label}" if self.label else ""
        return f"{self.problem.problem_id}{middle}-{self.config.config_id}"

    def to_dict(self) -> dict[str, Any]:
        return {"kernel": self.kernel, "label": self.label, "problem": asdict(self.problem), "config": asdict(self.config)}


@dataclass(frozen=True)
class VendorCase:
    """The vendor library on the same problem (cuBLAS via torch, torch_npu matmul)."""

    problem: GemmProblem
    kernel: str = "vendor"

    @property
    def case_id(self) -> str:
        return f"{self.problem.problem_id}-vendor"

    def to_dict(self) -> dict[str, Any]:
        return {"kernel": self.kernel, "problem": asdict(self.problem), "config": None}


@dataclass(frozen=True)
class MeasurePolicy:
    """How device time is sampled (harness/measure/rounds.py applies it).

    ``rounds`` round-robin passes over the items (``interleave``; else one item at a time),
    each taking ``batch`` samples of every item, after ``warmup`` discarded calls per item and
    a clock warmup of at most ``clock_warmup_s``; more rounds run for items whose
    ``criterion`` (``NAME[:key=value,...]``, harness/measure/criteria.py) is not met, up to
    ``max_samples`` samples or ``max_seconds`` of sampling per item (then CAPPED).  A batch
    median shift or trend of ``drift_threshold`` or more is drift: re-measured once, then DRIFT.
    """

    warmup: int = 5
    batch: int = 20
    rounds: int = 3
    max_samples: int = 300
    max_seconds: float = 3.0
    criterion: str = "median-ci:rel=0.005"
    interleave: bool = True
    flush_l2: bool = True
    clock_warmup_s: float = 3.0
    throttle_threshold: float = 0.9
    drift_threshold: float = 0.02
    remeasure_on_drift: bool = True


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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Plan:
    """What the compiler decided for one case, in one shape for every backend.

    ``pipeline``: {"kind": "none" | "software-pipeline" | "warp-specialized" | "z3-modulo",
    "num_stages", "stage", "order", ...}.  ``buffers``: one dict per on-chip buffer with
    name, scope, shape (declared tile), dtype, versions, bytes (all versions).
    ``bytes_per_scope`` sums ``buffers``; ``limits`` are the capacities of those scopes.
    ``schedule_model`` (Ascend) holds the Z3 schedule in modeled cycles: never a time.
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
