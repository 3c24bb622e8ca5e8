"""FakeBackend: a stand-in backend for testing the pytest plugin's own logic only.

Its cases are the test-only tile family's (tests/toys/tile_family.py: a tiled kernel's sizes and
tile, no body).  It compiles nothing and runs nothing: ``compile`` returns a canned plan (or raises a
``CompileError`` for block_K == 7), its ``timer`` hands out the samples the test dictates (``DEVICE_SAMPLES_S``, cycled),
with no telemetry.
Real lowering, plans and schedules are tested against tilelang in the other test files.

TEST-ONLY fault injection (never part of a shipped suite), chosen by the config's tile (a typed
config's field or a kernel_sweep config's value):
- block_K == 13: ``compile`` segfaults (``ctypes.string_at(0)``), as a crash inside tilelang;
- block_N == 24: ``check`` raises (a Python-level crash in the check);
- block_N == 40: a timed batch segfaults (a device fault that kills the process);
- block_N == 56: a timed batch never returns (a hanging kernel);
- block_N == 72: a timed batch raises a sticky fault with multi-line words
  (``ILLEGAL_ADDRESS_WORDS``): every later ``check``/batch of this backend instance raises
  too (a CUDA context after an illegal address);
- block_K == 48: ``compile`` runs a real child process (``slow_child_compiler``, as nvcc is
  run), which writes its pid to the file named by ``$TLBENCH_FAKE_COMPILE_GATE`` and then sleeps until it
  is killed (a test sends the run a Ctrl-C while it is there); the call crosses an FFI-like
  boundary that turns any exception into a ``RuntimeError`` without words, as tvm-ffi does
  with a KeyboardInterrupt raised under a compiler callback, and a child that did not end well is a
  ``CompileError`` with its exit status, as tilelang's nvcc wrapper reports one;
- block_N == 88: a timed batch waits until the file named by ``$TLBENCH_FAKE_GATE`` exists
  (a test holds a run there, to kill it at a known point); with
  ``$TLBENCH_FAKE_GATE_PROBLEM`` set, only in the problem of that problem_id.
With ``$TLBENCH_FAKE_WORKER_DIES_AT_START`` naming a file, a worker process's backend appends
its pid to that file and exits 3 as it is built (a backend that cannot start on this machine, a
driver that aborts at load); the pytest process's own backend is unaffected.
With ``TLBENCH_FAKE_FAULTS=off`` in the environment these configs behave like any other (a
clean base run to compare a faulty one against).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tlbench.harness.core import budget
from tlbench.harness.core.backend_api import BackendOptions, Compiled, CompileError
from tlbench.harness.core.backend_traits import DefaultTraits
from tlbench.harness.core.cases import CheckResult, Plan, VendorCase

def four_stage_suite(name: str) -> str:
    """A pytester suite file: one 1024^3 tile problem (tests/toys/tile_family.py), num_stages
    1..4, device items only (the fake backend times them)."""
    return f'''
from tlbench.harness.core.sweep import Sweep
from tile_family import TileConfig, TileProblem

SWEEP = Sweep(
    name="{name}",
    problems=[TileProblem(1024, 1024, 1024)],
    configs=[TileConfig(128, 128, 32, 128, "auto", s) for s in (1, 2, 3, 4)],
    kinds=("device",),
)

def test_four(tlbench):
    tlbench.run()
'''


CONFTEST = f"""
import sys
sys.path.insert(0, {str(Path(__file__).resolve().parent / "toys")!r})
sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})
from fake_backend import FakeBackend

def pytest_tlbench_register_backends(registry):
    registry.register("fake", FakeBackend)
"""
"""A pytester conftest that registers FakeBackend as "fake" (the tests that need only that), with
tests/toys/ on ``sys.path`` for the suites' case material (``from tile_family import ...``)."""

DEVICE_SAMPLES_S = (1.0e-3, 1.1e-3, 0.9e-3, 1.05e-3, 0.95e-3)
COMPILE_SECONDS = 0.25
# A sticky fault's words, multi-line as torch's are (its advice lines end in TORCH_USE_CUDA_DSA).
ILLEGAL_ADDRESS_WORDS = (
    "FakeIllegalAddress: an illegal memory access was encountered (test-only injection)\n"
    "Fake kernel errors might be asynchronously reported at some other API call.\n"
    "For debugging consider passing FAKE_LAUNCH_BLOCKING=1\n"
    "Compile with `FAKE_USE_DSA` to enable device-side assertions.\n"
)


@dataclass(frozen=True)
class FakeTraits(DefaultTraits):
    """The fake's own traits: a pytest-xdist worker is pinned through FAKE_VISIBLE_DEVICES."""

    def device_env(self, device):
        return {"FAKE_VISIBLE_DEVICES": device}


def _faults_on() -> bool:
    import os

    return os.environ.get("TLBENCH_FAKE_FAULTS") != "off"


def _tile(config, key: str):
    """``block_N`` / ``block_K`` of a config, the keys the faults are chosen by: a typed config's
    field (the tile family's) or a described config's value (a kernel_sweep suite's); None where
    it has none."""
    values = getattr(config, "values", None)
    return values.get(key) if isinstance(values, dict) else getattr(config, key, None)


class FakeBackend:
    name = "fake"
    dialect = "cuda"  # a family's footprint for the CUDA dialect is its budget (the tile family's A and B tiles); it builds nothing
    traits = FakeTraits("fake", color="#777777")

    def __init__(self, options: BackendOptions):
        import os
        import sys

        dies_at_start = os.environ.get("TLBENCH_FAKE_WORKER_DIES_AT_START")
        if dies_at_start and "worker_main" in sys.argv[0]:  # TEST-ONLY: in a worker process only
            with open(dies_at_start, "a") as log:
                log.write(f"{os.getpid()}\n")
            os._exit(3)
        self.options = options
        self.sticky_fault: str | None = None

    def compile_blocker(self):
        return None

    def device_blocker(self):
        return None

    def device_info(self):
        import os

        device = os.environ.get("FAKE_VISIBLE_DEVICES")
        return {
            "backend": "fake",
            "accelerator": "FakeAccelerator 1.0" + (f" #{device}" if device else ""),
            "uuid": f"FAKE-{device or 0}",
        }

    def scopes(self):
        # its own on-chip memory: one 227 KiB shared-memory scope, filled as the CUDA body fills it
        return (budget.Scope("shared.dyn", 227 * budget.KiB),)

    def budget(self, case):
        return budget.check(case, self.scopes(), self.dialect)

    def rejection(self, case):
        from tlbench.harness.core.space import Rejection

        verdict = self.budget(case)
        return None if verdict.fits else Rejection(case.config, "budget", verdict.reason)

    def lowering_key(self):
        import os

        return os.environ.get("TLBENCH_FAKE_COMPILER", "fake-compiler 1")

    def kernel_source(self, case):
        import os

        log = os.environ.get("TLBENCH_FAKE_LOWER_LOG")  # a test counts the lowerings here
        if log:
            with open(log, "a") as out:
                out.write(case.case_id + "\n")
        return f"fake kernel {case.config.config_id}"

    def compile(self, case, cold):
        import gc
        import os

        log = os.environ.get("TLBENCH_FAKE_COMPILE_LOG")  # a test reads the order of the compiles here
        if log:
            with open(log, "a") as out:
                cpus = ",".join(map(str, sorted(os.sched_getaffinity(0)))) if hasattr(os, "sched_getaffinity") else "?"
                nice = os.getpriority(os.PRIO_PROCESS, 0) if hasattr(os, "getpriority") else "?"
                out.write(f"{case.case_id} cold={cold} gc={gc.isenabled()} pid={os.getpid()} cpus={cpus} nice={nice}\n")
        block_k = _tile(case.config, "block_K")
        if block_k == 13 and _faults_on():
            import ctypes

            ctypes.string_at(0)  # TEST-ONLY: a segfault inside the "compiler"
        if block_k == 48 and _faults_on():
            slow_child_compiler(os.environ["TLBENCH_FAKE_COMPILE_GATE"])
        if block_k == 7:
            raise CompileError("FakeCompilerError: block_K=7 is not a legal tile (fake compiler message)")
        plan = Plan(backend="fake", target="fake", pipeline={"kind": "none"}, buffers=[], bytes_per_scope={}, limits={})
        return Compiled(case=case, handle=None, plan=plan, compile_seconds=COMPILE_SECONDS, phases_s={"fake": COMPILE_SECONDS})

    def inspect(self, compiled):
        return compiled.plan

    def make_inputs(self, problem, seed, config=None):
        return {"seed": seed}

    def check(self, runnable, inputs):
        self._raise_if_sticky()
        block_n = None if isinstance(runnable, VendorCase) else _tile(runnable.case.config, "block_N")
        if block_n == 24 and _faults_on():
            raise RuntimeError("FakeCheckCrash: the check itself crashed (test-only injection)")
        wrong = block_n == 8
        return CheckResult(ok=not wrong, max_abs_err=5.0 if wrong else 0.0, max_rel_err=0.0, mismatched=3 if wrong else 0,
                           total=10, rtol=1e-2, atol=1e-2, detail="3 of 10 elements differ" if wrong else "")

    def _raise_if_sticky(self):
        if self.sticky_fault:
            raise RuntimeError(f"FakeStickyError: context is broken since an earlier fault ({self.sticky_fault})")

    def _inject(self, runnable):
        """TEST-ONLY faults of a timed batch, by the config (see the module docstring)."""
        self._raise_if_sticky()
        block_n = None if isinstance(runnable, VendorCase) or not _faults_on() else _tile(runnable.case.config, "block_N")
        if block_n == 40:
            import ctypes

            ctypes.string_at(0)  # TEST-ONLY: the device "faults" and takes the process down
        if block_n == 56:
            import time

            while True:  # TEST-ONLY: a kernel that never finishes
                time.sleep(1)
        if block_n == 72:
            self.sticky_fault = "illegal memory access (fake)"
            raise RuntimeError(ILLEGAL_ADDRESS_WORDS)
        if block_n == 88:
            import os
            import time

            gate = os.environ["TLBENCH_FAKE_GATE"]
            only = os.environ.get("TLBENCH_FAKE_GATE_PROBLEM")
            while not os.path.exists(gate) and only in (None, runnable.case.problem.problem_id):
                time.sleep(0.05)

    def timer(self, runnable, inputs, flush_l2):
        import os

        timer = FakeTimer(DEVICE_SAMPLES_S, before_batch=lambda: self._inject(runnable))
        cpus = ",".join(map(str, sorted(os.sched_getaffinity(0)))) if hasattr(os, "sched_getaffinity") else "?"
        timer.notes.append(f"measured on CPUs {cpus} in pid {os.getpid()}, FAKE_VISIBLE_DEVICES={os.environ.get('FAKE_VISIBLE_DEVICES')}")
        return timer


def slow_child_compiler(gate: str) -> None:
    """TEST-ONLY (block_K == 48): a real child "compiler" that writes ``gate`` and sleeps until
    killed, called as a compiler calls nvcc from under an FFI boundary (see the module docstring)."""
    import subprocess
    import sys

    def call() -> int:  # tilelang's nvcc call: Popen + communicate, its exit status read after
        child = subprocess.Popen([sys.executable, "-c", "import os, sys, time; open(sys.argv[1], 'a').write(str(os.getpid())); time.sleep(600)", gate])
        child.communicate()
        return child.returncode

    try:
        returncode = call()
    except BaseException:  # the FFI boundary: tvm-ffi hands a callback's KeyboardInterrupt back as a wordless RuntimeError
        raise CompileError("RuntimeError: ") from None
    if returncode != 0:
        raise CompileError(f"FakeCompilerError: the child compiler exited with status {returncode}")


class FakeTimer:
    """Hands out ``samples`` in order, cycling; a test's sequence stands for a device."""

    method = "fake-timer"
    l2_flush_bytes = 0

    def __init__(self, samples, telemetry=None, before_batch=None):
        self._samples, self._next, self._telemetry = tuple(samples), 0, telemetry
        self._before_batch = before_batch
        self.notes = []

    def batch(self, k):
        if self._before_batch is not None:
            self._before_batch()
        out = [self._samples[(self._next + i) % len(self._samples)] for i in range(k)]
        self._next += k
        return out

    def telemetry(self):
        return self._telemetry


class UnavailableFakeBackend(FakeBackend):
    name = "fake_gone"
    traits = FakeTraits("fake_gone")

    def device_blocker(self):
        return "FakeAccelerator not present"


class WarmingFakeBackend(FakeBackend):
    """TEST-ONLY: the fake with a ``warm_up_compile()`` (a real backend's: small kernels of its
    own through its lowering), which appends ``warm-up pid=<pid>`` to the compile log, raises
    with ``$TLBENCH_FAKE_WARM_UP_FAILS`` set, or ends its process with ``$TLBENCH_FAKE_WARM_UP_DIES``."""

    def warm_up_compile(self):
        import os

        if os.environ.get("TLBENCH_FAKE_WARM_UP_FAILS"):
            raise RuntimeError("fake warm-up kernel refused (test-only)")
        if os.environ.get("TLBENCH_FAKE_WARM_UP_DIES"):
            os._exit(3)  # TEST-ONLY: a compiler that takes the process down on the warm-up kernel
        log = os.environ.get("TLBENCH_FAKE_COMPILE_LOG")
        if log:
            with open(log, "a") as out:
                out.write(f"warm-up pid={os.getpid()}\n")
        return []



def record_warm_up():
    """A runtime warm-up for tests/test_worker_warm_up.py (named by a WorkerSpec's ``warm_up``):
    takes a while, then appends a line to the file named by TLBENCH_TEST_WARM_UP_LOG."""
    import os
    import time

    time.sleep(0.5)
    with open(os.environ["TLBENCH_TEST_WARM_UP_LOG"], "a") as log:
        log.write(f"warm_up {os.getpid()}\n")
