"""The Ascend backend: tilelang's Ascend 950 path (EstimateLatency, Z3 AutoSchedule,
multi-buffer), recorded for every config; timed on an NPU only where one exists.

Contract (harness/core/backend_api.py; skeleton backends/backend_base.py): ``compile`` lowers to
AscendC on any machine and returns the plan with the Z3 schedule under ``schedule_model``
(modeled cycles, never a time); where torch_npu, bisheng and an NPU exist it also builds and
times with ``torch.npu.Event``.
"""

from __future__ import annotations

import time
from functools import cached_property
from typing import Any

import tilelang
from tilelang.ascend.target import _make_ascend_target

from . import limits, npu
from .schedule import PIPES, ScheduleFacts, install_z3_recorders, lower_with_schedule
from .profiles import PROFILES
from .traits import TRAITS
from ..backend_base import TileLangBackend, out_idx
from ..dtype_sizes import buffer_bytes
from ..symbolic_shapes import product
from tlbench.harness.core import budget, space
from tlbench.harness.core.backend_api import BackendOptions, Compiled, CompileError, compile_failure_words
from tlbench.harness.core.cases import Case, Plan, VendorCase
from tlbench.harness.core import kernel_traits as ask
from tlbench.harness.core.device_profile import DeviceProfile

TARGET_NAME = "ascend dav-3510"


def _core_pipelining(facts: ScheduleFacts) -> dict[str, Any] | None:
    """Does tile t's Vector work overlap tile t+1's Cube work?  Read off the tile loop."""
    if len(facts.loops) < 2:
        return None
    tile_loop = facts.loops[-1]
    vector = [t for t in tile_loop["tasks"] if "Vector" in t["pipes"] or (t["cores"] or []) == ["AIV"]]
    cube = [t for t in tile_loop["tasks"] if "Cube" in t["pipes"]]
    if not vector or not cube:
        return {"applicable": False, "why": "the tile loop has no Vector work" if not vector else "no Cube work"}
    ii, span = tile_loop["ii"], tile_loop["span"]
    cube_start = min(t["start"] for t in cube)
    cube_end = max(t["start"] + t["latency"] for t in cube)
    vector_start = min(t["start"] for t in vector)
    vector_end = max(t["start"] + t["latency"] for t in vector)
    # Tile t+1's Cube work occupies [cube_start + ii, cube_end + ii) in tile t's frame.
    overlap = max(0, min(vector_end, cube_end + ii) - max(vector_start, cube_start + ii))
    return {"applicable": True, "tile_loop_ii_cycles": ii, "tile_loop_span_cycles": span,
            "vector_window_cycles": [vector_start, vector_end],
            "next_tile_cube_start_cycles": cube_start + ii, "overlap_cycles": overlap,
            "overlaps": overlap > 0, "ii_over_span": round(ii / span, 4) if span else None}


def _plan(case: Case, facts: ScheduleFacts) -> Plan:
    """The common plan shape, from the recorded schedule."""
    buffers = []
    bytes_per_scope: dict[str, int] = {}
    for name, buf in facts.buffers.items():
        versions = facts.buffer_versions.get(name, 1)
        scope = "shared.ub" if buf["scope"] == "shared.dyn" else buf["scope"]
        sized = all(isinstance(d, int) for d in buf["shape"])  # a symbolic shape has no value here
        size = versions * buffer_bytes(buf["shape"], buf["dtype"]) if sized else None
        buffers.append({"name": name, "scope": scope, "shape": buf["shape"], "dtype": buf["dtype"], "versions": versions, "bytes": size})
        if sized:
            bytes_per_scope[scope] = bytes_per_scope.get(scope, 0) + size
    inner = facts.loops[0] if facts.loops else None
    traits = ask.kernel_traits(case, AscendBackend.dialect)
    pipeline = {"kind": "z3-modulo", "loop_form": traits.loop_form, "num_stages": traits.num_stages,
                "enable_offset": traits.enable_offset,
                "loop_ii_cycles_model": inner["ii"] if inner else None}
    model = {
        "unit": "cycles (tilelang EstimateLatency + Z3 schedule; a model, not a measurement)",
        "modeled_cycles_per_core": facts.modeled_cycles_per_core,
        # what that number covers: the outermost scheduled loop.  Non-persistent (one block per
        # output tile): that is one tile's K loop, not a per-core total; persistent: the tile loop.
        "modeled_cycles_scope": "per core (the persistent tile loop)" if traits.num_cores
        else "one tile's K loop (non-persistent kernel: not a per-core total)",
        "loops": facts.loops, "straight_line": facts.straight_line,
        "core_pipelining": _core_pipelining(facts), "mixed_kernel": facts.mixed_kernel,
        "pipes": [name for name, _ in PIPES], "missing": facts.missing,
    }
    return Plan(
        backend=TRAITS.name, target=TARGET_NAME, pipeline=pipeline, buffers=buffers,
        bytes_per_scope=bytes_per_scope,
        limits=limits.limits(case.family.footprint(case.problem, case.config, AscendBackend.dialect, limits.scopes())),
        threads=None, schedule_model=model,
        features={"cores": traits.num_cores, "mixed_aic_aiv": facts.mixed_kernel, "source_sha256": facts.source_sha256,
                  "grid": product(facts.grid_dims), "grid_dims": facts.grid_dims,
                  **({"symbolic": facts.symbolic} if facts.symbolic else {})})


class AscendBackend(TileLangBackend):
    traits = TRAITS
    target_kind = "ascend"
    target_label = TARGET_NAME
    profiles = PROFILES
    lowered_phase = "lower_and_schedule"

    def __init__(self, options: BackendOptions) -> None:
        install_z3_recorders()
        self._probe: npu.NpuProbe | None = None

    @cached_property
    def target(self) -> Any:
        return _make_ascend_target()

    def _npu(self) -> npu.NpuProbe:
        if self._probe is None:
            self._probe = npu.probe()
        return self._probe

    def device_blocker(self) -> str | None:
        return self._npu().reason

    def device_info(self) -> dict[str, Any]:
        probe = self._npu()
        found = probe.versions
        return {"backend": self.name, "target": TARGET_NAME, "tilelang": tilelang.__version__,
                "accelerator": found.get("npu"), "torch_npu": found.get("torch_npu"),
                "bisheng": found.get("bisheng"), "cann": found.get("cann"), "missing": probe.reason}

    def calibrate(self, seconds: float = 30.0) -> DeviceProfile:
        """Measure this NPU's profile (torch_npu matmul, a device copy): see backends/calibrate.py."""
        reason = self.device_blocker()
        if reason:
            raise RuntimeError(f"no NPU to calibrate: {reason}")
        import torch

        from ..calibrate import calibrate

        return calibrate(torch.npu, torch.device("npu", torch.npu.current_device()),
                         self.device_info().get("accelerator") or "NPU", seconds)

    def lowering_key(self) -> str:
        """What, besides the kernel, decides the lowered source: the compiler and the target."""
        return f"tilelang {tilelang.__version__}; {TARGET_NAME}; {self.target}"

    def scopes(self) -> tuple[budget.Scope, ...]:
        return limits.scopes()

    def rejection(self, case: Case) -> space.Rejection | None:
        return limits.rejection(case)

    def _func_and_target(self, case: Case) -> tuple[Any, Any]:
        target = self._target_for(case)
        return self._build(case), target

    def _lower_with_facts(self, func, target, pass_configs, shape_values):
        return lower_with_schedule(func, target, pass_configs, shape_values)

    def warm_up_kernels(self) -> tuple:
        from .compile_warm_up import KERNELS

        return KERNELS

    def _plan(self, case: Case, facts: ScheduleFacts, built: bool = False) -> Plan:
        plan = _plan(case, facts)
        plan.features.update(self._test_only_words(case))  # TEST ONLY: lowered with a test-only change
        return plan

    def compile(self, case: Case, cold: bool) -> Compiled:
        phases: dict[str, float] = {}
        handle = None
        try:
            func, facts = self._lower(case, phases, self._compile_slowdown)
            if self.device_blocker() is None:  # bisheng, torch_npu and an NPU are all here
                start = time.perf_counter()
                handle = tilelang.compile(func, target="ascend", pass_configs=self.pass_configs(case),
                                          out_idx=out_idx(case, self.dialect))
                phases["build"] = time.perf_counter() - start
        except Exception as exc:
            raise CompileError(compile_failure_words(exc)) from exc
        return Compiled(case=case, handle=handle, plan=self._plan(case, facts, handle is not None),
                        compile_seconds=phases["lower_and_schedule"], phases_s=phases)

    def make_inputs(self, problem: Any, seed: int, config: Any = None) -> dict[str, Any]:
        return ask.make_inputs(problem, seed, "npu", self.dialect, config)

    def _synchronize(self) -> None:
        import torch

        torch.npu.synchronize()

    def timer(self, runnable: Compiled | VendorCase, inputs: dict[str, Any], flush_l2: bool) -> npu.NpuTimer:
        run, label = self._runner(runnable, inputs, timed=True)
        timer = npu.NpuTimer(run, flush_l2, "npu")
        if label:
            timer.notes.append(f"vendor item: {label}")
        return timer
