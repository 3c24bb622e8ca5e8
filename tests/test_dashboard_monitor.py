"""The dashboard as a trend monitor, on real committed runs: testbeds keyed by host (no false step
between a 2-core box and a 32-core host), a merged run stored once, stored rows that cannot be
read left out and named (dashboard and history show survive them), every detected level change
on the Regressions page with its runs and commits and the workload's verdict coloured, stage
curves for every suite that sweeps num_stages (a user's kernel_sweep too), scratch suites left
out unless asked for, and a nav that fits 1000 and 1400 px in headless Chromium."""

from __future__ import annotations

import copy
import gzip
import json
import sqlite3
import tempfile
from pathlib import Path

import pytest

from browser_cdp import Browser, find_chromium
from history_fixtures import RESULTS, unpack_runs
from tlbench.harness.cli import main
from tlbench.harness.dashboard import watch
from tlbench.harness.results.compare import verdict_words
from tlbench.harness.results.history import query
from tlbench.harness.results.history.schema import open_history

CPU_BOX = RESULTS / "cpu-shards" / "unsharded.json.gz"  # the 2-core box: AMD EPYC x2
H200_HOST = RESULTS / "h200-quick-and-full-scope" / "full.json.gz"  # the H200 host: its Ascend compile items too
STAGES = RESULTS / "h200-gemm-stages" / "stages.json"
GEMM_WS = RESULTS / "h200-parity" / "gemm-ws.json.gz"
FOCUS = RESULTS / "h200-tile-sweep" / "focus-8192.json"  # a scratch suite, focus_tmp


def _db(tmp_path: Path, *files: Path) -> Path:
    db = tmp_path / "h.sqlite"
    assert main(["history", "add", *map(str, files), "--history", str(db)]) == 0
    return db


def test_a_testbed_is_keyed_by_its_host_so_two_hosts_never_make_a_step(tmp_path, capsys):
    db = _db(tmp_path, CPU_BOX, H200_HOST)
    conn = open_history(db, create=False)
    beds = [t for t in query.testbeds(conn) if t.backend == "ascend"]
    assert {t.host for t in beds} == {"AMD EPYC x2", "Intel(R) Xeon(R) Processor x32"}
    assert all(t.accelerator == beds[0].accelerator and t.tilelang == beds[0].tilelang for t in beds)  # only the host differs
    both = query.series(conn, "gemm-8192x8192x8192-f16-bm128-bn256-bk64-t256-auto-s3", kind="compile")
    ascend = [s for s in both if s.testbed.backend == "ascend"]
    assert len(ascend) == 2 and all(len(s.points) == 1 for s in ascend)  # one series per host, never one with a step
    assert not any(c.kind == "compile" for c in watch.regressions(query.series(conn)))
    conn.close()


def test_a_merged_run_is_stored_once_in_either_order(tmp_path, capsys):
    folder = RESULTS / "cpu-shards"
    db = tmp_path / "a.sqlite"
    assert main(["history", "import-dir", str(folder), "--history", str(db)]) == 0
    said = capsys.readouterr().out
    assert "skipped " + str(folder / "shard1.json.gz") + ": a shard of a merged run already stored" in said
    stored = {Path(r[0]).name for r in sqlite3.connect(db).execute("SELECT source FROM runs")}
    assert stored == {"merged.json.gz", "shard3-later.json.gz", "unsharded.json.gz"}  # a re-run of shard 3 is another run
    reverse = tmp_path / "b.sqlite"
    shards = [folder / f"shard{i}.json.gz" for i in (1, 2, 3)]
    assert main(["history", "add", *map(str, shards), "--history", str(reverse)]) == 0
    assert main(["history", "add", str(folder / "merged.json.gz"), "--history", str(reverse)]) == 0
    assert "its shards or a smaller merge of them, stored before as run(s) 1, 2, 3, removed" in capsys.readouterr().out
    runs = sqlite3.connect(reverse).execute("SELECT source FROM runs").fetchall()
    assert [Path(r[0]).name for r in runs] == ["merged.json.gz"]


def test_unreadable_stored_rows_are_left_out_and_named(tmp_path, capsys):
    db = _db(tmp_path, STAGES)
    raw = sqlite3.connect(db)
    first, second = [r[0] for r in raw.execute("SELECT rowid FROM items WHERE status = 'timed' LIMIT 2")]
    raw.execute("UPDATE items SET record_json = '{not json' WHERE rowid = ?", (first,))
    raw.execute("UPDATE items SET median_s = 0, samples_json = '[0, 0, 0]' WHERE rowid = ?", (second,))
    raw.commit()
    raw.close()
    capsys.readouterr()
    assert main(["dashboard", "--history", str(db), "--out-dir", str(tmp_path / "site")]) == 0
    out = capsys.readouterr().out
    assert "2 stored row(s) could not be read and were left out" in (tmp_path / "site" / "index.html").read_text()
    assert "its record is not valid JSON" in (tmp_path / "site" / "index.html").read_text()
    assert "open file://" in out
    assert main(["history", "show", "--history", str(db)]) == 0
    shown = capsys.readouterr().out
    assert "note: 2 stored row(s) could not be read and were left out:" in shown and "all-zero or missing samples" in shown
    assert main(["history", "show", "--history", str(db), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["rows_skipped"]) == 2


AA = [RESULTS / "h200-measurement-trust" / "aa" / f"aa{i}.json.gz" for i in (1, 2, 3, 4)]  # four real A/A runs of one H200 suite


def _slower_night(source: Path, dest: Path, night: int) -> Path:
    """A real run as it would read if every kernel got 1.3x slower on a later night (a sized, known
    change, as tests/test_compile_gate.py makes one), with its own date and commit."""
    doc = copy.deepcopy(json.loads(gzip.decompress(source.read_bytes())))
    doc["datetime"] = f"2026-12-{10 + night:02d}T03:00:00+00:00"
    doc["commit_info"] = {**doc.get("commit_info", {}), "id": f"{night:02d}" + "ab" * 19, "dirty": False}
    for bench in doc["benchmarks"]:
        rec = bench["extra_info"]["tlbench"]
        rec["samples_s"] = [v * 1.3 for v in rec["samples_s"]]
        bench["stats"]["data"] = rec["samples_s"]
    dest.write_text(json.dumps(doc))
    return dest


def test_the_regressions_page_lists_each_step_with_its_runs_and_commits(tmp_path, capsys):
    later = [_slower_night(AA[-1], tmp_path / f"slow-{n}.json", n) for n in (1, 2, 3)]
    db = _db(tmp_path, *AA, *later)
    assert main(["dashboard", "--history", str(db), "--out-dir", str(tmp_path / "site")]) == 0
    page = (tmp_path / "site" / "regressions.html").read_text()
    base_commit = json.loads(gzip.decompress(AA[-1].read_bytes()))["commit_info"]["id"][:10]
    assert f"run 4 (2026-11-30 18:10, commit {base_commit})<br>&rarr; run 5 (2026-12-11 03:00, commit 01abababab)" in page
    assert f'style="background:{verdict_words.colour("SLOWER")}">SLOWER</td>' in page
    index = (tmp_path / "site" / "index.html").read_text()
    assert f'<td class="verdict" style="background:{verdict_words.colour("SLOWER")}">SLOWER</td>' not in index  # not at the newest run
    conn = open_history(db, create=False)
    kernels = [s for s in query.series(conn, kind="device") if not s.is_vendor and s.timed]
    changes = watch.regressions(query.series(conn))
    assert {c.case_id for c in changes if c.kind == "device"} >= {s.case_id for s in kernels}  # every kernel's step found
    assert all(c.verdict == "SLOWER" and c.change == pytest.approx(0.3, abs=0.03) and c.runs_after == 3 for c in changes)
    conn.close()


def test_a_step_at_the_newest_run_colours_its_workload(tmp_path, capsys):
    db = _db(tmp_path, *AA, _slower_night(AA[-1], tmp_path / "slow.json", 1))
    assert main(["dashboard", "--history", str(db), "--out-dir", str(tmp_path / "site")]) == 0
    index = (tmp_path / "site" / "index.html").read_text()
    row = index.split(f'<td class="verdict" style="background:{verdict_words.colour("SLOWER")}">SLOWER</td>')[1].split("</tr>")[0]
    assert "case(s) slower at the newest run" in row and "run 5 (2026-12-11T03:00, 01abababab)" in row


def test_stage_curves_for_every_suite_that_sweeps_num_stages_and_scratch_suites_left_out(tmp_path, capsys):
    db = _db(tmp_path, STAGES, GEMM_WS, FOCUS)
    site = tmp_path / "site"
    assert main(["dashboard", "--history", str(db), "--out-dir", str(site)]) == 0
    stages = (site / "stages.html").read_text()
    assert "&middot; suite stages" in stages and "&middot; suite gemm_ws" in stages  # a user's kernel_sweep too
    index = (site / "index.html").read_text()
    first = index.split("<h2>Stage curves</h2>")[1]
    assert first.index("suite stages") < first.index("suite gemm_ws")  # the stage suite's sweep is the headline
    assert not (site / "suite-focus_tmp.html").exists() and "focus_tmp" in capsys.readouterr().out
    assert main(["dashboard", "--history", str(db), "--out-dir", str(tmp_path / "all"), "--include-all"]) == 0
    assert (tmp_path / "all" / "suite-focus_tmp.html").exists()
    assert main(["dashboard", "--history", str(db), "--out-dir", str(tmp_path / "few"), "--exclude", "gemm_*"]) == 0
    assert not (tmp_path / "few" / "suite-gemm_ws.html").exists()


NAV_CHECK = """
(() => {
  const nav = document.querySelector('nav'), links = [...nav.querySelectorAll('a')];
  return {page: document.documentElement.scrollWidth, nav: nav.scrollWidth, navBox: nav.clientWidth,
          outside: links.filter(a => { const r = a.getBoundingClientRect(); return r.right > window.innerWidth || r.left < 0; })
                        .map(a => a.textContent)};
})()
"""


@pytest.mark.skipif(find_chromium() is None, reason="no Chromium here (Debian: apt-get install chromium); .ci/run installs it")
def test_the_nav_and_pages_fit_1000_and_1400_px(tmp_path, capsys):
    db = _db(tmp_path, STAGES, GEMM_WS, CPU_BOX, H200_HOST)
    assert main(["dashboard", "--history", str(db), "--out-dir", str(tmp_path / "site")]) == 0
    browser = Browser(find_chromium(), Path(tempfile.mkdtemp(prefix="tlbench-nav-")) / "profile")
    try:
        for width in (1000, 1400):
            browser.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": 1000, "deviceScaleFactor": 1,
                                                                "mobile": False}, session=True)
            for name in ("index.html", "regressions.html", "stages.html"):
                browser.open((tmp_path / "site" / name).resolve().as_uri())
                found = browser.evaluate(NAV_CHECK)
                assert found["outside"] == [] and found["nav"] <= found["navBox"], (width, name, found)
                assert found["page"] <= width, (width, name, found)  # nothing wider than the window
        assert browser.errors() == []
    finally:
        browser.close()
