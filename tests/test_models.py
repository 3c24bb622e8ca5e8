"""The copy -> compute pipeline model reproduces the seed chapter's numbers exactly.

The numbers are the design seed's worked example (a text outside this repository; what it
says is pinned here): its section 1.3 table (8 iterations, latency 30, compute 20: the report
below, verbatim), 1.4 (the prologue's fixed length amortised: x2.11 at 8 iterations becomes
x2.29 at 16) and 2.2 / 2.4 (the steady-state interval ``max(compute, issue, (latency +
compute) / depth)``).  No timing, no devices.
"""

from __future__ import annotations

from dataclasses import asdict
import itertools
import random
import struct

import pytest

from tlbench.harness.analysis import timeline_fit
from tlbench.harness.analysis import timeline_model as models
from tlbench.harness.analysis import timeline_plot

SEED = dict(iterations=8, issue=1, latency=30, compute=20)

# Verbatim from the seed, section 1.3.
SEED_REPORT = """\
model: copy -> compute, greedy list schedule, abstract cycles
  iterations=8 issue=1 latency=30 compute=20
  latency/compute = 1.50 -> smallest depth that reaches the steady state = 3

== summary ==
+--------+--------------------------------------------------------------------+
| stages | makespan  speedup  issue_iv  compute_iv                            |
+--------+--------------------------------------------------------------------+
| 1      |   400  x1.00  issue_iv= 50.0  compute_iv= 50.0  compute_util=  43% |
| 2      |   220  x1.82  issue_iv= 24.3  compute_iv= 24.3  compute_util=  84% |
| 3      |   190  x2.11  issue_iv= 18.6  compute_iv= 20.0  compute_util= 100% |
| 4      |   190  x2.11  issue_iv= 15.7  compute_iv= 20.0  compute_util= 100% |
+--------+--------------------------------------------------------------------+"""


# --------------------------------------------------------------------------- seed numbers


def test_report_matches_seed_text_exactly():
    assert models.format_report(**SEED, stages=range(1, 5)) == SEED_REPORT


@pytest.mark.parametrize(
    "num_stages, makespan, speedup, util, issue_iv, compute_iv",
    [
        (1, 400, "1.00", 43, "50.0", "50.0"),
        (2, 220, "1.82", 84, "24.3", "24.3"),
        (3, 190, "2.11", 100, "18.6", "20.0"),
        (4, 190, "2.11", 100, "15.7", "20.0"),
    ],
)
def test_seed_table_rows(num_stages, makespan, speedup, util, issue_iv, compute_iv):
    t = models.simulate(**SEED, num_stages=num_stages)
    assert t.makespan == makespan
    assert f"{t.speedup:.2f}" == speedup
    assert round(100 * t.compute_utilization) == util
    assert f"{t.issue_interval:.1f}" == issue_iv
    assert f"{t.compute_interval:.1f}" == compute_iv
    assert t.baseline_makespan == 400


def test_seed_two_stage_schedule_step_by_step():
    t = models.simulate(**SEED, num_stages=2)
    assert [s.copy_start for s in t.steps] == [0, 1, 50, 70, 100, 120, 150, 170]
    assert [s.compute_start for s in t.steps] == [30, 50, 80, 100, 130, 150, 180, 200]
    assert [s.slot for s in t.steps] == [0, 1] * 4
    assert all(s.copy_end == s.copy_start + 30 for s in t.steps)
    assert all(s.compute_end == s.compute_start + 20 for s in t.steps)


def test_utilization_excludes_prologue_but_share_of_makespan_does_not():
    t1 = models.simulate(**SEED, num_stages=1)
    assert t1.compute_utilization == pytest.approx(160 / 370)  # 43 %, seed 1.3
    assert t1.compute_share_of_makespan == pytest.approx(160 / 400)  # 40 %
    t2 = models.simulate(**SEED, num_stages=2)
    assert t2.compute_utilization == pytest.approx(160 / 190)  # 84 %


def test_sixteen_iterations_three_stages_is_x2_29():
    t = models.simulate(16, 1, 30, 20, 3)
    assert t.makespan == 350 and t.baseline_makespan == 800
    assert f"{t.speedup:.2f}" == "2.29"
    assert f"{models.simulate(**SEED, num_stages=3).speedup:.2f}" == "2.11"


def test_sweep_rows_match_simulate():
    rows = models.sweep(**SEED)
    assert [r.num_stages for r in rows] == [1, 2, 3, 4]
    assert [r.makespan for r in rows] == [400, 220, 190, 190]
    assert rows[1] == models.simulate(**SEED, num_stages=2)
    assert asdict(rows[0])["makespan"] == 400


def test_steady_interval_and_phases_for_seed():
    got = [models.simulate(**SEED, num_stages=s) for s in (1, 2, 3, 4)]
    assert [t.steady_interval for t in got] == [50, 25, 20, 20]
    assert [t.steady_interval_bound for t in got] == [50, 25, 20, 20]
    assert [t.prologue_end for t in got] == [30, 30, 30, 30]
    assert [t.epilogue_start for t in got] == [380, 200, 160, 140]


# --------------------------------------------------------------------------- closed forms


@pytest.mark.parametrize(
    "latency, compute, depth",
    [(30, 20, 3), (0, 20, 1), (20, 20, 2), (40, 20, 3), (41, 20, 4), (1.1, 0.1, 12), (0.3, 0.1, 4)],
)
def test_min_sufficient_depth(latency, compute, depth):
    assert models.min_sufficient_depth(latency, compute) == depth


def test_steady_interval_bound_formula():
    assert models.steady_interval_bound(1, 30, 20, 1) == 50
    assert models.steady_interval_bound(1, 30, 20, 2) == 25
    assert models.steady_interval_bound(1, 30, 20, 3) == 20
    assert models.steady_interval_bound(40, 30, 20, 3) == 40  # issue-bound


def test_steady_interval_converges_to_bound():
    rng = random.Random(20240)
    for _ in range(300):
        issue, latency = rng.choice([0, 1, 3, 17, 40]), rng.randint(0, 150)
        compute, stages = rng.randint(1, 40), rng.randint(1, 8)
        t = models.simulate(300, issue, latency, compute, stages)
        assert t.steady_interval == pytest.approx(t.steady_interval_bound, rel=1e-2)


def test_closed_form_makespan_equals_simulation_without_issue_limit():
    for n, latency, compute, stages in itertools.product(
        [1, 2, 3, 7, 8, 16, 33], [0, 1, 7, 30, 95], [1, 3, 20], [1, 2, 3, 4, 5, 9]
    ):
        assert models.makespan_without_issue_limit(n, latency, compute, stages) == (
            models.simulate(n, 0, latency, compute, stages).makespan
        )


# --------------------------------------------------------------------------- monotonicity


CASES = list(itertools.product([1, 2, 8, 16], [0, 1, 5, 30], [0, 10, 30, 90], [5, 20]))


@pytest.mark.parametrize("iterations, issue, latency, compute", CASES)
def test_monotone_in_stages_and_saturates_at_min_depth(iterations, issue, latency, compute):
    spans = [models.simulate(iterations, issue, latency, compute, s).makespan for s in range(1, 9)]
    assert all(a >= b for a, b in zip(spans, spans[1:]))
    for s in range(1, 9):
        t = models.simulate(iterations, issue, latency, compute, s)
        assert t.speedup >= 1
        assert 0 < t.compute_utilization <= 1
        assert t.makespan >= latency + iterations * compute  # fill + all computes
    if issue <= compute:
        depth = models.min_sufficient_depth(latency, compute)
        assert all(m == latency + iterations * compute for m in spans[depth - 1 :])


def test_monotone_in_latency_and_iterations():
    for stages in (1, 2, 3, 4):
        by_latency = [models.simulate(8, 1, lat, 20, stages).makespan for lat in range(0, 120, 7)]
        assert all(a <= b for a, b in zip(by_latency, by_latency[1:]))
        by_iters = [models.simulate(n, 1, 30, 20, stages).makespan for n in range(1, 40)]
        assert all(a < b for a, b in zip(by_iters, by_iters[1:]))
    # prologue amortises: the 3-stage speedup grows with the trip count
    speedups = [models.simulate(n, 1, 30, 20, 3).speedup for n in (2, 4, 8, 16, 64)]
    assert all(a < b for a, b in zip(speedups, speedups[1:]))


def test_invalid_arguments_raise():
    with pytest.raises(ValueError, match="num_stages"):
        models.simulate(8, 1, 30, 20, 0)
    with pytest.raises(ValueError, match="iterations"):
        models.simulate(0, 1, 30, 20, 2)
    with pytest.raises(ValueError, match="compute"):
        models.simulate(8, 1, 30, 0, 2)
    with pytest.raises(ValueError, match="latency"):
        models.simulate(8, 1, -1, 20, 2)


# --------------------------------------------------------------------------- inverse


@pytest.mark.parametrize("ratio", [0.4, 1.5, 3.2, 7.0])
def test_fit_recovers_ratio_from_model_times(ratio):
    iterations, scale = 16, 0.0125  # e.g. ms per compute
    stages = range(1, 9)
    times = {s: scale * models.simulate(iterations, 0, ratio, 1, s).makespan for s in stages}
    fit = timeline_fit.fit_latency_ratio(times, iterations)
    assert fit.latency_ratio == pytest.approx(ratio, rel=0.05)
    assert fit.scale == pytest.approx(scale, rel=0.05)
    assert fit.rms_relative_error < 1e-3
    assert fit.min_sufficient_depth == models.min_sufficient_depth(ratio, 1)
    assert fit.ratio_low <= fit.latency_ratio <= fit.ratio_high
    assert fit.predicted_speedup[1] == pytest.approx(1.0)
    assert all(abs(e) < 1e-3 for e in fit.relative_error.values())


def test_fit_ratio_1_5_from_four_depths():
    times = {s: 0.01 * models.simulate(16, 0, 1.5, 1, s).makespan for s in (1, 2, 3, 4)}
    fit = timeline_fit.fit_latency_ratio(times, 16)
    assert abs(fit.latency_ratio - 1.5) <= 0.05 * 1.5
    assert fit.min_sufficient_depth == 3


def test_fit_ignores_zero_and_missing_points_and_needs_two():
    times = {s: 0.01 * models.simulate(16, 0, 1.5, 1, s).makespan for s in (1, 2, 3)}
    fit = timeline_fit.fit_latency_ratio({**times, 4: 0.0, 5: None, 0: 9.9}, 16)
    assert sorted(fit.measured) == [1, 2, 3]
    assert fit.latency_ratio == pytest.approx(1.5, rel=0.05)
    with pytest.raises(ValueError, match="at least 2"):
        timeline_fit.fit_latency_ratio({1: 3.2, 2: 0.0}, 8)
    with pytest.raises(ValueError, match="at least 2"):
        timeline_fit.fit_latency_ratio({}, 8)


def test_fit_on_measured_like_times_is_sane():
    fit = timeline_fit.fit_latency_ratio({1: 3.2, 2: 2.0, 3: 1.79, 4: 1.78}, 8)
    assert 0.05 <= fit.latency_ratio <= 20
    assert fit.scale > 0
    assert set(fit.predicted) == {1, 2, 3, 4}
    assert fit.rms_relative_error < 0.1
    assert asdict(fit)["iterations"] == 8


def test_predict_from_latencies():
    p = timeline_fit.predict_from_latencies(30, 20, 8, stages=(1, 2, 3, 4), issue=1)
    assert [r.makespan for r in p.rows] == [400, 220, 190, 190]
    assert p.min_sufficient_depth == 3
    assert p.recommended_num_stages == 3
    assert p.latency_ratio == 1.5


def test_recommend_num_stages():
    assert timeline_fit.recommend_num_stages({1: 3.2, 2: 2.0, 3: 1.79, 4: 1.78}) == 3
    assert timeline_fit.recommend_num_stages({1: 3.2, 2: 2.0, 3: 1.79, 4: 1.70}) == 4
    assert timeline_fit.recommend_num_stages({1: 3.2, 2: 2.0, 3: 1.9, 4: 1.78}, tolerance=0.2) == 2
    assert timeline_fit.recommend_num_stages({1: 3.2, 2: 0.0, 3: None, 4: 3.15}) == 1
    with pytest.raises(ValueError):
        timeline_fit.recommend_num_stages({2: 0.0})


# --------------------------------------------------------------------------- figure data


def _model_panels(iterations, issue, latency, compute, stages):
    return tuple(timeline_plot.panel_from_timeline(models.simulate(iterations, issue, latency, compute, s))
                 for s in stages)


def test_panels_from_model_structure():
    panels = _model_panels(**SEED, stages=(1, 2, 3))
    assert [p.title.split()[0] for p in panels] == ["num_stages=1", "num_stages=2", "num_stages=3"]
    three = panels[2]
    assert [lane.name for lane in three.lanes] == ["copy", "compute"]
    copy, compute = three.lanes
    assert len(copy.bars) == len(compute.bars) == 8
    assert compute.bars[0] == timeline_plot.Bar(30, 50, "g0")
    assert copy.bars[3] == timeline_plot.Bar(50, 80, "c3", row=0)
    assert [(ph.kind, ph.start, ph.end) for ph in three.phases] == [
        ("prologue", 0, 30), ("steady", 30, 160), ("epilogue", 160, 190)
    ]
    assert three.end_marker == 190 and three.end == 190
    assert timeline_plot.pack_tracks(copy.bars) == (0, 1, 2, 0, 1, 2, 0, 1)


def _panel(title, lanes):
    Bar, Lane = timeline_plot.Bar, timeline_plot.Lane
    return timeline_plot.Panel(title, tuple(Lane(n, tuple(Bar(*b) for b in bars)) for n, bars in lanes.items()))


def test_pack_tracks_uses_minimum_rows():
    Bar = timeline_plot.Bar
    bars = [Bar(0, 30), Bar(1, 31), Bar(30, 60), Bar(2, 3), Bar(31, 40)]
    tracks = timeline_plot.pack_tracks(bars)
    assert max(tracks) + 1 == 3
    for i, j in itertools.combinations(range(len(bars)), 2):
        if tracks[i] == tracks[j]:
            assert bars[i].end <= bars[j].start or bars[j].end <= bars[i].start


def _png_size(path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_draw_space_time_writes_png(tmp_path):
    pytest.importorskip("matplotlib")
    panels = _model_panels(**SEED, stages=range(1, 5))
    out = timeline_plot.draw_space_time(panels, tmp_path / "seed.png", "seed model")
    assert out.stat().st_size > 10_000
    width, height = _png_size(out)
    assert 800 <= width <= 3000 and 600 <= height <= 4000
    assert height > width / 3  # four stacked panels, not a sliver

    real = [_panel("ascend", {"MTE2": [(0, 40, "A0"), (10, 50, "B0")], "Cube": [(50, 90, "mm0")],
                              "Fixpipe": [(90, 100, "out")]})]
    out2 = timeline_plot.draw_space_time(real, tmp_path / "sub" / "real.png", "real")
    w2, h2 = _png_size(out2)
    assert w2 == width and 200 <= h2 < height
