"""The Ascend backend: tilelang's Ascend 950 path (EstimateLatency, Z3 AutoSchedule,
multi-buffer), recorded for every config; timed on an NPU only where one exists.

Contract (see harness/core/backend_api.py): ``compile`` lowers to AscendC on any machine and
returns the plan with the Z3 schedule under ``schedule_model`` (modeled cycles, never a
time); where bisheng exists it also builds the binary.  ``device_blocker`` names what
is missing for a run (torch_npu / its import error, bisheng, an NPU).  ``measure`` times
with ``torch.npu.Event`` after an L2 flush, on the NPU, and nowhere else.  What it needs of a
case besides its body it asks through harness/core/kernel_traits.py (it imports no kernel
family): the pass configs reach ``lower_with_schedule``'s PassContext and the bisheng build
alike (the recorded schedule is the built kernel's), ``out_idx`` the build and the call
(backends/kernel_call.py); vendor items are the family's ``vendor_call``; the UB capacity a
plan reports are those the family's footprint is checked against (UB with SIMT code: ``simt``).
"""

from __future__ import annotations

import time
from typing import Any

import tilelang
from tilelang.ascend.target import _make_ascend_target

from tlbench.backends.output_poison import poison
from tlbench.backends.ascend import limits, npu
from tlbench.backends.ascend.schedule import PIPES, ScheduleFacts, install_z3_recorders, lower_with_schedule
from tlbench.backends.ascend.profiles import PROFILES
from tlbench.backends.ascend.traits import TRAITS
from tlbench.backends.build_options import out_idx, refuse_foreign_target
from tlbench.backends.dtype_sizes import buffer_bytes
from tlbench.backends.symbolic_shapes import product
from tlbench.backends.kernel_call import kernel_runner
from tlbench.harness.core import budget
from tlbench.harness.core import space
from tlbench.harness.core.backend_api import BackendOptions, Compiled, CompileError, compile_failure_words
from tlbench.harness.core.cases import Case, CheckResult, Plan, VendorCase
from tlbench.harness.core import kernel_traits as ask
from tlbench.harness.core.device_profile import DeviceProfile, match_profile

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
    next_cube_start = cube_start + ii
    return {
        "applicable": True,
        "tile_loop_ii_cycles": ii,
        "tile_loop_span_cycles": span,
        "vector_window_cycles": [vector_start, vector_end],
        "next_tile_cube_start_cycles": next_cube_start,
        "overlap_cycles": overlap,
        "overlaps": overlap > 0,
        "ii_over_span": round(ii / span, 4) if span else None,
    }


def _plan(case: Case, facts: ScheduleFacts) -> Plan:
    """The common plan shape, from the recorded schedule."""
    buffers = []
    bytes_per_scope: dict[str, int] = {}
    for name, buf in facts.buffers.items():
        versions = facts.buffer_versions.get(name, 1)
        scope = "shared.ub" if buf["scope"] == "shared.dyn" else buf["scope"]
        if not all(isinstance(d, int) for d in buf["shape"]):  # a symbolic on-chip shape with no value here
            buffers.append({"name": name, "scope": scope, "shape": buf["shape"], "dtype": buf["dtype"], "versions": versions, "bytes": None})
            continue
        size = versions * buffer_bytes(buf["shape"], buf["dtype"])  # the dtype's real size (fp8: 1 byte, int4: half)
        buffers.append({"name": name, "scope": scope, "shape": buf["shape"], "dtype": buf["dtype"], "versions": versions, "bytes": size})
        bytes_per_scope[scope] = bytes_per_scope.get(scope, 0) + size
    inner = facts.loops[0] if facts.loops else None
    traits = ask.kernel_traits(case, AscendBackend.dialect)
    pipeline = {
        "kind": "z3-modulo",
        "loop_form": traits.loop_form,
        "num_stages": traits.num_stages,
        "enable_offset": traits.enable_offset,
        "loop_ii_cycles_model": inner["ii"] if inner else None,
    }
    model = {
        "unit": "cycles (tilelang EstimateLatency + Z3 schedule; a model, not a measurement)",
        "modeled_cycles_per_core": facts.modeled_cycles_per_core,
        # what that number covers: the outermost scheduled loop.  Non-persistent (one block per
        # output tile): that is one tile's K loop, not a per-core total; persistent: the tile loop.
        "modeled_cycles_scope": "per core (the persistent tile loop)" if traits.num_cores
        else "one tile's K loop (non-persistent kernel: not a per-core total)",
        "loops": facts.loops,
        "straight_line": facts.straight_line,
        "core_pipelining": _core_pipelining(facts),
        "mixed_kernel": facts.mixed_kernel,
        "pipes": [name for name, _ in PIPES],
        "missing": facts.missing,
    }
    return Plan(
        backend=TRAITS.name,
        target=TARGET_NAME,
        pipeline=pipeline,
        buffers=buffers,
        bytes_per_scope=bytes_per_scope,
        limits=limits.limits(case.family.footprint(case.problem, case.config, AscendBackend.dialect, limits.scopes())),
        threads=None,
        features={"cores": traits.num_cores, "mixed_aic_aiv": facts.mixed_kernel, "source_sha256": facts.source_sha256,
                  "grid": product(facts.grid_dims), "grid_dims": facts.grid_dims,
                  **({"symbolic": facts.symbolic} if facts.symbolic else {})},
        schedule_model=model,
    )


class AscendBackend:
    name = TRAITS.name
    dialect = "ascend"
    traits = TRAITS

    def __init__(self, options: BackendOptions) -> None:
        install_z3_recorders()
        self.target = _make_ascend_target()
        self._compile_slowdown = self._changes = None  # test-only hook: set only by a test plugin's subclass (tests/test_only/)
        self._probe: npu.NpuProbe | None = None

    def _npu(self) -> npu.NpuProbe:
        if self._probe is None:
            self._probe = npu.probe()
        return self._probe

    def compile_blocker(self) -> str | None:
        return None  # the Ascend pipeline lowers to AscendC on any machine

    def device_blocker(self) -> str | None:
        return self._npu().reason

    def device_info(self) -> dict[str, Any]:
        probe = self._npu()
        return {
            "backend": self.name,
            "target": TARGET_NAME,
            "tilelang": tilelang.__version__,
            "accelerator": probe.versions.get("npu"),
            "torch_npu": probe.versions.get("torch_npu"),
            "bisheng": probe.versions.get("bisheng"),
            "cann": probe.versions.get("cann"),
            "missing": probe.reason,
        }

    def device_profile(self, info: dict[str, Any]) -> DeviceProfile | None:
        """The published profile of the NPU named in ``info`` (None: peak unknown)."""
        return match_profile(PROFILES, info.get("accelerator"))

    def calibrate(self, seconds: float = 30.0) -> DeviceProfile:
        """Measure this NPU's profile (torch_npu matmul, a device copy): see backends/calibrate.py."""
        reason = self.device_blocker()
        if reason:
            raise RuntimeError(f"no NPU to calibrate: {reason}")
        import torch

        from tlbench.backends.calibrate import calibrate

        return calibrate(torch.npu, torch.device("npu", torch.npu.current_device()),
                         self.device_info().get("accelerator") or "NPU", seconds)

    def lowering_key(self) -> str:
        """What, besides the kernel, decides the lowered source: the compiler and the target."""
        return f"tilelang {tilelang.__version__}; {TARGET_NAME}; {self.target}"

    def kernel_body_hash(self, case: Case) -> str | None:
        """The source of every module of the case's body (harness/core/kernel_traits.py)."""
        return ask.kernel_hash(case, self.dialect)

    def scopes(self) -> tuple[budget.Scope, ...]:
        return limits.scopes()

    def budget(self, case: Case) -> budget.BudgetVerdict:
        return budget.check(case, self.scopes(), self.dialect)

    def rejection(self, case: Case) -> space.Rejection | None:
        return limits.rejection(case)

    def _build(self, case: Case):
        config = self._changes.config(case) if self._changes is not None else case.config
        return case.family.build(case.problem, config, self.dialect)

    def _pass_configs(self, case: Case) -> dict[str, Any]:
        return dict(ask.kernel_traits(case, self.dialect).pass_configs)

    def _shape_values(self, case: Case) -> dict[str, int]:
        """The case's values of the body's symbolic dimensions: the schedule's trips and grid are read with them."""
        return dict(ask.kernel_traits(case, self.dialect).shape_values)

    def _check_target(self, case: Case) -> None:
        """A kernel that asks for a target of another kind is refused (None / auto: this one)."""
        refuse_foreign_target(case, self.dialect, "ascend", self.name, TARGET_NAME)

    def kernel_source(self, case: Case) -> str:
        self._check_target(case)
        artifact, _ = lower_with_schedule(self._build(case), self.target, self._pass_configs(case), self._shape_values(case))
        return artifact.kernel_source

    def _lower(self, case: Case, phases: dict[str, float]):
        call_start = time.perf_counter()
        self._check_target(case)
        func = self._build(case)
        pass_configs = self._pass_configs(case)
        start = time.perf_counter()
        _, facts = lower_with_schedule(func, self.target, pass_configs, self._shape_values(case))
        if self._changes is not None:  # TEST ONLY: extra work inside the timed lowering
            self._changes.work(case.case_id)
        if self._compile_slowdown is not None:  # TEST ONLY (tests/test_only/compile_slowdown.py): the whole call x (1 + f)
            self._compile_slowdown.spin_after(case.case_id, time.perf_counter() - call_start)
        phases["lower_and_schedule"] = time.perf_counter() - start
        return func, facts

    def warm_up_compile(self) -> list:
        """The process's first lowering, of the backend's own small kernels (backends/ascend/compile_warm_up.py)."""
        from tlbench.backends.ascend.compile_warm_up import warm_up_compile

        return warm_up_compile(self.target)

    def lower(self, case: Case) -> Compiled:
        """The lowering and Z3 schedule alone (no bisheng build)."""
        phases: dict[str, float] = {}
        try:
            _, facts = self._lower(case, phases)
        except Exception as exc:
            raise CompileError(compile_failure_words(exc)) from exc
        return Compiled(case=case, handle=None, plan=self._plan(case, facts), compile_seconds=phases["lower_and_schedule"], phases_s=phases)

    def _plan(self, case: Case, facts: ScheduleFacts) -> Plan:
        plan = _plan(case, facts)
        words = self._changes.words(case.case_id) if self._changes is not None else None
        if words:  # TEST ONLY: the plan says it was lowered with a test-only change
            plan.features["test_only"] = words
        return plan

    def compile(self, case: Case, cold: bool) -> Compiled:
        phases: dict[str, float] = {}
        handle = None
        try:
            func, facts = self._lower(case, phases)
            if self.device_blocker() is None:  # bisheng, torch_npu and an NPU are all here
                start = time.perf_counter()
                handle = tilelang.compile(func, target="ascend", pass_configs=self._pass_configs(case) or None,
                                          out_idx=out_idx(case, self.dialect))
                phases["build"] = time.perf_counter() - start
        except Exception as exc:
            raise CompileError(compile_failure_words(exc)) from exc
        return Compiled(
            case=case, handle=handle, plan=self._plan(case, facts), compile_seconds=phases["lower_and_schedule"], phases_s=phases
        )

    def inspect(self, compiled: Compiled) -> Plan:
        return compiled.plan

    # -- the NPU run path (only reached where device_blocker() is None) -----------------
    def make_inputs(self, problem: Any, seed: int, config: Any = None) -> dict[str, Any]:
        return ask.make_inputs(problem, seed, "npu", self.dialect, config)

    def _runner(self, runnable: Compiled | VendorCase, inputs: dict[str, Any], timed: bool = False):
        """The callable (``timed``: the one that is timed), and the vendor item's exact label (None for a kernel)."""
        if isinstance(runnable, VendorCase):  # the family's own vendor call
            return ask.vendor_call(runnable, inputs, self.dialect, timed)
        return kernel_runner(runnable.handle, runnable.case.family.kernel_args(inputs), write_outputs=not timed), None

    def check(self, runnable: Compiled | VendorCase, inputs: dict[str, Any]) -> CheckResult:
        import torch

        problem = runnable.problem if isinstance(runnable, VendorCase) else runnable.case.problem
        poison(problem.family.output(inputs))  # what each output dtype can hold (backends/output_poison.py)
        self._runner(runnable, inputs)[0]()
        torch.npu.synchronize()
        return ask.check(inputs, problem, self.dialect, vendor=isinstance(runnable, VendorCase))

    def device_fault(self) -> str | None:
        """Whether the device context is broken after a suite's own code raised (a sticky
        error makes the next synchronize raise): its words, or None while it is usable."""
        import torch

        try:
            torch.npu.synchronize()
        except Exception as exc:  # noqa: BLE001 - the device's own words
            return f"{type(exc).__name__}: {exc}"
        return None

    def timer(self, runnable: Compiled | VendorCase, inputs: dict[str, Any], flush_l2: bool) -> npu.NpuTimer:
        run, label = self._runner(runnable, inputs, timed=True)
        timer = npu.NpuTimer(run, flush_l2, "npu")
        if label:
            timer.notes.append(f"vendor item: {label}")
        return timer
