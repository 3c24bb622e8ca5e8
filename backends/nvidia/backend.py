"""The NVIDIA backend: tilelang's CUDA path, checked against torch, timed with CUPTI.

Contract (see harness/core/backend_api.py): compiles on any machine with tilelang (and nvcc for
the binary); runs and times only where ``torch.cuda`` sees a GPU (backends/nvidia/device_probe.py).
Importing this module imports neither torch nor tilelang: each method imports what it uses.
``from_worker_facts(options, facts)`` builds the instance a pytest process uses while its
device worker compiles and times (harness/core/registry.py): device info, what blocks timing,
arch and lowering key are the worker's own (``worker_facts()``), and nothing runs here.  The target arch comes
from the GPU (``sm_90a`` on Hopper); with no GPU, from ``--tlbench-nvidia-arch`` (default sm_90a).
``compile(cold=True)`` bypasses tilelang's kernel and cubin caches so the compile item
measures a real build; device items compile through the cache.  ``lower(case)`` is the cold
lowering alone (no nvcc): a compile item's rounds after its one cold build.
What the backend needs of a case besides its body it asks through
harness/core/kernel_traits.py (it imports no kernel family): the tilelang pass configs the
family or the jit declares reach both the lowering that records the plan and the build that
is timed (``pass_configs(case)``; e.g. FA's ``fast_math`` -> ``tl.enable_fast_math``, nvcc
``--use_fast_math``), and so does ``out_idx`` (returned outputs: backends/kernel_call.py); a
kernel that asks for a target of another kind is refused.  Where pass configs change the
binary but not the generated CUDA, ``kernel_source`` names them under the source
(backends/nvidia/cuda_build.py; the inert-key probe then tells the builds apart); tilelang's kernel cache keys on the pass
configs and its binary cache on the nvcc options.  Every cache of a built kernel (stored IR,
plan) is keyed by the kernel hash (the source of every module of the body, wherever it
lives), the runtime's source hash (backends/source_tree.py), the pass configs and the case id.  Vendor items are the
family's ``vendor_call``.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from contextlib import nullcontext
from typing import Any

from tlbench.backends.output_poison import poison
from tlbench.backends.build_options import out_idx, refuse_foreign_target
from tlbench.backends.kernel_call import kernel_runner
from tlbench.backends.nvidia import limits
from tlbench.backends.nvidia.cuda_build import cuda_plan, pass_config_note, tilelang_cache_disabled
from tlbench.backends.nvidia.limits import DEFAULT_ARCH
from tlbench.backends.nvidia.device_probe import device_arch, gpu_reason, read_device_info
from tlbench.backends.gpu.func_cache import FuncCache
from tlbench.backends.gpu.plan_cache import PlanCache
from tlbench.backends.source_tree import runtime_tree_hash
from tlbench.backends.nvidia.profiles import PROFILES, device_reported_profile
from tlbench.backends.nvidia.telemetry import NvmlTelemetry
from tlbench.backends.gpu.flush_choice import flush_caveat, flush_mode
from tlbench.backends.nvidia.timer_choice import make_timer, timer_name
from tlbench.backends.nvidia.traits import TRAITS
from tlbench.harness.core import budget
from tlbench.harness.core import space
from tlbench.harness.core.backend_api import BackendOptions, Compiled, CompileError, compile_failure_words
from tlbench.harness.core.cases import Case, CheckResult, Plan, VendorCase
from tlbench.harness.core import kernel_traits as ask
from tlbench.harness.core.device_profile import DeviceProfile, match_profile


class NvidiaBackend:
    name = TRAITS.name
    dialect = "cuda"
    traits = TRAITS

    def __init__(self, options: BackendOptions, worker_facts: dict[str, Any] | None = None) -> None:
        requested = options.get("nvidia_arch")
        self._worker_facts = worker_facts
        if worker_facts is None:  # this process times: it probes its own GPU (torch.cuda)
            import torch

            self._device_reason = gpu_reason()
            self.device = torch.device("cuda", torch.cuda.current_device()) if self._device_reason is None else None
            self.arch = requested or (self._device_arch() if self.device is not None else DEFAULT_ARCH)
            if self.device is not None and requested and requested != self._device_arch():
                self._device_reason = f"compiling for {requested} (--tlbench-nvidia-arch) but the GPU is {self._device_arch()}"
            self._device_info: dict[str, Any] | None = None
        else:  # the controller of a device worker: the worker's own answers, no CUDA here
            self._device_reason = worker_facts["device_blocker"]
            self.device = None
            self.arch = worker_facts["arch"]
            self._device_info = dict(worker_facts["device_info"])
        self._target: Any = None
        # False (the quick scope): a cold compile (a compile item) lowers and records the plan
        # only; the build a device item needs still happens, through the cache.
        self.cold_build = bool(options.get("cold_build", True))
        self._caches: tuple[PlanCache, FuncCache] | None = None
        self._flush: dict[bool, Any] = {}
        self._telemetry: NvmlTelemetry | str | None = None
        self.timer_name = timer_name(options.get("nvidia_timer"))  # --tlbench-nvidia-timer (backends/nvidia/timer_choice.py)
        self.flush_mode = flush_mode(options.get("nvidia_l2_flush"))  # --tlbench-nvidia-l2-flush (backends/gpu/flush_choice.py)
        # Test-only hooks: None here; set only by a test plugin's subclass (tests/test_only/).
        self._slowdown = self._faults = self._compile_slowdown = self._changes = None

    # -- the controller of a device worker ----------------------------------------------------
    @classmethod
    def from_worker_facts(cls, options: BackendOptions, facts: dict[str, Any]) -> "NvidiaBackend":
        """The instance a pytest process uses while its device worker compiles and times
        (harness/core/registry.py): built from what that worker's instance reported
        (``worker_facts``), so this process never imports torch or tilelang for
        collection and reports (faster start and exit) and describes the device the worker
        measures on.  Compiling and inspecting still work here (imported on first use);
        running does not (``device`` is None)."""
        return cls(options, worker_facts=facts)

    def worker_facts(self) -> dict[str, Any]:
        """What ``from_worker_facts`` needs, as plain data: the device info, what blocks
        timing here, the target arch and the lowering key."""
        return {"device_info": self.device_info(), "device_blocker": self._device_reason, "arch": self.arch,
                "lowering_key": self.lowering_key()}

    @property
    def target(self) -> Any:
        if self._target is None:
            import tvm

            self._target = tvm.target.Target({"kind": "cuda", "arch": self.arch})
        return self._target

    def _plan_and_func_caches(self) -> tuple[PlanCache, FuncCache]:
        """The plan of each built kernel, beside tilelang's own cache (a cache hit lowers
        nothing), and a warm compile's IR (not rebuilt)."""
        if self._caches is None:
            import tilelang

            cache_dir = Path(tilelang.env.TILELANG_CACHE_DIR) if tilelang.env.is_cache_enabled() else None
            self._caches = (PlanCache(cache_dir / "tlbench-plans" if cache_dir else None),
                            FuncCache(cache_dir / "tlbench-funcs" if cache_dir else None))
        return self._caches

    @property
    def _plans(self) -> PlanCache:
        return self._plan_and_func_caches()[0]

    @property
    def _funcs(self) -> FuncCache:
        return self._plan_and_func_caches()[1]

    def _runs_here(self) -> None:
        if self._worker_facts is not None:
            raise RuntimeError("this NvidiaBackend describes its device worker's GPU (from_worker_facts): "
                               "inputs, checks and timing run in that worker")

    def _device_arch(self) -> str:
        return device_arch(self.device)

    # -- availability -------------------------------------------------------------------
    def compile_blocker(self) -> str | None:
        return None  # tilelang's CUDA path lowers on any machine

    def device_blocker(self) -> str | None:
        return self._device_reason

    def device_info(self) -> dict[str, Any]:
        if self._device_info is None:
            self._device_info = self._read_device_info()  # nvidia-smi once, not per item
        return dict(self._device_info)

    def _read_device_info(self) -> dict[str, Any]:
        return read_device_info(self.name, self.arch, self.device, self._device_reason)

    def device_profile(self, info: dict[str, Any]) -> DeviceProfile | None:
        """The datasheet profile of the GPU named in ``info``; for a GPU no datasheet profile
        names, the bandwidth it reports itself (memory clock x bus width: no FLOP peak, origin
        "device"); None with neither (peak unknown)."""
        return match_profile(PROFILES, info.get("accelerator")) or device_reported_profile(info)

    def calibrate(self, seconds: float = 30.0) -> DeviceProfile:
        """Measure this GPU's profile (cuBLAS GEMM, a device copy): see backends/calibrate.py."""
        import torch
        from tlbench.backends.calibrate import calibrate

        if self.device is None:
            raise RuntimeError(f"no GPU to calibrate: {self._device_reason}")
        return calibrate(torch.cuda, self.device, self.device_info().get("accelerator") or "GPU", seconds)

    def lowering_key(self) -> str:
        """What, besides the kernel, decides the lowered source: the compiler and the target."""
        if self._worker_facts is not None:
            return str(self._worker_facts["lowering_key"])
        import tilelang

        return f"tilelang {tilelang.__version__}; {self.target}"

    def kernel_body_hash(self, case: Case) -> str | None:
        """The source of every module of the case's body (harness/core/kernel_traits.py)."""
        return ask.kernel_hash(case, self.dialect)

    def _cache_key_parts(self, case: Case) -> tuple[str, str | None, str]:
        """What a stored IR or plan is keyed by besides the compiler: the body's modules, the
        code this runtime compiles with (its source hash), the pass configs and out_idx, the case id."""
        traits = ask.kernel_traits(case, self.dialect)
        built_with = json.dumps([sorted((k, repr(v)) for k, v in traits.pass_configs.items()), traits.out_idx])
        return self.lowering_key(), f"{self.kernel_body_hash(case)}; {runtime_tree_hash(type(self).__module__)}; {built_with}", case.case_id

    # -- compile & inspect --------------------------------------------------------------
    def scopes(self) -> tuple[budget.Scope, ...]:
        return limits.scopes(self.arch)

    def budget(self, case: Case) -> budget.BudgetVerdict:
        return budget.check(case, self.scopes(), self.dialect)

    def rejection(self, case: Case) -> space.Rejection | None:
        return limits.rejection(case, self.arch)

    def _build(self, case: Case):
        config = self._changes.config(case) if self._changes is not None else case.config
        return case.family.build(case.problem, config, self.dialect)

    def pass_configs(self, case: Case) -> dict[str, Any] | None:
        """The tilelang pass configs the case is built with, for the lowering and the build alike
        (None: tilelang's defaults): the family's (or the jit's) ``pass_configs`` trait."""
        configs = dict(ask.kernel_traits(case, self.dialect).pass_configs) or None
        return self._changes.pass_configs(case.case_id, configs) if self._changes is not None else configs  # TEST ONLY hook

    def _target_for(self, case: Case) -> Any:
        """The backend's target; a kernel that asks for a target of another kind is refused."""
        refuse_foreign_target(case, self.dialect, "cuda", self.name, self.target)
        return self.target

    def kernel_source(self, case: Case) -> str:
        """The generated CUDA, plus a line naming each pass config that changes the binary and
        not the source (nvcc's --use_fast_math): without it the inert-key probe would call them inert."""
        from tlbench.backends.gpu.plan import lower_with_plan

        pass_configs = self.pass_configs(case)
        artifact, _ = lower_with_plan(self._build(case), self._target_for(case), pass_configs, self._shape_values(case))
        return artifact.kernel_source + pass_config_note(pass_configs)

    def _shape_values(self, case: Case) -> dict[str, int]:
        """The case's values of the body's symbolic dimensions: the plan's extents are read with them."""
        return dict(ask.kernel_traits(case, self.dialect).shape_values)

    def _lower(self, case: Case, phases: dict[str, float], slowdown: Any = None):
        from tlbench.backends.gpu.plan import lower_with_plan

        call_start = time.perf_counter()
        func = self._build(case)
        target, pass_configs = self._target_for(case), self.pass_configs(case)
        start = time.perf_counter()
        _, facts = lower_with_plan(func, target, pass_configs, self._shape_values(case))
        if self._changes is not None:  # TEST ONLY: extra work inside the timed lowering
            self._changes.work(case.case_id)
        if slowdown is not None:  # TEST ONLY (tests/test_only/compile_slowdown.py): the whole call x (1 + f)
            slowdown.spin_after(case.case_id, time.perf_counter() - call_start)
        phases["lower_and_plan"] = time.perf_counter() - start
        return func, facts

    def warm_up_compile(self) -> list:
        """The process's first lowering, of the backend's own small kernel (backends/nvidia/compile_warm_up.py)."""
        import tilelang  # noqa: F401 - before the target: tilelang puts its tvm on the path
        from tlbench.backends.nvidia.compile_warm_up import warm_up_compile

        return warm_up_compile(self.target)

    def lower(self, case: Case) -> Compiled:
        """The cold lowering alone (tilelang's passes and CUDA codegen; no nvcc, no cache): the
        plan, and the rounds a compile item times after its one cold build."""
        phases: dict[str, float] = {}
        try:
            _, facts = self._lower(case, phases, self._compile_slowdown)
        except Exception as exc:  # the compiler's own words become the failure text
            raise CompileError(compile_failure_words(exc)) from exc
        return Compiled(case=case, handle=None, plan=self._plan(case, facts, built=False),
                        compile_seconds=phases["lower_and_plan"], phases_s=phases)

    def likely_cached(self, case: Case) -> bool:
        """A warm compile of ``case`` will likely be a cache hit: its plan is stored beside
        tilelang's cache (both are written by the same build).  A hint for the compile pool's
        lanes (harness/measure/compile_pool.py), never a substitute for the cache's own key."""
        import tilelang

        return tilelang.env.is_cache_enabled() and self._plans.has(PlanCache.key(*self._cache_key_parts(case)))

    def compile(self, case: Case, cold: bool) -> Compiled:
        """Lowers once: where nvcc builds, the plan is read from ``tilelang.compile``'s own
        lowering (``build_with_plan``) and stored beside tilelang's cache; a cache hit (nothing
        lowered) reads it from there (backends/gpu/plan_cache.py), and lowers again only
        when none is stored."""
        import tilelang
        from tlbench.backends.gpu.plan import build_with_plan

        phases: dict[str, float] = {}
        slowdown = self._compile_slowdown if cold else None  # TEST ONLY (tests/test_only/compile_slowdown.py): the whole call x (1 + f)
        try:
            call_start = time.perf_counter()
            if (self.cold_build or not cold) and (shutil.which("nvcc") or self.device is not None):
                func_key = None if cold else FuncCache.key(*self._cache_key_parts(case))
                func = self._funcs.get(func_key) if func_key else None
                if func is None:
                    func = self._build(case)
                    if func_key:
                        self._funcs.put(func_key, func)
                target, pass_configs, outputs = self._target_for(case), self.pass_configs(case), out_idx(case, self.dialect)
                start = time.perf_counter()
                with tilelang_cache_disabled() if cold else nullcontext():
                    handle, facts = build_with_plan(lambda: tilelang.compile(
                        func, target=target, execution_backend="tvm_ffi", pass_configs=pass_configs, out_idx=outputs),
                        self._shape_values(case))
                if self._changes is not None:  # TEST ONLY: extra work inside the timed build
                    self._changes.work(case.case_id)
                if slowdown is not None:
                    slowdown.spin_after(case.case_id, time.perf_counter() - call_start)
                phases["build"] = time.perf_counter() - start
                plan_key = PlanCache.key(*self._cache_key_parts(case))
                if facts is not None:
                    self._plans.put(plan_key, facts)
                else:  # tilelang's cache answered: the plan stored beside it, else lower for it
                    facts = self._plans.get(plan_key)
                    if facts is None:
                        _, facts = self._lower(case, phases)
                        self._plans.put(plan_key, facts)
            else:
                handle = None
                _, facts = self._lower(case, phases, slowdown)
        except Exception as exc:  # the compiler's own words become the failure text
            raise CompileError(compile_failure_words(exc)) from exc
        headline = phases.get("build", phases.get("lower_and_plan", 0.0))
        return Compiled(case=case, handle=handle, plan=self._plan(case, facts, handle is not None),
                        compile_seconds=headline, phases_s=phases)

    def _plan(self, case: Case, facts, built: bool) -> Plan:
        return cuda_plan(case, facts, self.arch, built, self._test_only_words(case))

    def _test_only_words(self, case: Case) -> dict[str, str]:
        words = self._changes.words(case.case_id) if self._changes is not None else None
        return {"test_only": words} if words else {}

    def inspect(self, compiled: Compiled) -> Plan:
        return compiled.plan

    # -- run ------------------------------------------------------------------------------
    def make_inputs(self, problem: Any, seed: int, config: Any = None) -> dict[str, Any]:
        self._runs_here()
        return ask.make_inputs(problem, seed, self.device, self.dialect, config)

    def _runner(self, runnable: Compiled | VendorCase, inputs: dict[str, Any], timed: bool = False) -> tuple[Any, str | None]:
        """The callable (``timed``: the one that is timed), and the vendor item's exact label (None for a kernel)."""
        self._runs_here()
        if isinstance(runnable, VendorCase):  # the family's own vendor call (timed: the call alone)
            return ask.vendor_call(runnable, inputs, self.dialect, timed)
        if runnable.handle is None:
            raise RuntimeError("kernel was lowered but not built (no nvcc)")
        run = kernel_runner(runnable.handle, runnable.case.family.kernel_args(inputs), write_outputs=not timed)
        if self._faults is not None:  # TEST ONLY (tests/test_only/fault_injection.py)
            run = self._faults.wrap(runnable.case.case_id, run, self.device, self.target)
        return run, None

    def check(self, runnable: Compiled | VendorCase, inputs: dict[str, Any]) -> CheckResult:
        import torch

        run, _ = self._runner(runnable, inputs)
        problem = runnable.problem if isinstance(runnable, VendorCase) else runnable.case.problem
        poison(problem.family.output(inputs))  # what each output dtype can hold (backends/output_poison.py)
        run()
        torch.cuda.synchronize(self.device)
        return ask.check(inputs, problem, self.dialect, vendor=isinstance(runnable, VendorCase))

    def device_fault(self) -> str | None:
        """Whether the device context is broken after a suite's own code raised (a sticky
        error makes the next synchronize raise): its words, or None while it is usable."""
        import torch

        try:
            torch.cuda.synchronize(self.device)
        except Exception as exc:  # noqa: BLE001 - the device's own words
            return f"{type(exc).__name__}: {exc}"
        return None

    def timer(self, runnable: Compiled | VendorCase, inputs: dict[str, Any], flush_l2: bool) -> Any:
        from tlbench.backends.gpu.timing import L2Flush

        run, label = self._runner(runnable, inputs, timed=True)
        notes = [f"vendor item: {label}"] if label else []
        if self._slowdown is not None and not isinstance(runnable, VendorCase):
            run, words = self._slowdown.wrap(runnable.case.case_id, run, self.device)
            notes += [words] if words else []
        if flush_l2 not in self._flush:
            self._flush[flush_l2] = L2Flush(self.device, flush_l2, self.flush_mode)
        notes += [self._flush[flush_l2].note] if self._flush[flush_l2].note else []
        caveat = flush_caveat(self.timer_name, self.flush_mode, flush_l2)
        notes += [caveat] if caveat else []
        if self._telemetry is None:
            self._telemetry = NvmlTelemetry.for_device(self.device_info().get("uuid"))
        telemetry = self._telemetry if isinstance(self._telemetry, NvmlTelemetry) else None
        if telemetry is None:
            notes.append(f"no clock telemetry: {self._telemetry}")
        timer = make_timer(self.timer_name, run, self._flush[flush_l2], telemetry)
        timer.notes[:0] = notes
        return timer

