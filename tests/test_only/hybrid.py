"""TEST-ONLY probe backend, for finding where a device worker stalls, on a box without a GPU.

``hybrid``: the NVIDIA backend's real compiles (tilelang, nvcc, its caches) with the fake
backend's device (tests/fake_backend.py: canned checks and samples), so the device worker's
whole path - prefetch, child-process builds, cache loads, prepare - runs for real on a CPU.
Load it with ``-p test_only.hybrid`` (tests/ on PYTHONPATH; results/h200-parity/cpu_worker_probe/run.sh).  ``HYB_CPUS=N`` makes the worker
believe its affinity mask holds N CPUs (the H200 host's 16), so it starts as many compile
threads and build children as it would there.  Its timings are the fake's, never a measurement.
"""

import os

from fake_backend import FakeBackend, FakeTraits  # tests/ on PYTHONPATH, as for every test_only plugin
from tlbench.backends.nvidia.backend import NvidiaBackend

if os.environ.get("HYB_CPUS"):  # TEST-ONLY: pretend a bigger host's affinity mask
    _cpus = set(range(int(os.environ["HYB_CPUS"])))
    os.sched_getaffinity = lambda pid: _cpus


class HybridBackend(NvidiaBackend):
    name = "hybrid"
    traits = FakeTraits("hybrid", color="#777777")

    def __init__(self, options, worker_facts=None):
        super().__init__(options, None)
        self._fake = FakeBackend(options)
        self._device_reason = None

    def device_blocker(self):
        return None

    def device_info(self):
        return self._fake.device_info()

    def worker_facts(self):
        return None

    def make_inputs(self, problem, seed):
        return None

    def check(self, runnable, inputs):
        return self._fake.check(runnable, inputs)

    def timer(self, runnable, inputs, flush_l2):
        return self._fake.timer(runnable, inputs, flush_l2)


def pytest_tlbench_register_backends(registry):
    registry.register("hybrid", HybridBackend)
