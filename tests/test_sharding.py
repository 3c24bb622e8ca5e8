"""A run split over machines (--tlbench-shard=I/N, harness/pytest_plugin/sharding.py) and put
back together (tlbench merge, harness/results/files/shard_merge.py).

The split's own logic is tested on plain entries; the whole path - N separate pytest runs of a
suite on the FakeBackend (the harness's logic only: it compiles and runs nothing), their real
pytest-benchmark JSON files, the merge, and every reader of the merged file - through pytester.
The real suites' compile items, sharded on this CPU box, are the acceptance run quoted in
results/README.md.
"""

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import scipy.stats  # noqa: F401  (before pytester's in-process runs, which unload what they import: numpy's C core loads once)

import fake_backend
from tlbench.harness.core.shard import ShardSpec, placement, run_digest
from tlbench.harness.pytest_plugin.sharding import ShardEntry, split
from tlbench.harness.results.files.shard_merge import merge_shards
from tlbench.harness.results.files.store import ResultsError, load_results, parse_results

SUITE = """
from tlbench.harness.core.sweep import Sweep
from tile_family import TileConfig, TileProblem

SWEEP = Sweep(
    name="shard_suite",
    problems=[TileProblem(1024, 1024, 1024), TileProblem(2048, 2048, 2048)],
    configs=[
        TileConfig(128, 128, 32, 128, "auto", 2),
        TileConfig(128, 64, 32, 128, "auto", 3),
        TileConfig(128, 128, 7, 128, "auto", 2),       # the fake compiler rejects block_K=7: failed items
        TileConfig(256, 256, 64, 256, "auto", 4),      # over the shared-memory budget: skipped items
    ],
    vendor=True,
)

def test_shard(tlbench):
    tlbench.run()
"""


def _tlbench(cwd, *argv):
    """The tlbench command in its own process (pytester's in-process runs unload what they import)."""
    done = subprocess.run([sys.executable, "-m", "tlbench.harness.cli", *map(str, argv)], cwd=cwd, capture_output=True,
                          text=True, timeout=300)
    return done.returncode, done.stdout, done.stderr


# -- the split ------------------------------------------------------------------------------


def _entries():
    kernels = [ShardEntry(f"s.py::t[k{p}-{c}]", 1.0 + p, f"s.py|fake|device|p{p}") for p in range(3) for c in range(5)]
    vendors = [ShardEntry(f"s.py::t[v{p}]", 1.0 + p, f"s.py|fake|device|p{p}", vendor=True) for p in range(4)]  # p3: no kernel
    return kernels + vendors + [ShardEntry("other.py::test_plain", 1.0)]


@pytest.mark.parametrize("count", [1, 2, 3, 7, 40])
def test_every_item_is_in_one_shard_and_each_vendor_where_its_kernels_are(count):
    entries = _entries()
    shards = split(entries, count)
    assert set(shards) == {e.nodeid for e in entries}
    for e in entries:
        assert shards[e.nodeid] and all(0 <= s < count for s in shards[e.nodeid])
        if not e.vendor:
            assert len(shards[e.nodeid]) == 1
    for p in range(3):
        holders = {shards[e.nodeid][0] for e in entries if not e.vendor and e.problem == f"s.py|fake|device|p{p}"}
        assert set(shards[f"s.py::t[v{p}]"]) == holders  # each shard that runs a kernel of p measures p's vendor item
    assert len(shards["s.py::t[v3]"]) == 1  # a vendor item without kernels still runs, once


def test_the_split_balances_expected_cost_and_does_not_depend_on_collection_order():
    entries = [e for e in _entries() if not e.vendor]
    shards = split(entries, 3)
    assert split(list(reversed(entries)), 3) == shards
    load = [sum(e.cost for e in entries if shards[e.nodeid] == (s,)) for s in range(3)]
    assert max(load) - min(load) <= max(e.cost for e in entries)


def test_shard_spec_and_placement():
    assert ShardSpec.parse("2/3") == ShardSpec(2, 3) and ShardSpec.parse(" 1/1 ").label == "1/1"
    for bad in ("0/3", "4/3", "3", "a/b", "1/0", "-1/2", ""):
        with pytest.raises(ValueError, match="expected I/N"):
            ShardSpec.parse(bad)
    assert placement({"device_uuid": "GPU-1"}) == "GPU-1" and placement({}) is None
    assert placement({"shard": "2/3", "device_uuid": "GPU-1"}) == "2/3@GPU-1" and placement({"shard": "2/3"}) == "2/3"
    assert run_digest(["b", "a", "a"]) == run_digest(["a", "b"]) != run_digest(["a"])


# -- shards, end to end ---------------------------------------------------------------------


@pytest.fixture
def suite(pytester, monkeypatch):
    monkeypatch.setenv("TLBENCH_COMMIT", "c0ffee1")
    monkeypatch.setenv("TLBENCH_COMMIT_DIRTY", "0")
    pytester.makeconftest(fake_backend.CONFTEST)
    pytester.makepyfile(test_shard_suite=SUITE)
    return pytester


def _run(pytester, out, *args):
    return pytester.runpytest("-p", "no:cacheprovider", "--tlbench-backend=fake", "--tlbench-seed=5", f"--benchmark-json={out}", *args)


def _nodeids(path):
    doc = json.loads(path.read_text())
    top = doc.get("tlbench") or {}
    return sorted([b["fullname"] for b in doc["benchmarks"]] + [r["nodeid"] for r in top.get("failed", []) + top.get("skipped", [])])


@pytest.fixture
def shards(suite):
    """The suite unsharded, then as 3 shards (3 separate pytest runs)."""
    result = _run(suite, "whole.json")
    result.assert_outcomes(passed=10, failed=4, skipped=4)
    runs = [_run(suite, f"s{i}.json", f"--tlbench-shard={i}/3") for i in (1, 2, 3)]
    return suite, runs


def test_shards_cover_the_run_once_and_merge_into_the_unsharded_item_set(shards):
    suite, runs = shards
    deselected = [r.parseoutcomes().get("deselected", 0) for r in runs]
    ran = [sum(v for k, v in r.parseoutcomes().items() if k in ("passed", "failed", "skipped")) for r in runs]
    assert all(d > 0 for d in deselected)  # pytest's own count of the other shards' items
    assert [a + b for a, b in zip(ran, deselected)] == [18] * 3
    runs[0].stdout.fnmatch_lines(["*tlbench shard 1/3 on *: * of the run's 18 tlbench items (expected cost *"])
    kernels = [n for p in ("s1.json", "s2.json", "s3.json") for n in _nodeids(suite.path / p) if not n.endswith("-vendor]")]
    assert len(kernels) == len(set(kernels)) == 16  # no kernel item twice

    rc, said, _ = _tlbench(suite.path, "merge", "s1.json", "s3.json", "s2.json", "-o", "run.json")
    assert rc == 0, said
    assert "merged 3 of 3 shards (1/3, 2/3, 3/3" in said and "PARTIAL" not in said
    merged = load_results(suite.path / "run.json")
    assert sorted(set(_nodeids(suite.path / "run.json"))) == _nodeids(suite.path / "whole.json")  # the same items exactly
    assert "partial" not in merged.document["tlbench"]
    note = merged.document["tlbench"]["sharded"]
    assert note["count"] == 3 and note["run_items"] == 18 and sum(s["selected"] for s in note["shards"]) >= 18
    for rec in [*merged.records, *merged.failed, *merged.skipped]:
        assert rec["shard"] in ("1/3", "2/3", "3/3") and rec["host"] and "device" in rec
    vendors = [r for r in merged.records if r["config"] is None]
    for v in vendors:  # each vendor copy was measured by a shard that ran a kernel of its problem
        assert any(k["shard"] == v["shard"] and k["problem"] == v["problem"] and k["kind"] == "device"
                   for k in [*merged.records, *merged.failed, *merged.skipped] if k["config"] is not None)
    rc, said, err = _tlbench(suite.path, "compare", "whole.json", "run.json")
    assert rc == 0, said + err


def test_the_merged_file_is_read_by_every_tlbench_command_and_pytest_benchmark(shards, tmp_path):
    suite, _ = shards
    assert _tlbench(suite.path, "merge", "s1.json", "s2.json", "s3.json", "-o", "run.json")[0] == 0
    merged = str(suite.path / "run.json")
    exe = shutil.which("pytest-benchmark")
    bench_cli = [exe] if exe else [sys.executable, "-m", "pytest_benchmark.cli"]
    out = subprocess.run([*bench_cli, "compare", merged, str(suite.path / "whole.json")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "device-fake-tile-2048x2048x2048-f16-vendor" in out.stdout
    for argv in (["report", merged], ["compare", merged, merged], ["baseline", "update", merged, "--out-dir", str(tmp_path / "base")],
                 ["export", merged, "--format", "github-action-benchmark", "--out-dir", str(tmp_path / "export"),
                  "--allow-partial"]):  # the run holds failed items: export says so, and exports what it holds when allowed
        rc, said, err = _tlbench(suite.path, *argv)
        assert rc == 0, f"{argv}: {said[-1000:]} {err[-1000:]}"
    assert load_results(tmp_path / "base" / "fake-fakeaccelerator-1-0.json").records


def test_history_stores_a_merged_run_as_one_run_under_each_shards_testbed(shards):
    import sqlite3

    suite, _ = shards
    doc = load_results(suite.path / "s3.json").document
    doc["machine_info"]["tlbench"]["backends"]["fake"]["accelerator"] = "FakeAccelerator 2.0"  # shard 3 on another kind of machine
    (suite.path / "s3.json").write_text(json.dumps(doc))
    rc, said, _ = _tlbench(suite.path, "merge", "s1.json", "s2.json", "s3.json", "-o", "run.json")
    assert rc == 0 and "different testbeds" in said
    db = str(suite.path / "h.sqlite")
    assert _tlbench(suite.path, "history", "add", "run.json", "--history", db)[0] == 0
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 1
    beds = dict(conn.execute("SELECT t.accelerator, COUNT(*) FROM items i JOIN testbeds t USING (testbed_id) GROUP BY 1").fetchall())
    merged = load_results(suite.path / "run.json")
    on_shard3 = sum(1 for r in [*merged.records, *merged.failed, *merged.skipped] if r["shard"] == "3/3")
    assert set(beds) == {"FakeAccelerator 1.0", "FakeAccelerator 2.0"} and beds["FakeAccelerator 2.0"] == on_shard3
    # a compare against a one-testbed run sees the mixed testbed, as it would any other testbed change
    rc, _, err = _tlbench(suite.path, "compare", "whole.json", "run.json")
    assert rc == 2 and "testbed differs" in err


def test_a_missing_shard_is_named_and_the_result_marked_partial(shards):
    suite, _ = shards
    out = str(suite.path / "part.json")
    rc, said, _ = _tlbench(suite.path, "merge", "s1.json", "s3.json", "-o", out)
    assert rc == 1
    assert "PARTIAL: shard 2/3 of 3 not merged" in said
    partial = load_results(out).document["tlbench"]["partial"]
    whole = set(_nodeids(suite.path / "whole.json"))
    assert partial["missing_shards"] == ["2/3"]
    assert set(partial["missing"]) == whole - set(_nodeids(suite.path / "s1.json")) - set(_nodeids(suite.path / "s3.json"))
    assert partial["items_collected"] == 18 and partial["items_present"] == 18 - len(partial["missing"])
    assert any("shard 2/3" in r for r in partial["reasons"])
    assert _tlbench(suite.path, "merge", "s1.json", "s3.json", "-o", out, "--allow-partial")[0] == 0
    rc, _, error = _tlbench(suite.path, "compare", "whole.json", out)
    assert rc == 2 and "PARTIAL" in error  # the gate refuses a partial run unless told
    rc, said, _ = _tlbench(suite.path, "compare", "whole.json", out, "--allow-partial")
    assert rc == 1 and "is PARTIAL: shard 2/3 of 3 not merged" in said  # told: its missing items still gate


def test_a_shard_of_another_commit_is_refused_naming_it(shards, monkeypatch):
    suite, _ = shards
    monkeypatch.setenv("TLBENCH_COMMIT", "beefcafe")
    _run(suite, "s2-later.json", "--tlbench-shard=2/3")
    out = suite.path / "run.json"
    rc, _, err = _tlbench(suite.path, "merge", "s1.json", "s2-later.json", "s3.json", "-o", out)
    assert rc == 2
    assert "s2-later.json (shard 2/3) is of commit beefcafe, the other shards of commit c0ffee1" in err
    assert not out.exists()  # nothing written


def _doc(suite, name):
    return copy.deepcopy(load_results(suite.path / name).document)


def _merge_docs(*docs):
    return merge_shards([parse_results(d, f"d{k}.json") for k, d in enumerate(docs)])


def test_shards_of_different_runs_are_refused(shards):
    suite, _ = shards
    s1, s2, s3 = (_doc(suite, f"s{i}.json") for i in (1, 2, 3))
    whole = _doc(suite, "whole.json")
    with pytest.raises(ResultsError, match=r"d1.json: not a shard of a sharded run"):
        _merge_docs(s1, whole)
    with pytest.raises(ResultsError, match=r"shard 1/3 given twice"):
        _merge_docs(s1, s1)
    other = copy.deepcopy(s2)
    other["tlbench"]["shard"]["settings"]["scope"] = "full"
    with pytest.raises(ResultsError, match=r"d1.json \(shard 2/3\) ran with other options .*scope 'quick' -> 'full'"):
        _merge_docs(s1, other, s3)
    other = copy.deepcopy(s2)
    other["tlbench"]["shard"]["run_digest"] = "sha256:other"
    with pytest.raises(ResultsError, match=r"split another set of items"):
        _merge_docs(s1, other, s3)
    other = copy.deepcopy(s2)
    other["commit_info"]["source_digest"] = "sha256:edited"
    with pytest.raises(ResultsError, match=r"d1.json \(shard 2/3\) ran other code than the other shards"):
        _merge_docs(s1, other, s3)
    twice = copy.deepcopy(s2)
    kernel = next(b for b in s1["benchmarks"] if b["extra_info"]["tlbench"]["config"] is not None)
    twice["benchmarks"].append(kernel)
    with pytest.raises(ResultsError, match=r"is in d0.json \(shard 1/3\) and in d1.json \(shard 2/3\)"):
        _merge_docs(s1, twice, s3)


def test_a_shard_that_timed_nothing_still_writes_its_file(suite):
    result = _run(suite, "s9.json", "--tlbench-shard=9/9", "--tlbench-kind=compile")  # 8 items over 9 shards
    assert (suite.path / "s9.json").exists(), result.stdout.str()[-2000:]
    note = json.loads((suite.path / "s9.json").read_text())["tlbench"]["shard"]
    assert note["label"] == "9/9" and note["selected"] == 0 and len(note["run_items"]) == 8
    assert load_results(suite.path / "s9.json").records == ()


def test_bad_shard_values_and_xdist_are_usage_errors(suite):
    result = suite.runpytest("-p", "no:cacheprovider", "--tlbench-backend=fake", "--tlbench-shard=4/3")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*expected I/N with 1 <= I <= N*"])
    pytest.importorskip("xdist")
    result = suite.runpytest("-p", "no:cacheprovider", "--tlbench-backend=fake", "--tlbench-shard=1/2", "-n", "2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tlbench-shard does not combine with pytest-xdist -n*"])


def test_shards_dealt_by_an_earlier_runs_costs_cover_the_run_and_a_bad_cost_file_is_a_usage_error(suite):
    _run(suite, "earlier.json", "--tlbench-kind=compile")
    for k in (1, 2):
        _run(suite, f"c{k}.json", f"--tlbench-shard={k}/2", "--tlbench-kind=compile", "--tlbench-shard-costs=earlier.json")
    notes = [json.loads((suite.path / f"c{k}.json").read_text())["tlbench"]["shard"] for k in (1, 2)]
    assert notes[0]["selected"] + notes[1]["selected"] == 8 and notes[0]["settings"]["shard_costs"] == notes[1]["settings"]["shard_costs"]
    result = suite.runpytest("-p", "no:cacheprovider", "--tlbench-backend=fake", "--tlbench-shard=1/2",
                             "--tlbench-shard-costs=missing.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tlbench-shard-costs missing.json: *"])


def test_without_the_option_nothing_changes(suite):
    _run(suite, "plain.json")
    doc = json.loads((suite.path / "plain.json").read_text())
    assert "shard" not in doc["tlbench"]
    assert not any("shard" in b["extra_info"]["tlbench"] or "host" in b["extra_info"]["tlbench"] for b in doc["benchmarks"])


def test_the_nightly_gate_takes_the_merged_run_and_fails_closed_on_a_partial_one(shards):
    suite, _ = shards
    assert _tlbench(suite.path, "baseline", "update", "whole.json", "--out-dir", "base")[0] == 0
    assert _tlbench(suite.path, "merge", "s1.json", "s2.json", "s3.json", "-o", "run.json")[0] == 0
    rc, said, err = _tlbench(suite.path, "nightly", "--from-results", "run.json", "--baseline-dir", "base", "--out-dir", "night")
    assert rc == 0, said[-2000:] + err[-2000:]
    assert "| run.json | ok |" in (suite.path / "night" / "summary.md").read_text()
    assert _tlbench(suite.path, "merge", "s1.json", "s3.json", "-o", "part.json", "--allow-partial")[0] == 0
    rc, said, _ = _tlbench(suite.path, "nightly", "--from-results", "part.json", "--baseline-dir", "base", "--out-dir", "night2",
                           "--no-remeasure")
    assert rc in (1, 2) and "| part.json | partial |" in said and "PARTIAL: shard 2/3 of 3 not merged" in said
    rc, _, err = _tlbench(suite.path, "nightly", "--out-dir", "night3")
    assert rc == 2 and "--from-results" in err


SBATCH = Path(__file__).resolve().parents[1] / ".github" / "slurm" / "tlbench-shards.sbatch"


def test_the_slurm_array_script_is_valid_bash():
    done = subprocess.run(["bash", "-n", str(SBATCH)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    text = SBATCH.read_text()
    assert "#SBATCH --job-name=" in text and "--tlbench-shard=" in text


def test_the_slurm_array_script_runs_each_task_as_a_shard_and_they_merge(tmp_path):
    """The script itself, run as Slurm would run the tasks of --array=0-1 (no Slurm here: the
    array variables are set as sbatch sets them), on the FakeBackend suite."""
    (tmp_path / "conftest.py").write_text(fake_backend.CONFTEST)
    (tmp_path / "test_shard_suite.py").write_text(SUITE)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "SLURM_"))}
    env.update({"SLURM_SUBMIT_DIR": str(tmp_path), "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "2",
                "TLBENCH_PYTHON": sys.executable, "TLBENCH_SUITES": "test_shard_suite.py", "TLBENCH_OUT": "out",
                "TLBENCH_PYTEST_ARGS": "--tlbench-backend=fake --tlbench-seed=5"})
    missing = subprocess.run(["bash", str(SBATCH)], env=env, capture_output=True, text=True, timeout=60)
    assert missing.returncode != 0 and "submit with sbatch --array=1-N" in missing.stderr
    for task in ("0", "1"):
        done = subprocess.run(["bash", str(SBATCH)], env={**env, "SLURM_ARRAY_TASK_ID": task}, cwd="/",
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert sorted(p.name for p in (tmp_path / "out").glob("*.json")) == ["shard-1-of-2.json", "shard-2-of-2.json"]
    rc, said, err = _tlbench(tmp_path, "merge", "out/shard-1-of-2.json", "out/shard-2-of-2.json", "-o", "run.json")
    assert rc == 0 and "merged 2 of 2 shards" in said, said + err
    assert len({b["fullname"] for b in load_results(tmp_path / "run.json").document["benchmarks"]}) == 10


def test_a_shard_is_finished_from_its_own_journal_and_still_merges(shards):
    suite, _ = shards
    again = _run(suite, "s2-resumed.json", "--tlbench-shard=2/3", "--tlbench-resume=s2.journal.jsonl")
    assert again.ret in (0, 1)
    records = load_results(suite.path / "s2-resumed.json").records
    assert records and all(r.get("resumed_from") for r in records)  # nothing measured again
    rc, said, err = _tlbench(suite.path, "merge", "s1.json", "s2-resumed.json", "s3.json", "-o", "run.json")
    assert rc == 0 and "PARTIAL" not in said, said + err


def test_compare_pairs_a_merged_run_with_an_unsharded_one_either_way_each_kernel_against_its_own_shards_vendor(shards):
    from tlbench.harness.results.compare.compare import compare_runs

    suite, _ = shards
    assert _tlbench(suite.path, "merge", "s1.json", "s2.json", "s3.json", "-o", "run.json")[0] == 0
    whole, merged = load_results(suite.path / "whole.json"), load_results(suite.path / "run.json")
    assert sum(1 for r in merged.records if r["config"] is None) > 2  # vendor copies: more than one per problem
    for base, new in ((whole, merged), (merged, whole)):
        comparison = compare_runs(base, new)
        assert not any("@" in i.key.case_id for i in comparison.items)  # a vendor copy is its item, paired once
        assert not [i.key for i in comparison.items if i.verdict.name in ("NEW", "MISSING")]  # the same items
        assert not comparison.has_regression
    kernel = next(r for r in merged.records if r["config"] is not None and r["kind"] == "device")
    comparison = compare_runs(whole, merged)
    item = next(i for i in comparison.items if i.key.case_id == kernel["case_id"] and i.key.kind == "device")
    assert "on the same GPU (shard)" in item.reference  # judged against the vendor copy of its own shard


MANY_COMPILE_ITEMS = """
from tlbench.harness.core.sweep import Sweep
from tile_family import TileConfig, TileProblem

SWEEP = Sweep(name="many", problems=[TileProblem(1024, 1024, 1024)],
              configs=[TileConfig(128, n, 32, 128, "auto", s) for n in (32, 64, 128) for s in (1, 2, 3, 4)], kinds=("compile",))

def test_many(tlbench):
    tlbench.run()
"""


def test_a_shard_on_a_slower_machine_is_judged_against_its_own_items(pytester, monkeypatch):
    """Harness logic on the FakeBackend: one shard's compile times made 1.8x longer in the merged
    file (what a slower or busier host does to all of its items alike).  Relative to the other
    items of its own shard nothing changed, and compare says so; relative to the whole run, half
    the items would be 35 % slower."""
    from tlbench.harness.results.compare.compare import compare_runs

    monkeypatch.setenv("TLBENCH_COMMIT", "c0ffee1")
    pytester.makeconftest(fake_backend.CONFTEST)
    pytester.makepyfile(test_many=MANY_COMPILE_ITEMS)
    for args in ([], ["--tlbench-shard=1/2"], ["--tlbench-shard=2/2"]):
        out = "whole.json" if not args else f"s{args[0][-3]}.json"
        _run(pytester, out, "--tlbench-kind=compile", *args).assert_outcomes(passed=12 if not args else 6, deselected=0 if not args else 6)
    assert _tlbench(pytester.path, "merge", "s1.json", "s2.json", "-o", "run.json")[0] == 0
    doc = json.loads((pytester.path / "run.json").read_text())
    for bench in doc["benchmarks"]:
        rec = bench["extra_info"]["tlbench"]
        if rec["shard"] == "2/2":
            for name in ("samples_s", "cpu_samples_s"):
                if isinstance(rec.get(name), list):
                    rec[name] = [1.8 * v for v in rec[name]]
    comparison = compare_runs(load_results(pytester.path / "whole.json"), parse_results(doc, "slow-shard.json"))
    assert not comparison.has_regression
    assert {i.verdict.name for i in comparison.items} == {"SAME"}, [(i.key.case_id, i.verdict, i.detail) for i in comparison.items]


def test_every_record_is_checked_one_item_one_shard_and_a_bad_note_is_exit_2(shards):
    """A kernel's record that says nothing of its config is still a kernel: skipped in one shard
    and timed in another is refused, as is an item held twice by one shard; a shard note with a
    field of the wrong type is one line, exit 2 (never a crash)."""
    suite, _ = shards
    s1, s2, s3 = (_doc(suite, f"s{i}.json") for i in (1, 2, 3))
    kernel = next(b for b in s1["benchmarks"] if b["extra_info"]["tlbench"]["config"] is not None)["extra_info"]["tlbench"]
    nodeid = next(b["fullname"] for b in s1["benchmarks"] if b["extra_info"]["tlbench"] is kernel)
    skipped = {k: kernel[k] for k in ("schema_version", "backend", "kind", "case_id", "problem")}
    other = copy.deepcopy(s2)
    other["tlbench"]["skipped"].append({**skipped, "nodeid": nodeid, "status": "skipped", "reason": "edited"})
    with pytest.raises(ResultsError, match=r"is in d0.json \(shard 1/3\) and in d1.json \(shard 2/3\)"):
        _merge_docs(s1, other, s3)
    twice = copy.deepcopy(s1)
    twice["tlbench"]["skipped"].append({**skipped, "nodeid": nodeid, "status": "skipped", "reason": "edited"})
    with pytest.raises(ResultsError, match=r"holds item .* twice \(timed and skipped\)"):
        _merge_docs(twice, s2, s3)
    for field, value in (("count", "3"), ("run_items", "all"), ("settings", [1]), ("selected", "many"), ("index", True)):
        bad = copy.deepcopy(s2)
        bad["tlbench"]["shard"][field] = value
        (suite.path / "bad.json").write_text(json.dumps(bad))
        rc, _, error = _tlbench(suite.path, "merge", "s1.json", "bad.json", "s3.json", "-o", str(suite.path / "m.json"))
        assert rc == 2 and f"tlbench.shard.{field} is" in error and len(error.strip().splitlines()) == 1, error
        assert not (suite.path / "m.json").exists()
def test_an_earlier_runs_costs_deal_the_shards_and_an_unknown_item_costs_its_kinds_median():
    from types import SimpleNamespace

    from tlbench.harness.pytest_plugin.sharding import measured_cost

    costs = {"compile-ascend-fa-s3": 300.0, "compile-ascend-gemm-s2": 10.0, "compile-ascend-gemm-s3": 12.0,
             "compile-nvidia-gemm-s2": 8.0}
    item = lambda backend, case: SimpleNamespace(item_id=f"compile-{backend}-{case}", kind="compile", backend=backend)  # noqa: E731
    assert measured_cost(item("ascend", "fa-s3"), costs) == 300.0
    assert measured_cost(item("ascend", "new-case"), costs) == 12.0  # the median of ascend's compile items here
    assert measured_cost(item("other", "x"), costs) == 11.0  # no item of that backend: the median of all
    entries = [ShardEntry(name, cost) for name, cost in (("fa", 300.0), ("g1", 10.0), ("g2", 12.0), ("g3", 8.0), ("g4", 9.0))]
    shards = split(entries, 2)
    assert shards["fa"] != shards["g1"] and {shards[g] for g in ("g1", "g2", "g3", "g4")} == {shards["g1"]}  # the Z3 item alone
