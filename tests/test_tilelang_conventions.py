"""tilelang's conventions hold for every family, through harness/core/kernel_traits.py:

- a family's tilelang ``pass_configs`` reach the lowering that records the plan on both
  backends (real tilelang on this CPU): ``tl.disable_warp_specialized`` turns the NVIDIA plan
  of an sm_90a GEMM from warp-specialized (TMA) into a software pipeline (cp.async), ``tl.enable_auto_schedule=False`` leaves the Ascend lowering with
  no Z3 solve; without them both are there;
- ``out_idx`` reaches the build (real nvcc where present) and the call: the built kernel
  returns that parameter, the backend leaves it out of the call and copies the returned
  tensor into the family's output buffer on the checked run (the call itself with a fake
  kernel, ``FakeBuiltKernel``: there is no GPU here to run a real one);
- a 2-D grid is recorded whole in the NVIDIA plan;
- ``make_inputs`` and ``check`` are told the dialect where they take it, and still work for
  a family whose methods do not; a config without ``loop_form`` / ``threads`` gets defaults;
- a kernel that asks for another target is refused with the backend's words.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

from tlbench.backends.kernel_call import kernel_runner, returned_outputs
from tlbench.harness.core import kernel_traits as ask
from tlbench.harness.core.cases import Case


class FakeBuiltKernel:
    """Stands in for a built tilelang kernel (no GPU here): records its arguments, returns
    ``result`` for the parameters named by ``out_idx``."""

    def __init__(self, out_idx, result):
        self.out_idx, self.result, self.calls = out_idx, result, []

    def __call__(self, *args):
        self.calls.append(args)
        return self.result


class Buffer:
    def __init__(self, value):
        self.value = value

    def copy_(self, other):
        self.value = other.value


def test_returned_outputs_are_left_out_of_the_call_and_copied_back_when_checked():
    a, b, c = Buffer("a"), Buffer("b"), Buffer("poison")
    kernel = FakeBuiltKernel([-1], Buffer("a+b"))
    kernel_runner(kernel, (a, b, c), write_outputs=True)()
    assert kernel.calls == [(a, b)] and c.value == "a+b"
    c.value = "poison"
    kernel_runner(kernel, (a, b, c), write_outputs=False)()  # timed: the call alone
    assert kernel.calls[-1] == (a, b) and c.value == "poison"
    plain = FakeBuiltKernel(None, None)
    kernel_runner(plain, (a, b, c), write_outputs=True)()
    assert plain.calls == [(a, b, c)]
    two = FakeBuiltKernel([1, 3], (Buffer("x"), Buffer("y")))
    outs = [Buffer(0), Buffer(0)]
    kernel_runner(two, (a, outs[0], b, outs[1]), write_outputs=True)()
    assert two.calls == [(a, b)] and [o.value for o in outs] == ["x", "y"]
    with pytest.raises(ValueError, match="kernel_args must list every parameter"):
        kernel_runner(FakeBuiltKernel([5], None), (a, b), write_outputs=True)


# -- a family that adds tilelang conventions to the GEMM body --------------------------------
from builtin_gemm import FAMILY as GEMM, config, problem  # noqa: E402  (the suites' GEMM through kernel_sweep)


class ConventionGemm:
    """The built-in GEMM (the suites' body and words, tests/builtin_gemm.py), with pass configs /
    out_idx / a target chosen by the test on top of the traits it has."""

    name = "gemm_conventions"

    def __init__(self, **traits):
        self.traits = traits

    def __getattr__(self, member):
        return getattr(GEMM, member)

    def kernel_traits(self, problem, config, dialect):
        return {**GEMM.kernel_traits(problem, config, dialect), **self.traits}


def _case(owner, sizes=None, axes=None):
    return Case(GEMM.problem(sizes or problem(1024, 1024, 1024)).bound_to(owner),
                GEMM.config(axes or config(128, 128, 64, 128, "auto", 2)))


@pytest.fixture(scope="module")
def nvidia():
    pytest.importorskip("tilelang")
    from tlbench.backends.nvidia.backend import NvidiaBackend
    from tlbench.harness.core.backend_api import BackendOptions

    return NvidiaBackend(BackendOptions({"nvidia_arch": "sm_90a"}))


def test_nvidia_pass_configs_reach_the_plans_lowering(nvidia):
    default = nvidia.lower(_case(ConventionGemm())).plan
    no_ws = nvidia.lower(_case(ConventionGemm(pass_configs={"tl.disable_warp_specialized": True}))).plan
    assert default.pipeline["kind"] == "warp-specialized" and default.features["tma"] is True
    assert no_ws.pipeline["kind"] == "software-pipeline" and no_ws.features["tma"] is False
    assert nvidia.pass_configs(_case(ConventionGemm())) is None


def test_the_nvidia_plan_records_a_2d_grid_whole(nvidia):
    pytest.importorskip("tilelang")
    import tilelang.language as T

    class Grid2D(ConventionGemm):
        def build(self, problem, config, dialect):
            M, N = problem.values["M"], problem.values["N"]

            @T.prim_func
            def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
                with T.Kernel(N // 128, M // 64, threads=128) as (bx, by):
                    for i, j in T.Parallel(64, 128):
                        B[by * 64 + i, bx * 128 + j] = A[by * 64 + i, bx * 128 + j]

            return main

    plan = nvidia.lower(_case(Grid2D(), problem(512, 1024, 64))).plan
    assert plan.features["grid_dims"] == [8, 8, 1]
    assert plan.features["grid"] == 64 and plan.threads == 128


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="building needs nvcc")
def test_out_idx_reaches_the_build(nvidia):
    case = _case(ConventionGemm(out_idx=[-1]))
    compiled = nvidia.compile(case, cold=True)
    assert returned_outputs(compiled.handle, 3) == (2,)  # C: tilelang allocates and returns it


def test_a_kernel_asking_for_another_target_is_refused(nvidia):
    from tlbench.harness.core.backend_api import CompileError

    with pytest.raises(CompileError, match="asks for target 'hip'; the nvidia backend builds for"):
        nvidia.lower(_case(ConventionGemm(target="hip")))


def test_ascend_pass_configs_reach_lower_with_schedule(ascend):
    sizes = problem(512, 512, 1024, "bfloat16", out_dtype="float32")
    axes = config(128, 128, 128, 128, "auto", 2, num_cores=4)
    scheduled = ascend.lower(_case(ConventionGemm(), sizes, axes)).plan.schedule_model
    unscheduled = ascend.lower(_case(ConventionGemm(pass_configs={"tl.enable_auto_schedule": False}), sizes, axes)).plan.schedule_model
    assert scheduled["loops"] and scheduled["missing"] is None
    assert unscheduled["loops"] == [] and "no Z3 solve" in unscheduled["missing"]


# -- dialect-aware make_inputs / check, defaults for configs without the fields ---------------
@dataclass(frozen=True)
class BareProblem:
    n: int
    family: ClassVar[Any] = None

    @property
    def problem_id(self):
        return f"bare-{self.n}"


@dataclass(frozen=True)
class BareConfig:
    block: int

    @property
    def config_id(self):
        return f"b{self.block}"


class DialectFamily:
    """Records what it is told (the harness's own logic under test: no kernel runs)."""

    name = "dialect_family"

    def __init__(self):
        self.told = []

    def make_inputs(self, problem, seed, device, dialect=None):
        self.told.append(("make_inputs", dialect))
        return {"device": device}

    def check(self, inputs, problem, dialect=None):
        self.told.append(("check", dialect))
        return "checked"


class LegacyFamily:
    name = "legacy_family"

    def make_inputs(self, problem, seed, device):
        return {"seed": seed}

    def check(self, inputs, problem):
        return "checked"


def test_make_inputs_and_check_are_told_the_dialect_where_they_take_it(nvidia):
    recorder = DialectFamily()

    @dataclass(frozen=True)
    class Problem(BareProblem):
        family: ClassVar[Any] = recorder

    problem = Problem(8)
    nvidia.make_inputs(problem, 0)  # the NVIDIA backend's own call (no GPU: device None)
    assert recorder.told == [("make_inputs", "cuda")]
    assert ask.check({}, problem, "ascend") == "checked" and recorder.told[-1] == ("check", "ascend")

    @dataclass(frozen=True)
    class Old(BareProblem):
        family: ClassVar[Any] = LegacyFamily()

    assert ask.make_inputs(Old(8), 3, None, "cuda") == {"seed": 3}
    assert ask.check({}, Old(8), "cuda") == "checked"


def test_a_config_without_the_fields_gets_the_defaults():
    @dataclass(frozen=True)
    class Problem(BareProblem):
        family: ClassVar[Any] = LegacyFamily()

    traits = ask.kernel_traits(Case(Problem(8), BareConfig(64)), "cuda")
    assert (traits.loop_form, traits.num_stages, traits.threads, traits.num_cores, traits.enable_offset) == (None, None, None, None, False)
    assert traits.pass_configs == {} and traits.out_idx is None
    assert traits.body_modules == (__name__,)  # the module of the family, problem and config classes


def test_an_unknown_trait_is_refused_with_the_known_ones():
    class Typo(LegacyFamily):
        def kernel_traits(self, problem, config, dialect):
            return {"num_stage": 2}

    @dataclass(frozen=True)
    class Problem(BareProblem):
        family: ClassVar[Any] = Typo()

    with pytest.raises(ValueError, match="unknown trait.*num_stage; known: loop_form, num_stages"):
        ask.kernel_traits(Case(Problem(8), BareConfig(64)), "cuda")


def test_a_family_without_a_vendor_call_says_what_to_add():
    from tlbench.harness.core.cases import VendorCase

    @dataclass(frozen=True)
    class Problem(BareProblem):
        family: ClassVar[Any] = LegacyFamily()

    with pytest.raises(ask.NoVendorCall, match="give it a vendor_call"):
        ask.vendor_call(VendorCase(Problem(8)), {}, "cuda", timed=True)
