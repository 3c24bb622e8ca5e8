"""The stage report's data: ``StageReport`` of ``TileGroup``s of ``StageLine``s, with a ``StageVerdict``.

Contract: frozen dataclasses; device time (seconds, measured) and model cycles (never a time) are kept apart in
every field, and ``TileGroup.basis`` says which one a group's speedups use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import timeline_fit

TOLERANCE = 0.02  # recommend: smallest num_stages within 2 % of the best
STAGE_KEYS = ("loop_form", "num_stages")  # config fields that vary inside one tile group


class StageReportError(ValueError):
    """The document holds nothing a stage report can use; ``str()`` says what to do."""


@dataclass(frozen=True)
class LoopLatencies:
    """Per-K-step model cycles of an Ascend loop (``EstimateLatency``): ``latency`` until the last operand is in
    place, ``issue`` the busiest copy pipe's hold, ``compute`` the compute tasks back to back; ``copies`` /
    ``computes``: ``(name, pipe, latency, ii)``."""

    latency: float
    compute: float
    issue: float
    copy_pipe: str
    copies: tuple[tuple[str, str, float, float], ...]
    computes: tuple[tuple[str, str, float, float], ...]


@dataclass(frozen=True)
class StageLine:
    """One ``T.Pipelined`` variant of a tile (see the module docstring for the units)."""

    label: str  # "0".."4" for auto, "manual", "serial"
    loop_form: str
    num_stages: int | None
    case_id: str
    status: str  # "ok" | "failed (<stage>): ..." | "skipped: ..."
    path: str  # the pipeline the compiler chose
    versions: str  # buffer versions of the pipelined operands, "A/B"
    measured_s: float | None = None  # device median, seconds
    method: str = ""
    modeled_cycles: float | None = None  # Z3 cycles per core (model)
    loop_cycles: float | None = None  # Z3 cycles of the K loop (model)
    ii_cycles: float | None = None  # Z3 initiation interval of the K loop (model)
    speedup_vs_1: float | None = None  # on the group's basis
    speedup_vs_0: float | None = None
    predicted: float | None = None  # NVIDIA: seconds (fit); Ascend: K-loop cycles (model)
    predicted_ii: float | None = None  # Ascend: timeline model's steady interval (cycles)
    relative_error: float | None = None  # (predicted - reference) / reference
    onchip_scope: str = ""
    onchip_bytes: int | None = None
    onchip_limit: int | None = None


@dataclass(frozen=True)
class StageVerdict:
    recommended: int | None  # smallest auto num_stages within 2 % of the best
    best: int | None
    min_sufficient_depth: int | None  # model: 1 + ceil(latency / compute)
    model_recommended: int | None  # model: smallest depth within 2 % of its best
    budget_max_stages: int | None  # deepest num_stages whose buffers fit on chip
    why: str
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class TileGroup:
    backend: str
    testbed: str
    kernel: str
    problem: str  # "8192x8192x8192 f16"
    tile: str  # "128x256x64 t256"
    iterations: int | None  # K steps per block (the model's iterations)
    basis: str  # "device" | "model" | "none"
    rows: tuple[StageLine, ...]
    fit: timeline_fit.Fit | None = None  # NVIDIA
    fit_without_1: timeline_fit.Fit | None = None  # NVIDIA, num_stages >= 2 only (diagnostic)
    prediction: timeline_fit.Prediction | None = None  # Ascend
    latencies: LoopLatencies | None = None  # Ascend
    model_note: str = ""  # why there is no model, when there is none
    verdict: StageVerdict | None = None
    scheduled: bool = False  # the plans carry a compiler's schedule model (cycles, a model)
    vendor_s: float | None = None  # the problem's vendor item, device median (same GPU or shard first)
    vendor_case: str | None = None

    def best_point(self) -> StageLine | None:
        """The fastest measured variant (device time), or None without device times."""
        timed = [r for r in self.rows if r.measured_s]
        return min(timed, key=lambda r: (r.measured_s, r.num_stages or 0)) if timed else None

    def vendor_ratio(self) -> float | None:
        """The vendor item's median over the best variant's (above 1: the kernel is faster)."""
        best = self.best_point()
        return self.vendor_s / best.measured_s if best is not None and self.vendor_s else None

    @property
    def key(self) -> str:
        """File-name form: ``ascend-gemm-8192x8192x8192-f16-128x256x64-t256``."""
        return re.sub(r"[^A-Za-z0-9]+", "-", f"{self.backend}-{self.kernel}-{self.problem}-{self.tile}").strip("-")

    def row(self, num_stages: int) -> StageLine | None:
        return next((r for r in self.rows if r.loop_form == "auto" and r.num_stages == num_stages), None)


@dataclass(frozen=True)
class StageReport:
    groups: tuple[TileGroup, ...]
    ignored: tuple[str, ...] = ()  # items left out, with why
    vendors: int = 0  # vendor items in the file (the reference of the groups, not groups themselves)

    @property
    def swept(self) -> tuple[TileGroup, ...]:
        """The groups with two or more variants: what a stage report compares."""
        return tuple(g for g in self.groups if len(g.rows) >= 2)

    @property
    def single(self) -> tuple[TileGroup, ...]:
        """Tiles measured at one depth only (a tile sweep's): nothing to compare within them."""
        return tuple(g for g in self.groups if len(g.rows) < 2)


