"""A level change between runs of one commit is not the code's: on the committed runs of one
campaign (the 2-core box's unsharded run against its merged shards, the H200 main job with
overlap off and auto), the dashboard lists such steps apart as SAME COMMIT with what differed in
how the runs measured, never as SLOWER / FASTER on the Regressions page or the overview, while
a change between two commits stays a verdict."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

from history_fixtures import RESULTS
from tlbench.harness.cli import main
from tlbench.harness.dashboard import watch
from tlbench.harness.results.compare import verdict_words
from tlbench.harness.results.history import query
from tlbench.harness.results.history.query import Point
from tlbench.harness.results.history.schema import open_history
from tlbench.harness.results.history.step_context import step_contexts
from tlbench.harness.results.history.steps import detect_steps

SHARDS = RESULTS / "cpu-shards"  # one commit: unsharded and merged shards; shard3-later: another commit
MAIN_JOB = sorted((RESULTS / "main-job-speed" / "h200").glob("*.json.gz"))  # one commit: overlap auto and off


def _changes(db: Path) -> list[watch.LevelChange]:
    conn = open_history(db, create=False)
    try:
        return watch.regressions(query.series(conn))
    finally:
        conn.close()


def test_steps_between_runs_of_one_commit_are_same_commit_never_a_verdict(tmp_path, capsys):
    db = tmp_path / "h.sqlite"
    assert main(["history", "import-dir", str(SHARDS), "--history", str(db)]) == 0
    changes = _changes(db)
    within = [c for c in changes if c.last_before.commit_id == c.first_after.commit_id]
    assert len(within) >= 5  # the unsharded run against the merged shards: steps the detector does find
    assert all(c.verdict == "SAME COMMIT" and not c.code_change for c in within)
    assert all(c.last_before.commit_id in c.context.shared_commits for c in within)
    # what differed in how they measured is said: the merged run's items were timed in a shard, fewer round-robin
    assert all("shard none (unsharded) -> 3/3" in c.context.words and "round-robin over" in c.context.words for c in within)
    between = [c for c in changes if c.code_change]
    assert between and all(c.verdict in ("SLOWER", "FASTER") and not c.context.shared_commits for c in between)
    assert all(c.last_before.commit_id != c.first_after.commit_id for c in between)

    assert main(["dashboard", "--history", str(db), "--out-dir", str(tmp_path / "site")]) == 0
    page = (tmp_path / "site" / "regressions.html").read_text()
    listed, apart = page.split("Level changes within one commit")
    slower, faster = (sum(c.verdict == v for c in between) for v in ("SLOWER", "FASTER"))
    assert f"Slower between commits ({slower})" in listed and f"Faster between commits ({faster})" in listed
    assert "SAME COMMIT" not in listed and listed.count(">FASTER</td>") + listed.count(">SLOWER</td>") == len(between)
    assert f"({len(within)}): not the code" in apart and apart.count(">SAME COMMIT</td>") == len(within)
    assert "same commit on both sides: the environment or the run&#39;s mode, not the code" in apart


def test_the_overlap_off_and_auto_runs_of_one_commit_colour_no_workload(tmp_path, capsys):
    db = tmp_path / "h.sqlite"
    assert main(["history", "add", *map(str, MAIN_JOB), "--history", str(db)]) == 0
    changes = _changes(db)
    assert changes and all(c.verdict == "SAME COMMIT" for c in changes)  # five runs, one commit
    assert any("timed alone -> beside" in c.context.words or "-> alone" in c.context.words for c in changes)
    assert main(["dashboard", "--history", str(db), "--out-dir", str(tmp_path / "site")]) == 0
    index = (tmp_path / "site" / "index.html").read_text()
    for word in ("SLOWER", "FASTER"):
        assert f'style="background:{verdict_words.colour(word)}">{word}</td>' not in index
    assert "Regressions (0 slower, 0 faster)" in index
    assert "with the same commit on both sides" in index  # the newest run's same-commit step is named, not judged


def test_a_sized_slowdown_of_the_same_commit_is_same_commit_and_of_another_commit_slower(tmp_path, capsys):
    aa = [RESULTS / "h200-measurement-trust" / "aa" / f"aa{i}.json.gz" for i in (1, 2, 3, 4)]  # real A/A runs of one commit

    def night(n: int, commit: str | None) -> Path:  # a real run made 1.3x slower on a later date (a known change)
        doc = copy.deepcopy(json.loads(gzip.decompress(aa[-1].read_bytes())))
        doc["datetime"] = f"2026-12-{10 + n:02d}T03:00:00+00:00"
        doc["commit_info"] = {**doc["commit_info"], **({"id": commit} if commit else {}), "dirty": False}
        for bench in doc["benchmarks"]:
            rec = bench["extra_info"]["tlbench"]
            rec["samples_s"] = bench["stats"]["data"] = [v * 1.3 for v in rec["samples_s"]]
        (dest := tmp_path / f"night-{n}.json").write_text(json.dumps(doc))
        return dest

    same, other = tmp_path / "same.sqlite", tmp_path / "other.sqlite"
    assert main(["history", "add", *map(str, aa), *map(str, (night(n, None) for n in (1, 2))), "--history", str(same)]) == 0
    assert main(["history", "add", *map(str, aa), *map(str, (night(n, "ab" * 20) for n in (3, 4))), "--history", str(other)]) == 0
    kernels_same = [c for c in _changes(same) if c.kind == "device"]
    kernels_other = [c for c in _changes(other) if c.kind == "device"]
    assert kernels_same and all(c.verdict == "SAME COMMIT" for c in kernels_same)
    assert kernels_other and all(c.verdict == "SLOWER" and c.code_change for c in kernels_other)


def _point(run: int, commit: str | None, dirty: bool | None, median: float) -> Point:
    rec = {"kind": "device", "method": "cupti-kernel-timestamps"}
    return Point(run, f"h{run}", f"2026-12-0{run}", commit, dirty, "timed", median, (median,), None, None, json.dumps(rec), rec)


def test_only_clean_committed_runs_make_a_shared_commit():
    # harness logic on hand-made points (named as such): a run with uncommitted changes may hold any code
    values = [1.0, 1.0, 1.0, 1.5, 1.5, 1.5]
    steps = detect_steps(values)
    assert [s.index for s in steps] == [3]
    dirty = [_point(i + 1, "c1", i >= 2, v) for i, v in enumerate(values)]  # c1 clean before, c1+dirty after
    clean = [_point(i + 1, "c1", False, v) for i, v in enumerate(values)]
    unknown = [_point(i + 1, None, None, v) for i, v in enumerate(values)]
    assert step_contexts(dirty, steps)[0].code_change
    assert step_contexts(unknown, steps)[0].code_change
    assert step_contexts(clean, steps)[0].shared_commits == ("c1",)
