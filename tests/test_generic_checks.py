"""The rules that judge a generic kernel's outputs, on real torch tensors (no kernel runs here).

What is pinned: ``steps(k)`` counts representable values of the output's own dtype (fp8
e4m3 / e5m2, fp16, bf16, fp32): a tie rounded the other way is one step, two steps fail;
every rule rejects an output that still holds its poison (NaN for floats, fp8 included; the
integer sentinel; a non-boolean byte for bool); ``exact`` compares integers and bools;
``similarity`` is tilelang's ``calc_diff``; ``mismatch`` allows a fraction, never an
unwritten element; a ``check=`` spec resolves per output, integers defaulting to ``exact``;
records name the rule that judged.  Every verdict gives the largest error over the elements
finite on both sides and counts the non-finite ones (NaN or inf where the reference is
finite, or not the reference's own infinity), which still fail; the same infinity on both
sides matches; ``steps`` fails an overflow to infinity.
"""

import math

import pytest

torch = pytest.importorskip("torch")

from tlbench.harness.sweep_api.rules import (  # noqa: E402
    Exact, Tolerance, UserRule, exact, mismatch, normalize, rule_for, similarity, spec_problems, steps, tolerance,
)
from tlbench.backends.kernels.generic.tensors import judge  # noqa: E402
from tlbench.backends.output_poison import poison_tensor, poisoned  # noqa: E402

E4M3 = torch.float8_e4m3fn


def _neighbours(value: float, dtype) -> tuple[float, float]:
    """``value`` as ``dtype`` and the next representable value above it."""
    t = torch.tensor([value]).to(dtype)
    bits = t.view(torch.uint8) if t.element_size() == 1 else t.view(torch.int16)
    up = (bits + 1).view(dtype)
    return float(t.float()), float(up.float())


def test_steps_one_on_fp8_e4m3_passes_a_tie_rounded_one_step_off_and_fails_two():
    low, high = _neighbours(1.125, E4M3)  # e4m3 around 1: steps of 0.125
    assert (low, high) == (1.125, 1.25)
    tie = (low + high) / 2  # 1.1875: exactly between two e4m3 values
    ref = torch.tensor([tie, 2.0, -0.5], dtype=torch.float32)
    rounded = ref.to(E4M3)
    other_way = rounded.clone()
    flip = other_way.view(torch.uint8)
    flip[0] = flip[0] + 1 if float(rounded[0].float()) == low else flip[0] - 1  # the tie rounded the other way
    assert float(other_way[0].float()) != float(rounded[0].float())
    one = steps(1).judge(other_way, ref)
    assert one.ok and one.mismatched == 0
    two_off = rounded.clone()
    two_off.view(torch.uint8)[1] += 2  # 2.0 -> two representable values above it
    two = steps(1).judge(two_off, ref)
    assert not two.ok and two.mismatched == 1 and "worst 2 steps" in two.detail
    assert steps(2).judge(two_off, ref).ok


def test_steps_zero_is_exact_to_the_rounded_reference_and_counts_across_zero():
    ref = torch.tensor([0.0, 1e-3, -1e-3], dtype=torch.float32)
    assert steps(0).judge(ref.to(torch.float16), ref).ok

    def fp16_bits(*patterns):
        return torch.tensor(patterns, dtype=torch.int32).to(torch.int16).view(torch.float16)

    one_up, one_down, two_up = fp16_bits(0x0001), fp16_bits(0x8001 - 0x10000), fp16_bits(0x0002)  # +1, -1, +2 steps from 0
    assert steps(1).judge(torch.cat([one_up, one_down]), torch.zeros(2)).ok  # -0 and +0 are the same point
    assert not steps(1).judge(two_up, torch.zeros(1)).ok and steps(2).judge(two_up, torch.zeros(1)).ok
    assert not steps(1).judge(one_down, torch.tensor([float(one_up)])).ok  # -1 step to +1 step: two


@pytest.mark.parametrize("dtype", [torch.float8_e4m3fn, torch.float8_e5m2, torch.float16, torch.bfloat16, torch.float32])
def test_steps_fail_nan_and_the_poison_of_every_float_dtype(dtype):
    ref = torch.linspace(-2, 2, 16)
    out = poison_tensor(torch.empty(16, dtype=dtype))
    verdict = steps(1).judge(out, ref)
    assert not verdict.ok and verdict.mismatched == 16
    assert steps(1).judge(ref.to(dtype), ref).ok


def test_steps_refuses_integer_outputs_at_the_preflight():
    assert steps(1).fits("int32") is not None and "int32" in steps(1).fits("int32")
    assert steps(1).fits("float8_e4m3") is None and steps(1).fits("bfloat16") is None


@pytest.mark.parametrize("dtype", [torch.int8, torch.int32, torch.int64, torch.uint8, torch.bool])
def test_integer_and_bool_poison_is_what_the_dtype_holds_and_exact_rejects_it(dtype):
    out = poison_tensor(torch.empty(8, dtype=dtype))
    assert bool(poisoned(out).all())
    ref = torch.ones(8, dtype=dtype)
    verdict = exact().judge(out, ref)
    assert not verdict.ok and verdict.mismatched == 8 and "still hold the poison" in verdict.detail
    assert exact().judge(ref.clone(), ref).ok


def test_a_bool_output_is_judged_by_its_bytes_not_by_truthiness():
    out = poison_tensor(torch.empty(4, dtype=torch.bool))
    assert bool((out == torch.ones(4, dtype=torch.bool)).all())  # torch calls the poison byte True ...
    assert not exact().judge(out, torch.ones(4, dtype=torch.bool)).ok  # ... the rule does not


def test_exact_compares_int32_indices_with_an_int64_reference():
    ref = torch.tensor([3, 1, 2], dtype=torch.int64)  # torch.topk's indices
    assert exact().judge(ref.to(torch.int32), ref).ok
    assert not exact().judge(torch.tensor([3, 2, 1], dtype=torch.int32), ref).ok


def test_tolerance_similarity_and_mismatch():
    ref = torch.linspace(1, 2, 1000)
    near = ref * (1 + 1e-3)
    assert tolerance(1e-2, 0).judge(near, ref).ok and not tolerance(1e-4, 0).judge(near, ref).ok
    assert similarity().judge(near, ref).ok
    diff = 1 - 2 * float((near.double() * ref.double()).sum()) / float((near.double() ** 2 + ref.double() ** 2).sum())
    assert diff < 1e-3  # tilelang's calc_diff
    assert not similarity(max_diff=diff / 2).judge(near, ref).ok
    assert similarity(min_cosine=0.9999).judge(near, ref).ok and not similarity(min_cosine=0.5).judge(-near, ref).ok
    few_off = ref.clone()
    few_off[:5] += 1
    assert mismatch(0.01).judge(few_off, ref).ok and not mismatch(0.001).judge(few_off, ref).ok
    unwritten = ref.clone()
    unwritten[0] = math.nan
    verdict = mismatch(0.5).judge(unwritten, ref)
    assert not verdict.ok and "poison" in verdict.detail


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_tolerance_says_how_many_elements_still_hold_the_poison(dtype):
    ref = torch.linspace(1, 2, 64)
    half = poison_tensor(torch.empty(64, dtype=dtype))
    half[:32] = ref[:32].to(dtype)  # a kernel that wrote half its output
    verdict = tolerance(1e-2, 1e-2).judge(half, ref)
    assert not verdict.ok and verdict.mismatched == 32
    assert verdict.detail == "32 of 64 outside atol 0.01 + rtol 0.01 * |ref| (32 non-finite; 32 still hold the poison value: never written?)"
    wrong = ref.to(dtype) + 1  # written, but wrong: nothing to say of the poison
    assert tolerance(1e-2, 1e-2).judge(wrong, ref).detail == "64 of 64 outside atol 0.01 + rtol 0.01 * |ref|"


def test_a_check_spec_resolves_per_output_with_exact_for_integers():
    spec = normalize({"idx": exact(), 0: steps(1)})
    assert rule_for(spec, 0, "vals", "float8_e4m3") == steps(1)
    assert rule_for(spec, 1, "idx", "int32") == exact()
    assert rule_for(None, 0, "x", "int32") == Exact() and rule_for(None, 0, "x", "float16") == Tolerance()
    assert rule_for(None, 0, "x", "float16", tolerance(0.1, 0.2)) == tolerance(0.1, 0.2)
    assert rule_for(normalize([steps(1)]), 1, "idx", "bool") == Exact()  # past the list: the default
    user = normalize(lambda out, ref: None)
    assert isinstance(user, UserRule)
    assert spec_problems(normalize({"nope": exact(), 3: exact()}), ["C"]) == [
        "check names output 'nope', the kernel's outputs are C", "check names output 3, the kernel has 1 output(s)"]
    with pytest.raises(TypeError, match="must be a rule"):
        normalize(3)


def test_the_check_result_names_the_rule_of_each_output():
    vals, idx = torch.tensor([1.0, 2.0]), torch.tensor([0, 1], dtype=torch.int32)
    result = judge([vals.to(E4M3), idx], (vals, idx.long()), [steps(1), exact()], ["vals", "idx"])
    assert result.ok and result.rule == "vals: steps(1); idx: exact()"
    assert result.to_dict()["rule"] == "vals: steps(1); idx: exact()" and result.to_dict()["checked"] is True
    bad = judge([poison_tensor(torch.empty(2, dtype=E4M3)), idx], (vals, idx.long()), [steps(1), exact()], ["vals", "idx"])
    assert not bad.ok and bad.detail.startswith("output 0 (vals) by steps(1): 2 of 2 more than 1 representable")


def test_bound_judges_each_element_against_an_allowed_error_computed_from_the_inputs():
    from tlbench.harness.sweep_api.rules import Bound, bound

    def allowed(ref, x):  # an input-dependent tolerance: larger where |x| is larger
        return 1e-3 + 0.1 * x.abs()

    rule = bound(allowed, "1e-3 + 0.1|x|")
    assert isinstance(rule, Bound) and rule.words == "bound(1e-3 + 0.1|x|)"
    assert rule.fits("bfloat16") is None and "float outputs" in rule.fits("int32")
    x = torch.tensor([0.0, 1.0, 10.0])
    ref = torch.zeros(3)
    within = rule.given(allowed(ref, x))
    assert within.judge(torch.tensor([0.0005, 0.09, 0.9]), ref).ok
    failed = within.judge(torch.tensor([0.002, 0.09, 0.9]), ref)  # element 0 over 1e-3
    assert (failed.ok, failed.mismatched) == (False, 1) and "outside the bound bound(1e-3 + 0.1|x|)" in failed.detail
    poisoned_out = poison_tensor(torch.empty(3))
    assert not within.judge(poisoned_out, ref).ok  # an unwritten output never passes
    assert within.judge(torch.tensor([0.0005, 0.09]), ref[:2]).ok  # a spot check judges a prefix
    assert normalize(rule) is rule
    with pytest.raises(TypeError, match="allowed must be a callable"):
        bound(0.1)


INF, NAN = math.inf, math.nan


def _finite_error_and_three_non_finite():
    """A float output 0.25 off at one element, inf, -inf and NaN at three where the reference is
    finite, and the reference's own infinities matched at two: the largest finite error is 0.25."""
    ref = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, INF, -INF, 8.0])
    out = torch.tensor([1.0, 2.25, INF, -INF, NAN, INF, -INF, 8.001])
    return out, ref


@pytest.mark.parametrize("rule", [tolerance(1e-2, 1e-2), mismatch(0.1), exact(), steps(1), similarity()],
                         ids=lambda r: r.words)
def test_every_rule_reports_the_largest_finite_error_and_counts_the_non_finite_elements(rule):
    out, ref = _finite_error_and_three_non_finite()
    verdict = rule.judge(out, ref)
    assert not verdict.ok  # NaN or inf where the reference is finite still fails
    assert verdict.max_abs_err == pytest.approx(0.25) and verdict.max_rel_err == pytest.approx(0.125)
    assert verdict.non_finite == 3
    assert "3 non-finite" in verdict.detail


def test_a_non_finite_reference_is_matched_only_by_the_same_infinity():
    ref = torch.tensor([INF, INF, -INF, NAN, NAN, 1.0])
    out = torch.tensor([INF, -INF, 7.0, NAN, 1.0, 1.0])
    verdict = tolerance(1e-2, 1e-2).judge(out, ref)
    assert verdict.non_finite == 4  # inf against -inf, 7 against -inf, NaN against NaN (NaN never matches), 1 against NaN
    assert verdict.mismatched == 4 and verdict.max_abs_err == 0.0
    assert verdict.detail == "4 of 6 outside atol 0.01 + rtol 0.01 * |ref| (4 non-finite; 1 still hold the poison value: never written?)"
    same = torch.tensor([INF, -INF, 2.0])  # a masked row's -inf, as the reference has it
    for rule in (tolerance(1e-2, 1e-2), mismatch(0.0), exact(), steps(0)):
        matched = rule.judge(same.clone(), same)
        assert matched.ok and matched.non_finite == 0 and matched.max_abs_err == 0.0, rule.words


def test_a_bound_reports_the_largest_finite_error_and_the_non_finite_count():
    from tlbench.harness.sweep_api.rules import bound

    out, ref = _finite_error_and_three_non_finite()
    verdict = bound(lambda ref: 0.5, "0.5").given(0.5).judge(out, ref)
    assert not verdict.ok and verdict.mismatched == 3  # 0.25 is within 0.5; inf, -inf and NaN are not
    assert (verdict.max_abs_err, verdict.non_finite) == (0.25, 3)
    assert verdict.detail == "3 of 8 outside the bound bound(0.5) (3 non-finite; 1 still hold the poison value: never written?)"


def test_the_check_result_carries_the_largest_finite_error_and_the_non_finite_count_of_all_outputs():
    out, ref = _finite_error_and_three_non_finite()
    unwritten_half = poison_tensor(torch.empty(4))
    unwritten_half[:2] = torch.tensor([1.0, 1.5])
    result = judge([out, unwritten_half], (ref, torch.ones(4)), [tolerance(), tolerance()], ["O", "P"])
    assert not result.ok and result.max_abs_err == pytest.approx(0.5)  # P's 1.5 against 1
    assert result.non_finite == 3 + 2 and result.to_dict()["non_finite"] == 5
    assert result.wrong_result_words() == (f"wrong result: {result.detail}; max abs err 0.5 over the finite elements, "
                                           "5 non-finite")
    no_finite = judge([poison_tensor(torch.empty(2))], (torch.ones(2),), [tolerance()], ["O"])
    assert no_finite.max_abs_err != no_finite.max_abs_err and no_finite.non_finite == 2  # NaN: no finite element to measure


def test_steps_fails_an_overflow_to_infinity_and_passes_a_reference_that_rounds_to_it():
    largest = torch.tensor([65504.0])  # fp16's largest finite value: infinity is one bit pattern above it
    overflow = steps(1).judge(torch.tensor([INF], dtype=torch.float16), largest)
    assert not overflow.ok and overflow.non_finite == 1 and "1 non-finite" in overflow.detail
    beyond = steps(0).judge(torch.tensor([INF], dtype=torch.float16), torch.tensor([1e6]))  # 1e6 as fp16 is inf
    assert beyond.ok and beyond.non_finite == 0
