"""Checks that fit, and say so: on real torch tensors and a real ``kernel_sweep``.

- An fp8 output's default rule is ``steps(1)``: a tie the kernel rounds the other way (it
  divides by a scale, the reference multiplies by the inverse) is one whole step, far past a
  1e-2 tolerance at fp8's magnitudes.  ``rtol``/``atol`` given keep the tolerance.
- A tolerance that fails says how many of its failing elements ``steps(1)`` would accept (and
  the ``steps(k)`` that accepts them all, where k is small).
- ``steps`` failing by many steps (an fp32 accumulation in another order, rounded to fp8)
  names ``similarity()``; a failure by two steps does not.
"""

import pytest

torch = pytest.importorskip("torch")

from tlbench import kernel_sweep  # noqa: E402
from tlbench.harness.sweep_api.rules import Steps, Tolerance, rule_for, steps, tolerance  # noqa: E402

E4M3 = torch.float8_e4m3fn


def _shifted(ref: torch.Tensor, *moves: tuple[int, int, int]) -> torch.Tensor:
    """``ref`` rounded to e4m3, elements [start, stop) of each move shifted that many representable values up."""
    bits = ref.to(E4M3).view(torch.uint8).clone()
    for start, stop, steps_up in moves:
        bits[start:stop] += steps_up
    return bits.view(E4M3)


def _sweep(**given):
    return kernel_sweep("fp8_default", lambda N: None, sizes={"N": 8}, inputs=lambda device, N: [], **given)


def test_an_fp8_output_is_judged_by_steps_one_by_default_and_by_the_tolerance_given():
    family = _sweep().family
    assert rule_for(family.check_spec, 0, "Y", "float8_e4m3fn", family.tolerance) == Steps(1)
    assert rule_for(family.check_spec, 0, "Y", "float8_e5m2", family.tolerance) == Steps(1)
    assert rule_for(family.check_spec, 0, "Y", "float16", family.tolerance) == Tolerance()
    given = _sweep(rtol=0.1, atol=0.1).family
    assert rule_for(given.check_spec, 0, "Y", "float8_e4m3fn", given.tolerance) == tolerance(0.1, 0.1)


def test_a_tie_rounded_the_other_way_fails_the_tolerance_and_passes_the_fp8_default():
    ref = torch.full((64,), 104.0)  # e4m3 steps of 8 here: one step is 7.7 % of the value
    out = _shifted(ref, (0, 4, 1))
    assert not tolerance().judge(out, ref).ok
    assert rule_for(None, 0, "Y", "float8_e4m3fn").judge(out, ref).ok


def test_a_failed_tolerance_says_how_many_failing_elements_steps_would_accept():
    ref = torch.full((64,), 104.0)
    verdict = tolerance().judge(_shifted(ref, (0, 4, 1)), ref)
    assert verdict.detail == ("4 of 64 outside atol 0.01 + rtol 0.01 * |ref|; steps(1) would accept 4 of these 4")
    verdict = tolerance().judge(_shifted(ref, (0, 3, 1), (3, 5, 2)), ref)
    assert verdict.detail.endswith("; steps(1) would accept 3 of these 5, steps(2) all")
    mixed = tolerance().judge(_shifted(ref, (0, 4, 1), (4, 6, 9)), ref)  # rounding ties and a tail 9 steps off
    assert mixed.detail.endswith("; steps(1) would accept 4 of these 6; the rest are up to 9 steps off, as a reduction "
                                 "summed in another order than the reference's lands: judge it with similarity()")
    half = torch.full((8,), 1.0, dtype=torch.float16)
    assert "steps" not in tolerance().judge(half + 0.5, half.float()).detail  # 512 fp16 steps away: no steps() near


def test_steps_failing_by_many_steps_names_similarity_and_by_two_does_not():
    ref = torch.linspace(1, 200, 256)
    many = steps(1).judge(_shifted(ref, (0, 40, 6)), ref)
    assert not many.ok and "worst 6 steps" in many.detail
    assert many.detail.endswith("a reduction summed in another order than the reference's lands this far: judge it with "
                                "similarity()")
    two = steps(1).judge(_shifted(ref, (0, 3, 2)), ref)
    assert not two.ok and "similarity" not in two.detail
