"""CpuTorchBackend: TEST ONLY - a stand-in device that runs the generic kernel path on CPU torch.

It exists to test the harness's and the generic family's own logic on a machine without an
accelerator, through the real device worker: ``make_inputs``, the poison, ``check`` and the
vendor call go through the real family exactly as the NVIDIA backend calls them (inputs on
``"cpu"``; ``backends/output_poison.py``; ``check(..., vendor=)``).  It compiles nothing
(a canned plan) and its "kernel" is an emulation that writes the suite's reference answer
(so it is always right) after taking its arguments as a launch does: the tensors must fit the
case's own PrimFunc, built for its config (``bind_arguments``: each dimension, the symbolic
ones bound), or the item fails as a real launch refuses them; its timer hands out fixed
samples (``FakeTimer``).  Real kernels
are run on the H200; real lowering is tested against tilelang elsewhere.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_backend import COMPILE_SECONDS, DEVICE_SAMPLES_S, FakeBackend, FakeTimer, FakeTraits  # noqa: E402

from tlbench.harness.core import kernel_traits as ask  # noqa: E402
from tlbench.harness.core.backend_api import Compiled  # noqa: E402
from tlbench.harness.core.cases import Plan, VendorCase  # noqa: E402

CONFTEST = f"""
import sys
sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})
from cpu_torch_backend import CpuTorchBackend

def pytest_tlbench_register_backends(registry):
    registry.register("cputorch", CpuTorchBackend)
"""


class CpuTorchBackend(FakeBackend):
    name = "cputorch"
    dialect = "cuda"  # it takes the CUDA body (traced for its outputs, never compiled)
    traits = FakeTraits("cputorch", color="#999999")

    def compile(self, case, cold):
        plan = Plan(backend="cputorch", target="cpu", pipeline={"kind": "none"}, buffers=[], bytes_per_scope={}, limits={})
        return Compiled(case=case, handle=None, plan=plan, compile_seconds=COMPILE_SECONDS, phases_s={"fake": COMPILE_SECONDS})

    def make_inputs(self, problem, seed, config=None):
        return ask.make_inputs(problem, seed, "cpu", self.dialect, config)

    def check(self, runnable, inputs):
        from tlbench.backends.output_poison import poison

        vendor = isinstance(runnable, VendorCase)
        problem = runnable.problem if vendor else runnable.case.problem
        poison(problem.family.output(inputs))
        if vendor:
            ask.vendor_call(runnable, inputs, self.dialect, False)[0]()
        else:  # TEST ONLY: the emulated kernel takes its arguments as a launch would, then writes the reference's answer
            from tlbench.backends.symbolic_shapes import bind_arguments

            family = problem.family
            bind_arguments(family.build(problem, runnable.case.config, self.dialect), family.kernel_args(inputs))
            answers = problem.family.expected(inputs, problem, self.dialect)
            for out, answer in zip(problem.family.output(inputs).tensors, answers if isinstance(answers, (list, tuple)) else [answers]):
                out.copy_(answer.reshape(out.shape))
        return ask.check(inputs, problem, self.dialect, vendor=vendor)

    def timer(self, runnable, inputs, flush_l2):
        timer = FakeTimer(DEVICE_SAMPLES_S)
        if isinstance(runnable, VendorCase):  # labelled as the NVIDIA backend labels it
            timer.notes.append(f"vendor item: {ask.vendor_call(runnable, inputs, self.dialect, True)[1]}")
        return timer

    def device_fault(self):
        return None  # CPU torch has no sticky device state


def pytest_tlbench_register_backends(registry):
    """``-p cpu_torch_backend`` (with tests/ on the path) registers it as "cputorch"."""
    registry.register("cputorch", CpuTorchBackend)
