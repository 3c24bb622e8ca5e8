"""The compile-time gate on real CPU compile runs (tests/fixtures/compare/compile-cpu-*.json,
Ascend lowering + Z3 schedule of the stage suite, 5 cold builds per item, CPU seconds and the
machine probe recorded; commands in tests/fixtures/compare/README.md).

- A/A: the box's load moves every compile together; the machine probe moved with it: shown
  as the machine, never gated, no item SLOWER.
- The same real run with one item's compile times x 1.2, or every compile time x 1.2 (a
  sized, known change): the item is SLOWER; the whole-run shift is its own verdict and
  exits 1 without instruction counts where neither the machine probe nor the box's load (the
  builds' wait for a CPU: wall over CPU seconds) explains it; with the probe removed, too.
- A real run with one item made 20 % slower to compile (--tlbench-ascend-test-only-compile-slowdown):
  in these older back-to-back records (compile-cpu-*.json) the pair's item-to-item resolution
  is far wider than 20 %, and the verdict says so in words instead of calling it.
- compile-cpu2/ (nightly defaults, 5 rounds taken round-robin, each build over its own probe,
  judged by the median): A/A calls nothing, one item 1.2x slower is SLOWER in both backends,
  every item 1.2x exits 1 on two whole-run shifts.
"""

import copy
import json
from pathlib import Path

from tlbench.harness.cli import main
from tlbench.harness.results.compare.compare import compare_runs
from tlbench.harness.results.compare.judgement import Verdict
from tlbench.harness.results.compile_gate.compile_values import compile_centre
from tlbench.harness.results.files.store import load_results, parse_results

COMPARE = Path(__file__).parent / "fixtures" / "compare"
BASE, AA, ONE20 = COMPARE / "compile-cpu-base.json", COMPARE / "compile-cpu-aa.json", COMPARE / "compile-cpu-one20.json"
SLOWED = "gemm-1024x1024x1024-f16-bm128-bn256-bk64-t256-auto-s3"


def _scaled(path: Path, factor: float, case_id: str | None = None) -> dict:
    """The same real run with compile times (wall and CPU, not the machine probe) x factor."""
    doc = copy.deepcopy(json.loads(path.read_text()))
    for bench in doc["benchmarks"]:
        rec = bench["extra_info"]["tlbench"]
        if case_id is None or rec["case_id"] == case_id:
            rec["samples_s"] = [s * factor for s in rec["samples_s"]]
            rec["cpu_samples_s"] = [s * factor for s in rec["cpu_samples_s"]]
            bench["stats"]["data"] = rec["samples_s"]
    return doc


def test_aa_compile_runs_put_the_shared_move_on_the_machine():
    for base, new in ((BASE, AA), (AA, BASE)):
        cmp = compare_runs(load_results(base), load_results(new))
        assert cmp.counts()[Verdict.SLOWER] == 0 and not cmp.has_regression
        (shift,) = cmp.shifts
        assert shift.verdict in ("MACHINE", "NONE") and not shift.gates
        assert all(i.rule.startswith("min-of-n factor") for i in cmp.items)


def test_one_item_compiled_20_percent_slower_is_flagged():
    cmp = compare_runs(load_results(BASE), parse_results(_scaled(BASE, 1.2, SLOWED), "scaled.json"))
    slower = [i for i in cmp.items if i.verdict is Verdict.SLOWER]
    assert [i.key.case_id for i in slower] == [SLOWED] and cmp.has_regression
    assert slower[0].decisive.change == __import__("pytest").approx(0.2, abs=1e-9)
    assert "min-of-n factor 1.1" in slower[0].rule
    assert not cmp.gating_shifts


def test_every_compile_20_percent_slower_without_counts_gates_where_neither_probe_nor_load_explains_it(tmp_path, capsys):
    """Every build 1.2x slower in wall and CPU seconds, the machine probe and the builds' wait for
    a CPU (wall over CPU seconds) as they were, no instruction count: nothing puts the move on the
    machine or its load, so it is a WHOLE-RUN SHIFT and exits 1 (it was NOISY, exit 0)."""
    new = tmp_path / "all-x1.2.json"
    new.write_text(json.dumps(_scaled(BASE, 1.2)))
    code = main(["compare", str(BASE), str(new)])
    out = " ".join(capsys.readouterr().out.split())  # the terminal wraps long lines
    assert code == 1, out
    assert "WHOLE-RUN SHIFT stages/ascend/compile: the whole run is +20.0% (14/14 kernels slower" in out
    assert "no item was counted" in out and "not the box's load" in out
    assert "1 WHOLE-RUN SHIFT(s)" in out


def test_a_real_20_percent_slower_build_that_this_box_cannot_resolve_says_so():
    cmp = compare_runs(load_results(BASE), load_results(ONE20))
    (item,) = [i for i in cmp.items if i.key.case_id == SLOWED]
    assert 0.1 < item.decisive.change < 0.4  # the slowdown is there in the numbers ...
    assert item.verdict is Verdict.NOISY  # ... but this pair resolves far less than that:
    assert "this pair resolves only" in item.decisive.reason and "cannot resolve this change" in item.decisive.reason
    assert not cmp.has_regression


def _loaded(path: Path, factor: float, case_id: str, probe_too: bool) -> dict:
    """One item's builds slowed by ``factor`` in CPU seconds, with the machine probe timed after
    each build slowed the same (a busy moment of the machine) or not (the compiler)."""
    doc = _scaled(path, factor, case_id)
    for bench in doc["benchmarks"]:
        rec = bench["extra_info"]["tlbench"]
        if probe_too and rec["case_id"] == case_id:
            rec["machine_probe_cpu_s"] = [p * factor for p in rec["machine_probe_cpu_s"]]
    return doc


def test_a_build_slowed_with_its_machine_probe_is_the_machine_not_the_compiler():
    busy = compare_runs(load_results(BASE), parse_results(_loaded(BASE, 1.4, SLOWED, probe_too=True), "busy.json"))
    (item,) = [i for i in busy.items if i.key.case_id == SLOWED]
    assert item.verdict is not Verdict.SLOWER and abs(item.decisive.change) < 0.01
    compiler = compare_runs(load_results(BASE), parse_results(_loaded(BASE, 1.4, SLOWED, probe_too=False), "slow.json"))
    (item,) = [i for i in compiler.items if i.key.case_id == SLOWED]
    assert item.verdict is Verdict.SLOWER and item.decisive.change == __import__("pytest").approx(0.4, abs=1e-9)


QUIET = COMPARE / "compile-cpu2"  # nightly defaults, quiet 2-core box, round-robin rounds (README.md there)
QUIET_SLOWED = "gemm-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s2"


def test_quiet_box_aa_at_nightly_defaults_calls_nothing_and_no_shift():
    for base, new in (("b1", "b2"), ("b2", "b1")):
        cmp = compare_runs(load_results(QUIET / f"{base}.json"), load_results(QUIET / f"{new}.json"))
        assert cmp.counts()[Verdict.SLOWER] == 0 and cmp.counts()[Verdict.FASTER] == 0
        assert not cmp.gating_shifts and not cmp.has_regression
        assert all(i.rule.startswith("median-of-n factor 1.1 on the median of 5/5 round-robin builds") for i in cmp.items)


def test_a_real_run_with_every_compile_1_2x_slower_and_no_counts_exits_1_on_whole_run_shifts(capsys):
    """The real all20 run (every compile spun 1.2x longer) against either quiet A/A run: where the
    probe did not move with it (b1: -5.9 % / -2.4 %) and the builds waited for a CPU as much as before,
    both backends' shifts gate with no count; against b2 the Ascend items' probe moved +9.1 % (the
    machine changed: NOISY, not gated) and the NVIDIA items' shift still exits 1."""
    for base, gating in (("b1", ["ascend", "nvidia"]), ("b2", ["nvidia"])):
        code = main(["compare", str(QUIET / f"{base}.json"), str(QUIET / "all20.json")])
        out = " ".join(capsys.readouterr().out.split())
        assert code == 1, out
        for backend in gating:
            assert f"WHOLE-RUN SHIFT stages/{backend}/compile: the whole run is +2" in out
        assert f"{len(gating)} WHOLE-RUN SHIFT(s)" in out
    assert "stages/ascend/compile: NOISY - the whole run's compile time moved +22.7%" in out
    assert "the machine probe itself moved +9.1%" in out


def _quiet_scaled(name: str, factor: float, drop: tuple[str, ...] = ()) -> dict:
    """A real quiet run (compile-cpu2/) with every compile time (wall and CPU) x ``factor`` and the
    record fields ``drop`` removed from every record."""
    doc = _scaled(QUIET / name, factor)
    for bench in doc["benchmarks"]:
        for key in drop:
            bench["extra_info"]["tlbench"].pop(key, None)
    return doc


def _gate(base: dict, new: dict):
    return compare_runs(parse_results(base, "base.json"), parse_results(new, "new.json"))


def test_a_whole_run_move_with_the_machine_probe_removed_still_gates():
    """Every compile x10 with no machine probe in either run: the builds' wait for a CPU did not
    move, so the box's load cannot explain it either - it gates, never passes silently; and with the
    CPU seconds gone too (wall clock only: nothing can tell the machine or its load) it gates, fail
    closed, saying so."""
    for drop, words in ((("machine_probe_cpu_s",), "not the box's load"),
                        (("machine_probe_cpu_s", "cpu_samples_s"), "no CPU seconds")):
        cmp = _gate(_quiet_scaled("b1.json", 1.0, drop), _quiet_scaled("b1.json", 10.0, drop))
        shifts = cmp.gating_shifts
        assert sorted(s.backend for s in shifts) == ["ascend", "nvidia"] and cmp.has_regression, [s.words for s in cmp.shifts]
        assert all(s.change > 8 and words in s.words for s in shifts), [s.words for s in shifts]


def test_a_whole_run_move_the_load_explains_is_noisy_with_the_wait_in_its_words():
    """The same real run with the builds' CPU seconds x1.2 and their wall seconds x3 (they waited
    for a CPU 2.5x as long: the box got loaded) is shown NOISY, not gated."""
    doc = _scaled(QUIET / "b1.json", 1.2)
    for bench in doc["benchmarks"]:
        rec = bench["extra_info"]["tlbench"]
        rec["samples_s"] = [s * 2.5 for s in rec["samples_s"]]
        bench["stats"]["data"] = rec["samples_s"]
    cmp = _gate(json.loads((QUIET / "b1.json").read_text()), doc)
    shown = [s for s in cmp.shifts if s.verdict != "NONE"]
    assert len(shown) == 2 and not cmp.gating_shifts and not cmp.has_regression
    assert all(s.verdict == "NOISY" and "wait for a CPU (wall over CPU seconds) moved +150.0%: the box's load" in s.words
               for s in shown), [s.words for s in shown]


def test_a_real_single_item_20_percent_compile_change_is_slower_for_both_items():
    """One item compiled 1.2x slower (the test-only slowdown in both backends), everything else
    the same: against either A/A run the slowed NVIDIA and Ascend items read SLOWER, and
    nothing else is called."""
    for base in ("b1", "b2"):
        cmp = compare_runs(load_results(QUIET / f"{base}.json"), load_results(QUIET / "one20.json"))
        slowed = [i for i in cmp.items if i.key.case_id == QUIET_SLOWED]
        assert sorted(i.key.backend for i in slowed) == ["ascend", "nvidia"]
        for item in slowed:
            assert item.verdict is Verdict.SLOWER, (base, item.key.backend, item.decisive.reason)
            assert 0.1 < item.decisive.change < 0.4 and "beyond the" in item.decisive.reason
        others = [i for i in cmp.items if i.key.case_id != QUIET_SLOWED]
        assert not [i for i in others if i.verdict in (Verdict.SLOWER, Verdict.FASTER)]
        assert cmp.has_regression and not cmp.gating_shifts


def test_the_median_is_used_only_where_both_runs_took_their_rounds_round_robin():
    rr = {"cpu_samples_s": [0.2, 0.21, 0.19], "machine_probe_cpu_s": [0.02, 0.021, 0.02], "compile_round_robin": 14}
    back_to_back = {k: v for k, v in rr.items() if k != "compile_round_robin"}
    assert compile_centre(rr, rr) == "median"
    assert compile_centre(rr, back_to_back) == compile_centre(back_to_back, rr) == "min"
    assert compile_centre({**rr, "machine_probe_cpu_s": []}, rr) == "min"  # no probe: asv's minimum


def test_builds_under_one_probe_of_cpu_are_judged_on_wall_time_not_accounting_noise():
    """A compile that used less CPU than the fixed probe (the fake backend's, which only
    returns: 0.04-0.24 ms of CPU against a 25 ms probe) has CPU seconds that are accounting
    noise; seen under load: +189 % 'SLOWER' on identical code.  Such items fall back to wall
    seconds."""
    base_doc, new_doc = (copy.deepcopy(json.loads(BASE.read_text())) for _ in range(2))
    for doc, cpu in ((base_doc, [4e-5, 2e-4, 2e-4]), (new_doc, [1.2e-4, 2e-4, 2.4e-4])):  # min x3
        for bench in doc["benchmarks"]:
            if bench["extra_info"]["tlbench"]["case_id"] == SLOWED:
                bench["extra_info"]["tlbench"]["cpu_samples_s"] = cpu
    cmp = compare_runs(parse_results(base_doc, "base.json"), parse_results(new_doc, "new.json"))
    (item,) = [i for i in cmp.items if i.key.case_id == SLOWED]
    assert item.verdict is not Verdict.SLOWER and abs(item.decisive.change) < 1e-9  # the same wall samples


def test_a_compile_group_too_small_for_its_own_spread_borrows_its_backends():
    """A real A/A pair of nights (fixtures/compare/small-group): the four stream-K compile items
    have no spread of their own; judged against the backend's pooled spread nothing gates,
    where the factor alone called one of them SLOWER.  A real 1.5x build of one of them still
    reads SLOWER."""
    small = COMPARE / "small-group"
    base, new = load_results(small / "n1-nvidia-cpu.json.gz"), load_results(small / "n2-nvidia-cpu.json.gz")
    cmp = compare_runs(base, new)
    streamk = [i for i in cmp.items if "gemm_streamk" in i.key.case_id and i.metric == "time"]
    assert len(streamk) == 4 and not any(i.verdict in (Verdict.SLOWER, Verdict.FASTER) for i in streamk)
    assert not cmp.has_regression
    target = streamk[0].key.case_id
    doc = copy.deepcopy(new.document)
    for bench in doc["benchmarks"]:
        rec = bench["extra_info"]["tlbench"]
        if rec["case_id"] == target and rec["kind"] == "compile":
            for field in ("samples_s", "cpu_samples_s"):
                rec[field] = [v * 1.5 for v in rec[field]]
    slowed = compare_runs(base, parse_results(doc, "slowed.json"))
    assert [i.key.case_id for i in slowed.regressions if i.metric == "time"] == [target]
