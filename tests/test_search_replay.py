"""The model-guided search and its replay on committed exhaustive sweeps (harness/search/).

- the replay's numbers come from the recorded times and from nowhere else: a perturbed
  recorded median moves the replay's best; garbling every other measured field changes
  nothing; the first-run ranking does not move when every recorded time is shuffled;
- the search's result names every config: measured ones and skipped ones, each skipped one
  with its reason and predicted rank;
- the stopping rule: the budget, the stable best, every config measured, failed configs;
- ``tlbench search-replay``: the table, and bad inputs (exit 2, one line).
Real committed JSON (results/h200-flash-attention/fa-s8192.json.gz: 22 legal configs, one
failed at compile); no wall-clock thresholds.
"""

from __future__ import annotations

import gzip
import json
import random
from dataclasses import asdict
from pathlib import Path

import pytest

from tlbench.harness.cli import main
from tlbench.harness.results.files.store import load_results
from tlbench.harness.search.candidates import STATIC_ROOFLINE_KEYS, Candidate, candidate_from_record
from tlbench.harness.search.replay import learned_from, qualifying, replay, sweeps_of
from tlbench.harness.search.search import SearchSettings, budget, run_search

ROOT = Path(__file__).resolve().parents[1]
FA_RUN = ROOT / "results" / "h200-flash-attention" / "fa-s8192.json.gz"
STAGES_RUN = ROOT / "results" / "h200-gemm-stages" / "stages.json"  # 14 configs: below the 20 a replay needs


def _doc(path: Path) -> dict:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as fh:
        return json.load(fh)


def _write(doc: dict, path: Path) -> Path:
    with gzip.open(path, "wt") as fh:
        json.dump(doc, fh)
    return path


def _config_records(doc: dict) -> list[dict]:
    out = []
    for bench in doc["benchmarks"]:
        rec = (bench.get("extra_info") or {}).get("tlbench") or {}
        if rec.get("kind") == "device" and rec.get("config") is not None and rec.get("kernel") != "vendor":
            out.append(rec)
    return out


def _only_row(path: Path):
    sweeps = qualifying(sweeps_of(load_results(path)))
    assert len(sweeps) == 1, [s.name for s in sweeps]
    return replay(sweeps[0])


@pytest.fixture(scope="module")
def fa_row():
    return _only_row(FA_RUN)


def test_the_committed_sweep_is_one_exhaustive_problem_of_22_configs(fa_row):
    assert fa_row.configs == 22 and fa_row.sweep.legal == 22 and len(fa_row.sweep.failed) == 1
    assert fa_row.measured == budget(22, SearchSettings()) == 5
    times = {r.case_id: r.summary["median"] for r in fa_row.sweep.timed}
    assert fa_row.exhaustive_best_s == min(times.values())
    assert fa_row.best_found_s == times[fa_row.best_found_id]


# -- the numbers come from the recorded times -----------------------------------------------------


def test_a_perturbed_recorded_time_moves_the_replays_best(fa_row, tmp_path):
    first = fa_row.result.measured[0].case_id  # the first config asked: asked again after any change of times
    new_time = fa_row.exhaustive_best_s / 2
    doc = _doc(FA_RUN)
    for rec in _config_records(doc):
        if rec["case_id"] == first:
            rec["summary"]["median"] = new_time
    row = _only_row(_write(doc, tmp_path / "perturbed.json.gz"))
    assert row.result.measured[0].case_id == first
    assert row.best_found_id == row.exhaustive_best_id == first
    assert row.best_found_s == row.exhaustive_best_s == new_time


def test_garbling_every_other_measured_field_changes_nothing(fa_row, tmp_path):
    doc = _doc(FA_RUN)
    rng = random.Random(7)
    for rec in _config_records(doc):
        scale = rng.uniform(0.1, 10)
        rec["samples_s"] = [s * scale for s in rec["samples_s"]]
        for key in ("mean", "min", "max", "q1", "q3", "median_ci_low", "median_ci_high"):
            if isinstance(rec["summary"].get(key), (int, float)):
                rec["summary"][key] *= scale
        for key in ("tflops", "gbps_compulsory", "pct_of_peak", "pct_of_bandwidth"):
            if isinstance((rec.get("throughput") or {}).get(key), (int, float)):
                rec["throughput"][key] *= scale
        if isinstance((rec.get("roofline") or {}).get("pct_of_attainable"), (int, float)):
            rec["roofline"]["pct_of_attainable"] *= scale
        rec.pop("measurement", None)
    row = _only_row(_write(doc, tmp_path / "garbled.json.gz"))
    assert [asdict(m) for m in row.result.measured] == [asdict(m) for m in fa_row.result.measured]
    assert (row.best_found_s, row.exhaustive_best_s, row.tau_prior) == (fa_row.best_found_s, fa_row.exhaustive_best_s, fa_row.tau_prior)


def test_the_first_run_ranking_never_sees_a_recorded_time(fa_row, tmp_path):
    doc = _doc(FA_RUN)
    records = _config_records(doc)
    medians = [r["summary"]["median"] for r in records]
    random.Random(3).shuffle(medians)
    for rec, median in zip(records, medians):
        rec["summary"]["median"] = median
    row = _only_row(_write(doc, tmp_path / "shuffled.json.gz"))
    assert row.result.prior_ranking == fa_row.result.prior_ranking
    first, before = row.result.measured[0], fa_row.result.measured[0]  # chosen before any answer
    assert (first.case_id, first.why, first.predicted_rank) == (before.case_id, before.why, before.predicted_rank)


def test_a_candidate_keeps_nothing_measured():
    rec = _config_records(_doc(FA_RUN))[0]
    assert rec["summary"]["median"] > 0 and rec["throughput"]["tflops"] > 0 and rec["roofline"]["pct_of_attainable"] > 0
    kept = asdict(candidate_from_record(rec))
    assert set(kept) == {"case_id", "config", "problem", "plan", "budget", "roofline", "loop_trips", "multiprocessors"}
    assert set(kept["roofline"]) <= set(STATIC_ROOFLINE_KEYS)
    text = json.dumps(kept)
    for measured in ("samples_s", "summary", "median", "throughput", "pct_of", "attainable", "measurement"):
        assert measured not in text, measured


# -- every config is in the result ----------------------------------------------------------------


def test_the_result_names_every_config_measured_or_skipped_with_reason_and_rank(fa_row):
    ids = {r.case_id for r in (*fa_row.sweep.timed, *fa_row.sweep.failed)}
    measured = [m.case_id for m in fa_row.result.measured]
    skipped = [s.case_id for s in fa_row.result.skipped]
    assert len(measured) + len(skipped) == len(ids) == fa_row.result.candidates
    assert set(measured) | set(skipped) == ids and not set(measured) & set(skipped)
    ranks = [s.predicted_rank for s in fa_row.result.skipped]
    assert len(set(ranks)) == len(ranks) and all(1 <= r <= len(ids) for r in ranks)
    assert all(s.reason.startswith("not measured: the search stopped") and s.predicted_seconds > 0 for s in fa_row.result.skipped)
    assert all(m.why in ("prior top", "probe", "model") and m.predicted_rank >= 1 for m in fa_row.result.measured)


# -- the stopping rule, on a space of our own -------------------------------------------------------


def _space(n_tiles: int = 4, stages=(1, 2, 3, 4, 5)) -> list[Candidate]:
    return [Candidate(case_id=f"t{t}-s{s}", config={"tile": t, "num_stages": s}, problem={})
            for t in range(n_tiles) for s in stages]


def _oracle(times: dict[str, float | None], asked: list[str]):
    def ask(case_id: str):
        asked.append(case_id)
        return times[case_id]
    return ask


def test_the_budget_caps_the_measurements():
    space = _space()
    times = {c.case_id: 1.0 + (hash(c.case_id) % 97) / 100 for c in space}
    asked: list[str] = []
    result = run_search(space, _oracle(times, asked), SearchSettings(max_fraction=0.25, patience=50))
    assert len(asked) == len(result.measured) == 5 == budget(20, SearchSettings(max_fraction=0.25))
    assert result.stopped_because.startswith("measurement budget spent (5 of 20)")
    assert len(set(asked)) == len(asked)


def test_a_stable_best_stops_the_search_before_the_budget():
    space = _space()
    settings = SearchSettings(max_fraction=1.0, patience=3, first=1, probes=1)
    prior_top = run_search(space, lambda cid: 1.0, SearchSettings(max_fraction=0.05, min_measured=1, first=1, probes=0)).measured[0].case_id
    times = {c.case_id: (1.0 if c.case_id == prior_top else 3.0) for c in space}
    asked: list[str] = []
    result = run_search(space, _oracle(times, asked), settings)
    assert result.best.case_id == prior_top
    assert result.stopped_because.startswith(f"best stable: {prior_top} stayed the best for 3")
    assert len(asked) == settings.first + settings.probes + settings.patience < len(space)
    assert "3 model-chosen measurements in a row" in result.rule


def test_with_no_limit_every_config_is_measured_and_none_skipped():
    space = _space(n_tiles=2, stages=(1, 2))
    result = run_search(space, lambda cid: 1.0 + int(cid[1]) + int(cid[-1]) / 10, SearchSettings(max_fraction=1.0, patience=99))
    assert result.stopped_because == "every config measured" and result.skipped == ()
    assert result.best.case_id == "t0-s1"


def test_a_failed_config_counts_as_measured_and_is_never_the_best():
    space = _space(n_tiles=2, stages=(1, 2, 3))
    times: dict[str, float | None] = {c.case_id: 2.0 for c in space}
    times["t0-s3"] = None  # the prior's favourite (deepest pipeline) fails
    times["t1-s1"] = 1.0
    asked: list[str] = []
    result = run_search(space, _oracle(times, asked), SearchSettings(max_fraction=1.0, patience=99))
    assert "t0-s3" in asked and result.best.case_id == "t1-s1"
    assert [m.seconds for m in result.measured if m.case_id == "t0-s3"] == [None]


@pytest.mark.parametrize("bad", [dict(max_fraction=0), dict(max_fraction=1.5), dict(patience=0), dict(probes=-1)])
def test_bad_settings_are_refused(bad):
    with pytest.raises(ValueError):
        SearchSettings(**bad)


# -- the command ----------------------------------------------------------------------------------


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_search_replay_prints_the_table(capsys, fa_row):
    code, out, err = _run(capsys, "search-replay", FA_RUN)
    assert code == 0, err
    line = next(l for l in out.splitlines() if "fa_stages:" in l)
    cells = line.split()
    assert cells[1:5] == ["22", "5", "0.23", f"{fa_row.best_found_s * 1e3:.4f}"]
    assert "goal (within 1% of the exhaustive best, at most 25% measured): 1 of 1 problems" in out
    assert "stopping rule:" in out


def test_search_replay_json_lists_every_skipped_config(capsys):
    code, out, _ = _run(capsys, "search-replay", FA_RUN, "--json")
    row = json.loads(out)["rows"][0]
    assert code == 0 and len(row["measured_configs"]) + len(row["skipped_configs"]) == row["configs"] == 22
    assert all(s["reason"] and s["predicted_rank"] >= 1 for s in row["skipped_configs"])


def test_a_run_without_a_qualifying_sweep_is_exit_2_in_words(capsys):
    code, _, err = _run(capsys, "search-replay", STAGES_RUN)
    assert code == 2
    line = err.strip()
    assert "\n" not in line and "Traceback" not in line
    assert "no exhaustive sweep with at least 20 configs" in line and "stages:gemm-8192x8192x8192-f16 (14 configs)" in line


def test_a_file_that_is_not_a_run_is_exit_2(capsys, tmp_path):
    path = tmp_path / "notarun.json"
    path.write_text(json.dumps({"hello": 1}))
    code, _, err = _run(capsys, "search-replay", path)
    assert code == 2 and "not pytest-benchmark output" in err and len(err.strip().splitlines()) == 1


def test_a_missing_file_is_exit_2(capsys, tmp_path):
    code, _, err = _run(capsys, "search-replay", tmp_path / "absent.json")
    assert code == 2 and "no such file" in err


# -- what the search cost, and learning from earlier runs ------------------------------------------


def test_the_device_cost_is_the_recorded_warm_up_and_sampling(fa_row):
    def cost(rec):
        return rec.measurement["sampling_seconds"] + rec.measurement["warmup"]["seconds"]
    asked = {m.case_id for m in fa_row.result.measured}
    assert fa_row.exhaustive_device_s == pytest.approx(sum(cost(r) for r in fa_row.sweep.timed))
    assert fa_row.search_device_s == pytest.approx(sum(cost(r) for r in fa_row.sweep.timed if r.case_id in asked))
    assert fa_row.search_device_s < fa_row.exhaustive_device_s


def test_learning_from_earlier_runs_never_reads_the_replayed_problems_own_times(tmp_path):
    full = ROOT / "results" / "h200-quick-and-full-scope" / "full.json.gz"
    sweep = next(s for s in qualifying(sweeps_of(load_results(FA_RUN))))
    earlier = sweeps_of(load_results(full))
    kept = learned_from(sweep, earlier)
    assert kept and all(s.problem_id != sweep.problem_id and s.suite == sweep.suite for s in kept)
    assert any(s.problem_id == sweep.problem_id for s in earlier)  # it was there, and left out
    # the earlier run's copy of this very problem, its times reversed: the replay does not move
    doc = _doc(full)
    records = [r for r in _config_records(doc) if r["case_id"].startswith(sweep.problem_id + "-bm")]
    assert len(records) == 21
    medians = [r["summary"]["median"] for r in records]
    for rec, median in zip(records, reversed(medians)):
        rec["summary"]["median"] = median
    changed = sweeps_of(load_results(_write(doc, tmp_path / "earlier.json.gz")))
    one, two = replay(sweep, earlier=earlier), replay(sweep, earlier=changed)
    assert one.result.prior_ranking == two.result.prior_ranking
    assert [m.case_id for m in one.result.measured] == [m.case_id for m in two.result.measured]


def test_learning_from_earlier_runs_changes_the_first_ranking(fa_row):
    full = ROOT / "results" / "h200-quick-and-full-scope" / "full.json.gz"
    learned = replay(fa_row.sweep, earlier=sweeps_of(load_results(full)))
    assert learned.result.prior_ranking != fa_row.result.prior_ranking


def test_ascend_plans_are_ranked_by_the_compilers_modeled_cycles_and_others_are_not():
    """Real Ascend compile records (tests/fixtures/ascend-stages.json: the Z3 schedule of each
    config): the first ranking of each problem's configs is their modeled cycles' order; an NVIDIA
    plan (no schedule model) keeps the pipeline-model prior."""
    from tlbench.harness.search.ranker import Ranker, ranking

    doc = json.loads((ROOT / "tests" / "fixtures" / "ascend-stages.json").read_text())
    records = [b["extra_info"]["tlbench"] for b in doc["benchmarks"]]
    problems: dict[str, list[dict]] = {}
    for record in records:
        if record.get("config") is not None:
            problems.setdefault(json.dumps(record["problem"], sort_keys=True), []).append(record)
    checked = 0
    for group in problems.values():
        cycles = {r["case_id"]: r["plan"]["schedule_model"]["modeled_cycles_per_core"] for r in group}
        if len(set(cycles.values())) < 2:
            continue
        candidates = [candidate_from_record(r) for r in group]
        assert all(c.modeled_cycles == cycles[c.case_id] for c in candidates)
        first = ranking(Ranker(candidates).predict())
        assert [cycles[c] for c in first] == sorted(cycles.values()), (first, cycles)
        checked += 1
    assert checked >= 1
    nvidia = [candidate_from_record(r.raw) for r in sweeps_of(load_results(FA_RUN))[0].timed]
    assert all(c.modeled_cycles is None for c in nvidia)
