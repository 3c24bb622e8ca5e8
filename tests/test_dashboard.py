"""The dashboard, built by `tlbench dashboard` from a real history database (20 real compile
runs of tests/fixtures/history plus the committed H200 results), opened in headless
Chromium from file://: no console errors, every chart drawn, a screenshot written."""

import re
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
  return {svgs, imgs, title: document.title};
})()
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("dash")
    db = root / "history.sqlite"
    runs = unpack_runs(root / "runs")
    assert main(["history", "add", *map(str, runs), "--history", str(db)]) == 0
    assert main(["history", "import-dir", str(RESULTS), "--history", str(db)]) == 0
    assert main(["dashboard", str(db), "--out", str(root / "site")]) == 0
    return root / "site"


def test_site_pages_and_content(site):
    names = {p.name for p in site.iterdir()}
    assert {"index.html", "suite-stages.html", "schedule.html"} <= names
    index = (site / "index.html").read_text()
    assert "Best config per problem" in index and "% of peak" in index
    assert "modeled cycles/core (compiler schedule model, not a time)" in index and "device time (measured)" in index
    # the H200 best config at 8192^3 carries its % of peak from the H200 datasheet profile
    row = re.search(r"gemm-8192x8192x8192-f16</td><td>(.*?)</tr>", index).group(1)
    assert re.search(r"\d+\.\d%", row)
    stages = (site / "suite-stages.html").read_text()
    assert stages.count("<svg") >= 7 and "(20 runs)" in stages
    assert "http://" not in index.replace("http://www.w3.org/2000/svg", "") and "<script" not in index


def test_empty_database_is_a_clear_error(tmp_path, capsys):
    from tlbench.harness.results.history.schema import open_history

    open_history(tmp_path / "empty.sqlite").close()
    assert main(["dashboard", str(tmp_path / "empty.sqlite"), "--out", str(tmp_path / "s")]) == 2
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
            assert charts, f"{page.name}: no chart"
            for svg in found["svgs"]:
                assert svg["w"] > 0 and svg["h"] > 0 and svg["marks"] > 0, f"{page.name}: empty chart {svg['label']}"
            for img in found["imgs"]:
                assert img["ok"], f"{page.name}: image {img['src']} did not load"
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
