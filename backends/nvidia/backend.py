"""The NVIDIA backend: tilelang's CUDA path, checked against torch, timed with CUPTI.

Contract (harness/core/backend_api.py; skeleton backends/backend_base.py): compiles on any machine
with tilelang (nvcc for the binary); runs and times only where ``torch.cuda`` sees a GPU.  The
arch comes from the GPU, else ``--tlbench-nvidia-arch`` (default sm_90a).  ``compile(cold=True)``
bypasses tilelang's caches; every cache of a built kernel is keyed by the kernel hash, the
runtime's source hash, the pass configs and the case id.  Imports neither torch nor tilelang.
"""

from __future__ import annotations

import json
import shutil
import time
from contextlib import nullcontext
from functools import cached_property
from pathlib import Path
from typing import Any

from ..backend_base import TileLangBackend, out_idx
from . import limits
from .cuda_build import cuda_plan, pass_config_note, tilelang_cache_disabled
from .limits import DEFAULT_ARCH
from .device_probe import device_arch, gpu_reason, read_device_info
from ..gpu.func_cache import FuncCache
from ..gpu.plan_cache import PlanCache
from ..source_tree import runtime_tree_hash
from .profiles import PROFILES, device_reported_profile
from .telemetry import NvmlTelemetry
from ..gpu.flush_choice import flush_caveat, flush_mode
from .timer_choice import make_timer, timer_name
from .traits import TRAITS
from tlbench.harness.core import budget, space
from tlbench.harness.core.backend_api import BackendOptions, Compiled, CompileError, compile_failure_words
from tlbench.harness.core.cases import Case, Plan, VendorCase
from tlbench.harness.core import kernel_traits as ask
from tlbench.harness.core.device_profile import DeviceProfile, match_profile


class NvidiaBackend(TileLangBackend):
    traits = TRAITS
    target_kind = "cuda"
    profiles = PROFILES
    lowered_phase = "lower_and_plan"

    def __init__(self, options: BackendOptions, worker_facts: dict[str, Any] | None = None) -> None:
        requested = options.get("nvidia_arch")
        self._worker_facts = worker_facts
        if worker_facts is None:  # this process times: it probes its own GPU (torch.cuda)
            import torch

            self._device_reason = gpu_reason()
            self.device = torch.device("cuda", torch.cuda.current_device()) if self._device_reason is None else None
            self.arch = requested or (device_arch(self.device) if self.device is not None else DEFAULT_ARCH)
            if self.device is not None and requested and requested != device_arch(self.device):
                self._device_reason = f"compiling for {requested} (--tlbench-nvidia-arch) but the GPU is {device_arch(self.device)}"
            self._device_info: dict[str, Any] | None = None
        else:  # the controller of a device worker: the worker's own answers, no CUDA here
            self._device_reason = worker_facts["device_blocker"]
            self.device = None
            self.arch = worker_facts["arch"]
            self._device_info = dict(worker_facts["device_info"])
        # False (the quick scope): a cold compile (a compile item) lowers and records the plan
        # only; the build a device item needs still happens, through the cache.
        self.cold_build = bool(options.get("cold_build", True))
        self._flush: dict[bool, Any] = {}
        self._telemetry: NvmlTelemetry | str | None = None
        self.timer_name = timer_name(options.get("nvidia_timer"))  # --tlbench-nvidia-timer (backends/nvidia/timer_choice.py)
        self.flush_mode = flush_mode(options.get("nvidia_l2_flush"))  # --tlbench-nvidia-l2-flush (backends/gpu/flush_choice.py)

    @classmethod
    def from_worker_facts(cls, options: BackendOptions, facts: dict[str, Any]) -> "NvidiaBackend":
        """The controller's instance, from its worker's ``worker_facts``: it never runs."""
        return cls(options, worker_facts=facts)

    def worker_facts(self) -> dict[str, Any]:
        return {"device_info": self.device_info(), "device_blocker": self._device_reason, "arch": self.arch,
                "lowering_key": self.lowering_key()}

    @cached_property
    def target(self) -> Any:
        import tilelang  # noqa: F401 - before tvm: tilelang puts its tvm on the path
        import tvm

        return tvm.target.Target({"kind": "cuda", "arch": self.arch})

    @cached_property
    def _caches(self) -> tuple[PlanCache, FuncCache]:
        """Each built kernel's plan (a cache hit lowers nothing) and IR, beside tilelang's cache."""
        import tilelang

        cache_dir = Path(tilelang.env.TILELANG_CACHE_DIR) if tilelang.env.is_cache_enabled() else None
        return (PlanCache(cache_dir / "tlbench-plans" if cache_dir else None),
                FuncCache(cache_dir / "tlbench-funcs" if cache_dir else None))

    @property
    def _plans(self) -> PlanCache:
        return self._caches[0]

    @property
    def _funcs(self) -> FuncCache:
        return self._caches[1]

    def _runs_here(self) -> None:
        if self._worker_facts is not None:
            raise RuntimeError("this NvidiaBackend describes its device worker's GPU (from_worker_facts): "
                               "inputs, checks and timing run in that worker")

    def device_blocker(self) -> str | None:
        return self._device_reason

    def device_info(self) -> dict[str, Any]:
        if self._device_info is None:  # nvidia-smi once, not per item
            self._device_info = read_device_info(self.name, self.arch, self.device, self._device_reason)
        return dict(self._device_info)

    def device_profile(self, info: dict[str, Any]) -> DeviceProfile | None:
        """The datasheet profile of the GPU, else the bandwidth it reports itself (no FLOP peak)."""
        return match_profile(PROFILES, info.get("accelerator")) or device_reported_profile(info)

    def calibrate(self, seconds: float = 30.0) -> DeviceProfile:
        """Measure this GPU's profile (cuBLAS GEMM, a device copy): see backends/calibrate.py."""
        import torch
        from ..calibrate import calibrate

        if self.device is None:
            raise RuntimeError(f"no GPU to calibrate: {self._device_reason}")
        return calibrate(torch.cuda, self.device, self.device_info().get("accelerator") or "GPU", seconds)

    def lowering_key(self) -> str:
        """What, besides the kernel, decides the lowered source: the compiler and the target."""
        if self._worker_facts is not None:
            return str(self._worker_facts["lowering_key"])
        import tilelang

        return f"tilelang {tilelang.__version__}; {self.target}"

    def _cache_key_parts(self, case: Case) -> tuple[str, str | None, str]:
        """A stored IR's or plan's key: compiler; body, runtime source and build traits; case id."""
        traits = ask.kernel_traits(case, self.dialect)
        built_with = json.dumps([sorted((k, repr(v)) for k, v in traits.pass_configs.items()), traits.out_idx])
        return self.lowering_key(), f"{self.kernel_body_hash(case)}; {runtime_tree_hash(type(self).__module__)}; {built_with}", case.case_id

    def scopes(self) -> tuple[budget.Scope, ...]:
        return limits.scopes(self.arch)

    def rejection(self, case: Case) -> space.Rejection | None:
        return limits.rejection(case, self.arch)

    def pass_configs(self, case: Case) -> dict[str, Any] | None:
        configs = super().pass_configs(case)
        return self._changes.pass_configs(case.case_id, configs) if self._changes is not None else configs  # TEST ONLY hook

    def kernel_source(self, case: Case) -> str:
        """The generated CUDA, plus ``pass_config_note``'s lines for the pass configs the source does not show."""
        return super().kernel_source(case) + pass_config_note(self.pass_configs(case))

    def _lower_with_facts(self, func, target, pass_configs, shape_values):
        from ..gpu.plan import lower_with_plan

        return lower_with_plan(func, target, pass_configs, shape_values)

    def warm_up_kernels(self) -> tuple:
        from .compile_warm_up import KERNELS

        return KERNELS

    def likely_cached(self, case: Case) -> bool:
        """Compile pool hint: the case's plan is stored, so tilelang's cache likely hits."""
        import tilelang

        return tilelang.env.is_cache_enabled() and self._plans.has(PlanCache.key(*self._cache_key_parts(case)))

    def compile(self, case: Case, cold: bool) -> Compiled:
        """Lowers once: the plan comes from ``tilelang.compile``'s own lowering, or on a cache hit
        from the plan cache (lowering again only when none is stored)."""
        import tilelang
        from ..gpu.plan import build_with_plan

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

    def make_inputs(self, problem: Any, seed: int, config: Any = None) -> dict[str, Any]:
        self._runs_here()
        return ask.make_inputs(problem, seed, self.device, self.dialect, config)

    def _runner(self, runnable: Compiled | VendorCase, inputs: dict[str, Any], timed: bool = False) -> tuple[Any, str | None]:
        self._runs_here()
        if isinstance(runnable, VendorCase):
            return super()._runner(runnable, inputs, timed)
        if runnable.handle is None:
            raise RuntimeError("kernel was lowered but not built (no nvcc)")
        run, _ = super()._runner(runnable, inputs, timed)
        if self._faults is not None:  # TEST ONLY (tests/test_only/fault_injection.py)
            run = self._faults.wrap(runnable.case.case_id, run, self.device, self.target)
        return run, None

    def _synchronize(self) -> None:
        import torch

        torch.cuda.synchronize(self.device)

    def timer(self, runnable: Compiled | VendorCase, inputs: dict[str, Any], flush_l2: bool) -> Any:
        from ..gpu.timing import L2Flush

        run, label = self._runner(runnable, inputs, timed=True)
        notes = [f"vendor item: {label}"] if label else []
        if self._slowdown is not None and not isinstance(runnable, VendorCase):
            run, words = self._slowdown.wrap(runnable.case.case_id, run, self.device)
            notes += [words] if words else []
        if flush_l2 not in self._flush:
            self._flush[flush_l2] = L2Flush(self.device, flush_l2, self.flush_mode)
        flush = self._flush[flush_l2]
        if self._telemetry is None:
            self._telemetry = NvmlTelemetry.for_device(self.device_info().get("uuid"))
        telemetry = self._telemetry if isinstance(self._telemetry, NvmlTelemetry) else None
        caveat = flush_caveat(self.timer_name, self.flush_mode, flush_l2)
        missing = None if telemetry else f"no clock telemetry: {self._telemetry}"
        notes += [note for note in (flush.note, caveat, missing) if note]
        timer = make_timer(self.timer_name, run, flush, telemetry)
        timer.notes[:0] = notes
        return timer

