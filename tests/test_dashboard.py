"""The dashboard, built by `tlbench dashboard` from a real history database (20 real compile
runs of tests/fixtures/history plus the committed H200 results, ``.json.gz`` included), opened
in headless Chromium from file://: no console errors, every chart drawn, no text outside its
chart, a screenshot written.  The best-config table is checked against the results files
themselves, and against copies of a clean run made unclean in each way a run says so."""

import copy
import gzip
import json
import re
import sqlite3
import statistics
import tempfile
from pathlib import Path

import pytest

from browser_cdp import Browser, find_chromium
from tlbench.harness.cli import main
from history_fixtures import RESULTS, unpack_runs

CHART_CHECK = """
(() => {
  const svgs = [...document.querySelectorAll('svg.chart')].map(s => {
    const box = s.getBoundingClientRect();
    return {label: s.getAttribute('aria-label'), w: box.width, h: box.height,
            marks: s.querySelectorAll('polyline, circle').length};
  });
  const imgs = [...document.querySelectorAll('img')].map(i => ({src: i.getAttribute('src'), ok: i.complete && i.naturalWidth > 0}));
  const outside = [];
  for (const s of document.querySelectorAll('svg.chart')) {
    const box = s.getBoundingClientRect();
    for (const t of s.querySelectorAll('text')) {
      const r = t.getBoundingClientRect();
      if (r.width && (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1))
        outside.push(s.getAttribute('aria-label') + ': ' + t.textContent);
    }
  }
  return {svgs, imgs, outside, title: document.title};
})()
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("dash")
    db = root / "history.sqlite"
    runs = unpack_runs(root / "runs")
    assert main(["history", "add", *map(str, runs), "--history", str(db)]) == 0
    assert main(["history", "import-dir", str(RESULTS), "--history", str(db)]) == 0
    assert main(["dashboard", "--history", str(db), "--out-dir", str(root / "site")]) == 0
    return root / "site"


def test_site_pages_and_content(site):
    names = {p.name for p in site.iterdir()}
    assert {"index.html", "regressions.html", "stages.html", "suite-stages.html", "schedule.html"} <= names
    index = (site / "index.html").read_text()
    assert "Best config per problem" in index and "% of peak" in index
    assert "modeled cycles/core (compiler schedule model, not a time)" in index and "throughput (measured" in index
    assert "TFLOP/s (measured)" in index and 'class="ref"' in index  # stage curves in TFLOP/s with the vendor line
    # the H200 best config at 8192^3 carries its % of peak from the H200 datasheet profile
    row = re.search(r"<td>gemm-8192x8192x8192-f16</td>(.*?)</tr>", index, re.S).group(1)
    assert re.search(r"\d+\.\d%", row)
    stages = (site / "suite-stages.html").read_text()
    assert stages.count("<svg") >= 7 and max(map(int, re.findall(r"\((\d+) runs\)", stages))) >= 20  # the 20 fixture runs
    assert "http://" not in index.replace("http://www.w3.org/2000/svg", "") and "<script" not in index


def test_empty_database_is_a_clear_error(tmp_path, capsys):
    from tlbench.harness.results.history.schema import open_history

    open_history(tmp_path / "empty.sqlite").close()
    assert main(["dashboard", "--history", str(tmp_path / "empty.sqlite"), "--out-dir", str(tmp_path / "s")]) == 2
    assert "holds no runs" in capsys.readouterr().err


CHROMIUM = find_chromium()


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here (Debian: apt-get install chromium); .ci/run installs it")
def test_every_page_renders_in_headless_chromium_without_errors(site):
    shots = Path(tempfile.mkdtemp(prefix="tlbench-dashboard-"))
    browser = Browser(CHROMIUM, shots / "profile")
    try:
        pages = sorted(p for p in site.glob("*.html"))
        for page in pages:
            browser.open(page.resolve().as_uri())
            found = browser.evaluate(CHART_CHECK)
            charts = found["svgs"] + found["imgs"]
            assert charts or page.name == "regressions.html", f"{page.name}: no chart"  # the regressions page is a table
            for svg in found["svgs"]:
                assert svg["w"] > 0 and svg["h"] > 0 and svg["marks"] > 0, f"{page.name}: empty chart {svg['label']}"
            for img in found["imgs"]:
                assert img["ok"], f"{page.name}: image {img['src']} did not load"
            assert found["outside"] == [], f"{page.name}: text outside its chart (clipped)"
            shot = browser.screenshot(shots / page.name.replace(".html", ".png"))
        assert browser.errors() == []
    finally:
        browser.close()
    for page in pages:
        shot = shots / page.name.replace(".html", ".png")
        assert shot.stat().st_size > 10_000 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    print(f"screenshots: {shots}")


def test_a_trend_of_150_runs_stays_readable():
    from tlbench.harness.dashboard.svg import MAX_X_LABELS, Marker, trend_chart

    values = [1.0 + 0.01 * (i % 7) for i in range(150)] + [None] + [1.2] * 49
    chart = trend_chart(values, [f"#{i}" for i in range(200)], "ms", "case", steps=[Marker(151, "+18%")])
    assert "<circle" not in chart  # no per-run markers past DOT_LIMIT
    assert chart.count('class="xl"') <= MAX_X_LABELS + 2  # thinned run labels + the axis title
    assert chart.count("<polyline") == 2  # the failed run splits the line
    assert 'class="fail"' in chart and "+18%" in chart and "(200 runs)" in chart


# -- the headline table tells the truth ------------------------------------------------------


def _row_of(index: str, problem: str) -> list[str]:
    """The cells after the problem's: config (its full case id in the title), median, ..., vs vendor, run."""
    row = re.search(rf"<td>{re.escape(problem)}</td>(.*?)</tr>", index, re.S).group(1)
    case_id = re.search(r'<td title="([^"]+)">', row).group(1)
    return [case_id] + [re.sub(r"<[^>]+>", " ", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row)][1:]


def _file_medians(path: str) -> dict[str, list[float]]:
    """case id -> median of its samples per copy (a run spread over 2 GPUs has a vendor copy per
    GPU), straight from a results file (not through tlbench)."""
    raw = Path(path).read_bytes()
    doc = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
    out: dict[str, list[float]] = {}
    for bench in doc["benchmarks"]:
        rec = bench["extra_info"]["tlbench"]
        if rec["kind"] == "device":
            out.setdefault(rec["case_id"], []).append(statistics.median(rec["samples_s"]))
    return out


def test_best_config_comes_from_clean_runs_and_vs_vendor_from_the_same_run(site):
    index = (site / "index.html").read_text()
    db = sqlite3.connect(site.parent / "history.sqlite")
    assert db.execute("SELECT COUNT(*) FROM runs WHERE source LIKE '%.json.gz'").fetchone()[0] >= 10  # import-dir read them
    for problem in ("gemm-1024x1024x1024-f16", "gemm-8192x8192x8192-f16"):
        cells = _row_of(index, problem)
        case_id, run_id = cells[0], int(re.search(r"run (\d+)", cells[-1]).group(1))
        source, commit, dirty = db.execute("SELECT source, commit_id, commit_dirty FROM runs WHERE run_id=?", (run_id,)).fetchone()
        assert commit and not dirty and "trust" not in source and "focus" not in source
        medians = _file_medians(source)
        ratio = float(cells[-2].rstrip("x"))
        (kernel,) = medians[case_id]
        assert any(ratio == pytest.approx(v / kernel, abs=0.0006) for v in medians[f"{problem}-vendor"]), (ratio, medians[f"{problem}-vendor"])
    assert re.search(r"run \d+ [^<]*: device fault or hang: the worker was restarted", index)  # the fault run, left out, says why
    assert "dirty tree (uncommitted changes)" in index
    # the one run without a commit is the scratch focus run (suite focus_tmp): left out with its suite, and said so
    assert "Suites left out: focus_tmp" in index and "focus_tmp" not in index.split("<h2>Workloads</h2>")[1]


def test_each_mark_of_an_unclean_run_keeps_it_out_of_the_table(tmp_path):
    from tlbench.harness.dashboard.best import best_table
    from tlbench.harness.results.history.schema import open_history

    clean = json.loads((RESULTS / "h200-gemm-stages" / "stages.json").read_text())
    assert clean["commit_info"]["id"] and not clean["commit_info"]["dirty"]
    faster = []

    def unclean(name: str, change) -> None:
        doc = copy.deepcopy(clean)
        for bench in doc["benchmarks"]:  # every kernel 2x faster: it would win the table
            rec = bench["extra_info"]["tlbench"]
            if rec.get("config"):
                rec["samples_s"] = [v / 2 for v in rec["samples_s"]]
        change(doc)
        (tmp_path / name).write_text(json.dumps(doc))
        faster.append(name)

    unclean("dirty.json", lambda d: d["commit_info"].update(dirty=True))
    unclean("no-commit.json", lambda d: d.pop("commit_info"))
    unclean("test-only.json", lambda d: d["tlbench"].update(test_only=["backend_test_only_fault=case=oob"]))
    unclean("partial.json", lambda d: d["tlbench"].update(partial={"ended": False, "missing": []}))

    def device_fault(doc):
        failed = dict(doc["benchmarks"][0]["extra_info"]["tlbench"], status="failed", stage="check", error="XidError",
                      worker={"pid": 1, "restarts": 1, "restarted": True}, case_id="gemm-8192x8192x8192-f16-bm64-bn64-bk32-t128-auto-s2")
        doc["tlbench"].setdefault("failed", []).append(failed)

    unclean("fault.json", device_fault)
    (tmp_path / "clean.json").write_text(json.dumps(clean))
    assert main(["history", "import-dir", str(tmp_path), "--history", str(tmp_path / "h.sqlite")]) == 0
    conn = open_history(tmp_path / "h.sqlite")
    table = best_table(conn)
    sources = dict(conn.execute("SELECT run_id, source FROM runs").fetchall())
    (row,) = table.rows
    assert sources[int(re.search(r"run (\d+)", row.run_label).group(1))].endswith("clean.json") and table.clean_runs == 1
    medians = _file_medians(str(tmp_path / "clean.json"))
    assert row.median_ms == pytest.approx(min(v for k, vs in medians.items() if not k.endswith("-vendor") for v in vs) * 1e3)
    assert [row.vendor_ms] == pytest.approx([v * 1e3 for v in medians["gemm-8192x8192x8192-f16-vendor"]])
    why = {Path(sources[q.run_id]).name: q.reasons for q in table.left_out}
    assert why == {
        "dirty.json": ("dirty tree (uncommitted changes)",),
        "no-commit.json": ("no commit recorded",),
        "test-only.json": ("test-only settings: backend_test_only_fault=case=oob",),
        "partial.json": ("partial run (recovered from an interrupted journal)",),
        "fault.json": ("device fault or hang: the worker was restarted (1 failed items)",),
    }


def test_a_trend_axis_spans_the_minimum_effect_band_so_noise_stays_small():
    from tlbench.harness.dashboard.svg import Band, trend_chart

    values = [1.0 + 0.003 * ((i * 7) % 5 - 2) / 2 for i in range(30)]  # +-0.3 % run-to-run noise
    chart = trend_chart(values, [f"#{i}" for i in range(30)], "ms", "case", band=Band(1 / 1.05, 1.05, "band"))
    ticks = [float(t) for t in re.findall(r'class="yl">([\d.]+)</text>', chart)]
    assert max(ticks) - min(ticks) >= 0.08  # the axis shows the +-5 % band, not a 0.6 % window
    assert 'class="band"' in chart
    bare = trend_chart(values, [f"#{i}" for i in range(30)], "ms", "case")
    bare_ticks = [float(t) for t in re.findall(r'class="yl">([\d.]+)</text>', bare)]
    assert max(bare_ticks) - min(bare_ticks) < 0.01  # what the band prevents: the noise filling the chart


def test_long_titles_and_legends_are_cut_with_an_ellipsis_never_silently():
    from tlbench.harness.dashboard.svg import curve_chart, fit, trend_chart

    long_id = "fa-b2h16-s16384-d128-bf16-causal-bm128-bn192-t384-auto-s2-hopper_ws-fm-with-a-long-tail"
    assert fit("short", 200) == "short"
    cut = fit(long_id, 200)
    assert "\u2026" in cut and cut.startswith("fa-b2h16") and cut.endswith("tail") and len(cut) < len(long_id)
    chart = trend_chart([1.0, 1.1], ["a", "b"], "ms", long_id, width=300)
    assert f"<title>{long_id} (2 runs)</title>" in chart and "\u2026" in chart  # the whole id stays the tooltip
    legend = curve_chart([(long_id, [(1, 1.0), (2, 2.0)])], "num_stages", "TFLOP/s", "t", reference=("vendor: 3 TFLOP/s", 3.0))
    assert f"<title>{long_id}</title>" in legend and "\u2026" in legend and "vendor: 3 TFLOP/s" in legend


def test_legend_entries_that_differ_only_in_the_middle_stay_told_apart():
    """Two gemm_ws configs of the committed H200 run whose legend entries read the same once cut
    in the middle to the chart's width ("block_K64 block_M128 bl...ent132 pingpong1 staged1"):
    each wraps at its spaces instead, so every word of every name is visible."""
    import html
    import re

    from tlbench.harness.dashboard.svg import curve_chart

    names = ["block_K64 block_M128 block_N128 cluster2 consumers2 deferred1 group_m8 lazy_store1 persistent132 pingpong1 staged1",
             "block_K64 block_M128 block_N128 consumers2 deferred1 group_m8 persistent132 pingpong1 staged1"]
    chart = curve_chart([(n, [(3, 700.0), (4, 710.0)]) for n in names], "num_stages", "TFLOP/s", "t",
                        reference=("vendor (same run): 735.2 TFLOP/s", 735.2))
    entries = re.findall(r'<text [^>]*class="lg">(.*?)<title>', chart)
    shown = [html.unescape(re.sub(r"<[^>]+>", "", re.sub(r"</tspan>\s*<tspan[^>]*>", " ", e))) for e in entries]  # a row break reads as a space
    assert shown == [*names, "vendor (same run): 735.2 TFLOP/s"]  # whole, word for word, no ellipsis
    rows = sorted({float(y) for y in re.findall(r'<rect x="[\d.]+" y="([\d.]+)" width="10"', chart)})
    assert len(rows) == 2 and rows[1] - rows[0] >= 2 * 15  # the second entry starts below the first one's wrapped rows
    height = float(re.search(r'<svg [^>]*height="([\d.]+)"', chart).group(1))
    last_row = max(float(y) for y in re.findall(r'<text x="[\d.]+" y="([\d.]+)" class="lg">', chart))
    assert last_row + 6 <= height  # the svg grew to hold every wrapped row


def test_the_regressions_link_counts_what_its_page_shows(site):
    """The nav read "Regressions (0 slower)" and its page listed 27 FASTER rows (real history)."""
    index = (site / "index.html").read_text()
    link = re.search(r'<a href="regressions.html"[^>]*>([^<]+)</a>', index).group(1)
    counted = {word.upper(): int(n) for n, word in re.findall(r"(\d+) (slower|faster)", link)}
    assert set(counted) == {"SLOWER", "FASTER"}, link
    page = (site / "regressions.html").read_text()
    between = page.split("<h2>Level changes within one commit", 1)[0]  # the code changes: what the link counts
    shown = re.findall(r"<td[^>]*>(SLOWER|FASTER)</td>", between)
    assert {v: shown.count(v) for v in ("SLOWER", "FASTER")} == counted, (link, len(shown))
    assert counted["FASTER"] > 0  # the real history holds faster steps (the 27 of the battery)
    for verdict, n in counted.items():
        assert f"<h2>{verdict.capitalize()} between commits ({n})</h2>" in page


def test_a_workloads_newest_run_is_the_run_its_verdict_counts(site):
    """The verdict per workload counted the steps at each case's own newest run (runs 21 and 28)
    while the row named run 22 as the newest (real history)."""
    from tlbench.harness.dashboard import data, watch
    from tlbench.harness.results.history import query
    from tlbench.harness.results.history.schema import open_history

    conn = open_history(site.parent / "history.sqlite", create=False)
    try:
        kept = [s for s in query.series(conn) if data.keep_suite(s.suite, data.SCRATCH)]
    finally:
        conn.close()
    changes = watch.regressions(kept)
    for w in watch.workloads(kept, changes):
        group = [s for s in kept if (s.suite, s.testbed.testbed_id, s.kind) == (w.suite, w.testbed.testbed_id, w.kind)]
        assert any(p.run_id == w.newest.run_id and p.status in ("timed", "failed") for s in group for p in s.points)
        at_newest = [c for c in changes if (c.suite, c.testbed.testbed_id, c.kind) == (w.suite, w.testbed.testbed_id, w.kind)
                     and c.code_change and c.first_after.run_id == w.newest.run_id]
        for verdict in ("SLOWER", "FASTER"):
            n = sum(c.verdict == verdict for c in at_newest)
            assert (f"{n} case(s) {verdict.lower()} at the newest run" in w.detail) == bool(n), (w, n)
        if w.verdict in ("SLOWER", "FASTER"):
            assert any(c.verdict == w.verdict for c in at_newest), (w.suite, w.testbed.testbed_id, w.newest.run_id)


def test_stored_records_that_lost_their_ids_draw_as_the_row_says(tmp_path):
    """A row edited by hand whose stored record lost backend, kind and case_id: the dashboard takes
    them from the row's own columns and draws the same pages (it crashed on such a row once)."""
    from tlbench.harness.results.history.schema import open_history

    runs = [RESULTS / "h200-gemm-stages" / "stages.json", Path(__file__).parent / "fixtures" / "compare" / "ascend-compile-a.json"]
    pages = {}
    for name in ("as-written", "edited"):
        db = tmp_path / f"{name}.sqlite"
        assert main(["history", "add", *map(str, runs), "--history", str(db)]) == 0
        if name == "edited":
            conn = open_history(db)
            for rowid, text in conn.execute("SELECT rowid, record_json FROM items").fetchall():
                rec = {k: v for k, v in json.loads(text).items() if k not in ("backend", "kind", "case_id")}
                conn.execute("UPDATE items SET record_json = ? WHERE rowid = ?", (json.dumps(rec), rowid))
            conn.commit()
            conn.close()
        assert main(["dashboard", "--history", str(db), "--out-dir", str(tmp_path / name)]) == 0
        pages[name] = {p: (tmp_path / name / p).read_text().replace(str(db), "DB")
                       for p in ("index.html", "stages.html", "suite-stages.html", "schedule.html")}
    assert pages["edited"] == pages["as-written"]
    assert "<svg" in pages["edited"]["suite-stages.html"] and "<img" in pages["edited"]["schedule.html"]
