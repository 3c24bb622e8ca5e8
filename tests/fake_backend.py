"""FakeBackend: a stand-in backend for testing the pytest plugin's own logic only.

It compiles nothing and runs nothing: ``compile`` returns a canned plan (or raises a
``CompileError`` for block_K == 7), ``measure`` returns the samples the test dictates.
Real lowering, plans and schedules are tested against tilelang in the other test files.
"""

from __future__ import annotations

from harness.core import budget
from harness.core.backend_api import BackendOptions, Compiled, CompileError
from harness.core.cases import CheckResult, DeviceSamples, Plan, VendorCase

DEVICE_SAMPLES_S = (1.0e-3, 1.1e-3, 0.9e-3, 1.05e-3, 0.95e-3)
COMPILE_SECONDS = 0.25


class FakeBackend:
    name = "fake"

    def __init__(self, options: BackendOptions):
        self.options = options

    def available(self):
        return None

    def device_unavailable(self):
        return None

    def device_info(self):
        import os

        device = os.environ.get("CUDA_VISIBLE_DEVICES")
        return {"backend": "fake", "accelerator": "FakeAccelerator 1.0" + (f" #{device}" if device else "")}

    def budget(self, case):
        return budget.check(case.problem, case.config, "nvidia", "sm_90a")

    def rejection(self, case):
        from harness.core.space import Rejection

        verdict = self.budget(case)
        return None if verdict.fits else Rejection(case.config, "budget", verdict.reason)

    def kernel_source(self, case):
        return f"fake kernel {case.config.config_id}"

    def compile(self, case, cold):
        if case.config.block_K == 7:
            raise CompileError("FakeCompilerError: block_K=7 is not a legal tile (fake compiler message)")
        plan = Plan(backend="fake", target="fake", pipeline={"kind": "none"}, buffers=[], bytes_per_scope={}, limits={})
        return Compiled(case=case, handle=None, plan=plan, compile_seconds=COMPILE_SECONDS, phases_s={"fake": COMPILE_SECONDS})

    def inspect(self, compiled):
        return compiled.plan

    def make_inputs(self, problem, seed):
        return {"seed": seed}

    def check(self, runnable, inputs):
        wrong = not isinstance(runnable, VendorCase) and runnable.case.config.block_N == 8
        return CheckResult(ok=not wrong, max_abs_err=5.0 if wrong else 0.0, max_rel_err=0.0, mismatched=3 if wrong else 0,
                           total=10, rtol=1e-2, atol=1e-2, detail="3 of 10 elements differ" if wrong else "")

    def measure(self, runnable, inputs, policy):
        return DeviceSamples(samples_s=DEVICE_SAMPLES_S, method="fake-timer", l2_flush_bytes=0)


class UnavailableFakeBackend(FakeBackend):
    name = "fake_gone"

    def device_unavailable(self):
        return "FakeAccelerator not present"
