"""Whole-run shifts of probe-normalised compile items, on the real loaded-box A/A pair
(tests/fixtures/compare/compile-loaded/) and the real 20 %-slower run (compile-cpu2/all20.json)."""

from __future__ import annotations

from pathlib import Path

from tlbench.harness.results.compare.compare import compare_runs
from tlbench.harness.results.compile_gate.compile_shift import honest, uncounted
from tlbench.harness.results.compare.judgement import Thresholds
from tlbench.harness.results.compare.pairing import Paired, item_key, run_shifts
from tlbench.harness.results.files.store import load_results
from tlbench.harness.results.compare.verdicts import RunShift

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "compare"
LOADED = FIXTURES / "compile-loaded"


def _shift(base: str, new: str):
    comparison = compare_runs(load_results(base), load_results(new))
    (shift,) = comparison.shifts
    return comparison, shift


def test_a_loaded_box_a_a_pair_is_noisy_with_the_probes_real_move_both_ways():
    for base, new in ((LOADED / "loaded.json", LOADED / "quiet.json"), (LOADED / "quiet.json", LOADED / "loaded.json")):
        comparison, shift = _shift(base, new)
        assert shift.verdict == "NOISY" and not shift.gates, shift.words
        assert "WHOLE-RUN SHIFT" not in shift.words and "+0.0%" not in shift.words
        assert "the probe itself moved" in shift.words and "load" in shift.words
        assert abs(shift.vendor_change) > 0.2  # the probe's real move (-25 % / +34 %), not a constant
        assert not comparison.has_regression
        assert not any(i.verdict.value == "SLOWER" for i in comparison.items)


def test_a_real_slowdown_of_every_build_is_a_shift_in_time_with_the_probes_move_in_its_words():
    """Judged on time alone (pairing.run_shifts, before instruction counts are asked) every build
    1.2x slower is a whole-run SHIFT, the probe's real move in its words; with no counted item
    to vouch for it and neither the probe nor the builds' wait for a CPU moving with it
    (compile_shift.uncounted), the comparison keeps it and it gates, the probe's move in its words."""
    base, new = load_results(FIXTURES / "compile-cpu2" / "b1.json"), load_results(FIXTURES / "compile-cpu2" / "all20.json")
    paired = Paired({item_key(r): r for r in base.records}, {item_key(r): r for r in new.records})
    shifts = [s for s in run_shifts(paired, Thresholds()) if s.verdict == "SHIFT"]
    assert len(shifts) == 2 and all(s.gates and s.change > 0.1 for s in shifts)
    assert all("the machine probe (divided out of every build) moved" in s.words and "+0.0%" not in s.words for s in shifts)
    shown = [s for s in compare_runs(base, new).shifts if s.verdict != "NONE"]
    assert len(shown) == 2 and all(s.verdict == "SHIFT" and s.gates and "the machine probe (divided out of every build) moved"
                                   in s.words and "not the box's load" in s.words for s in shown)


def _run_shift(change: float) -> RunShift:
    return RunShift("s", "b", "compile", 14, change, 13, 1e-4, 0.0, "SHIFT", change > 0, "x")


def test_the_load_rule_leaves_a_regression_the_cpu_seconds_show_against_the_probe():
    # code 20 % slower measured while the box got quieter: CPU seconds +11 % against a probe at -25 %
    kept = honest(_run_shift(0.48), probe=-0.25, cpu=0.11, effect=0.10)
    assert kept.verdict == "SHIFT" and kept.gates and "-25.0%" in kept.words
    # the same move with the CPU seconds going the probe's way: the load's doing
    noisy = honest(_run_shift(0.13), probe=-0.25, cpu=-0.09, effect=0.10)
    assert noisy.verdict == "NOISY" and not noisy.gates
    # a probe that barely moved: not a load change, the shift stands
    assert honest(_run_shift(0.20), probe=-0.02, cpu=0.18, effect=0.10).verdict == "SHIFT"


def _uncounted(change: float, probe: float | None, load: float | None) -> RunShift:
    return uncounted(RunShift("s", "b", "compile", 14, change, 13, 1e-4, probe, "SHIFT", change > 0, "x", load))


def test_an_uncounted_shift_is_put_on_the_machine_or_its_load_only_where_they_moved_its_way():
    # an H200 host A/A pair: the probe +14.5 %, the builds +36 %: the machine changed, not judged
    assert _uncounted(0.22, probe=0.145, load=0.025).verdict == "NOISY"
    # busy loops beside the run: the builds waited far longer for a CPU than the move
    assert _uncounted(0.40, probe=0.02, load=1.74).verdict == "NOISY"
    # a slower compiler on a quiet box: the probe flat or the other way, the wait moved a little
    for probe, load in ((0.0, 0.0), (-0.059, 0.037), (0.044, 0.021), (None, 0.0), (0.02, 0.15)):
        kept = _uncounted(0.20, probe=probe, load=load)
        assert kept.verdict == "SHIFT" and kept.gates, (probe, load, kept.words)
    # no CPU seconds to tell the load: fail closed
    kept = _uncounted(0.20, probe=None, load=None)
    assert kept.gates and "fail closed" in kept.words
