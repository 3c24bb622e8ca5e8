"""``--tlbench-search=model`` in a real pytest run: every config is in the results, measured or skipped with its rank.

A suite of 24 configs (4 tiles x 3 thread counts x 2 stage counts) runs on the TEST-ONLY CPU
torch device (tests/cpu_torch_backend.py: the real device worker, the real family path; its
timer hands out fixed samples, so these tests check what the search writes, never which config
is fast - the replay tests, tests/test_search_replay.py, check the choice on recorded times).
Each test reads the results file pytest-benchmark wrote and ``tlbench report`` of it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("tilelang")

from tlbench.harness.cli import main as tlbench_main  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
AXES = {"block": [32, 64, 128, 256], "threads": [32, 64, 128], "stages": [1, 2]}
CONFIGS = 24

SUITE = f'''
import tilelang.language as T
import torch

from tlbench import kernel_sweep


def copy_body(N, block, threads, stages):
    @T.prim_func
    def main(x: T.Tensor((N,), "float32"), y: T.Tensor((N,), "float32")):
        with T.Kernel(N // (block * 4), threads=threads) as b:
            buf = T.alloc_shared((block,), "float32")
            for k in T.Pipelined(4, num_stages=stages):
                T.copy(x[(b * 4 + k) * block:(b * 4 + k + 1) * block], buf)
                T.copy(buf, y[(b * 4 + k) * block:(b * 4 + k + 1) * block])
    return main


def make_inputs(device, N):
    return [torch.randn(N, device=device)]


SWEEP = kernel_sweep("searched_copy", {{"cuda": copy_body}}, sizes={{"N": 1 << 16}}, smoke={{"N": 1 << 14}}, quick=(),
                     axes={AXES!r}, inputs=make_inputs, reference=lambda x: x.clone())


def test_searched(tlbench):
    tlbench.run()
'''


def _run(folder: Path, *options: str) -> tuple[subprocess.CompletedProcess, dict]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "test_searched_suite.py").write_text(SUITE)
    out = folder / "run.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "test_searched_suite.py", "--benchmark-only", "-p", "cpu_torch_backend", "-p",
         "tlbench.harness.plugin", "--tlbench-backend=cputorch", "--tlbench-kind=device", "--tlbench-scope=smoke",
         "--tlbench-seed=3", f"--benchmark-json={out}", "-p", "no:cacheprovider", "-q", *options],
        capture_output=True, text=True, cwd=folder, timeout=600, env=env,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return done, json.loads(out.read_text())


@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    return _run(tmp_path_factory.mktemp("searched"), "--tlbench-search=model")


def _timed(data: dict) -> list[dict]:
    return [b["extra_info"]["tlbench"] for b in data["benchmarks"]]


def test_every_config_is_in_the_file_measured_or_skipped_with_its_predicted_rank(searched):
    done, data = searched
    timed, skipped = _timed(data), data["tlbench"]["skipped"]
    ids = [r["case_id"] for r in timed] + [s["case_id"] for s in skipped]
    assert len(ids) == len(set(ids)) == CONFIGS  # no config hidden, none twice
    assert {tuple(r["config"][k] for k in AXES) for r in timed + skipped} == {
        (b, t, s) for b in AXES["block"] for t in AXES["threads"] for s in AXES["stages"]}
    assert all(r["search"]["chosen"] in ("prior top", "probe", "model") for r in timed)
    assert all(s["search"]["chosen"] is None and f"predicted rank {s['search']['predicted_rank']} of {CONFIGS}" in s["reason"]
               for s in skipped)
    ranks = sorted(s["search"]["predicted_rank"] for s in skipped)
    assert len(set(ranks)) == len(ranks) and all(1 <= r <= CONFIGS for r in ranks)
    assert 0 < len(timed) <= CONFIGS // 4  # the default: at most a quarter measured


def test_every_note_carries_the_problems_account_counted_from_the_records(searched):
    done, data = searched
    records = _timed(data) + data["tlbench"]["skipped"]
    accounts = {json.dumps(r["search"]["problem"], sort_keys=True) for r in records}
    assert len(accounts) == 1
    account = json.loads(accounts.pop())
    assert account["configs"] == CONFIGS and account["measured"] == len(_timed(data))
    kernels = [r["measurement"]["sampling_seconds"] for r in _timed(data)]
    assert account["measured_device_s"] >= sum(kernels) > 0  # the kernels' own sampling, at least (no vendor here)
    assert account["exhaustive_projection_s"] == pytest.approx(sum(kernels) / len(kernels) * CONFIGS)


def test_the_summary_and_report_say_how_many_were_measured_and_the_exhaustive_cost(searched, tmp_path, capsys):
    done, data = searched
    measured = len(_timed(data))
    line = f"search (model) cputorch · searched_copy-N16384: measured {measured} of {CONFIGS} configs, {CONFIGS - measured} skipped"
    assert "learning from" not in done.stdout  # a first run: no history
    assert line in done.stdout, done.stdout[-3000:]
    assert "the exhaustive sweep's projected" in done.stdout
    assert "item skipped: not measured by the search" not in done.stdout  # one line for the problem, not one per config
    path = tmp_path / "run.json"
    path.write_text(json.dumps(data))
    assert tlbench_main(["report", str(path)]) == 0
    assert line in capsys.readouterr().out
    assert tlbench_main(["report", str(path), "--json"]) == 0
    (account,) = json.loads(capsys.readouterr().out)["search"]
    assert (account["configs"], account["measured"], account["skipped"]) == (CONFIGS, measured, CONFIGS - measured)


def test_without_the_option_and_below_the_minimum_every_config_is_measured(tmp_path):
    for options in ((), ("--tlbench-search=model", "--tlbench-search-min-configs=25")):
        done, data = _run(tmp_path / str(len(options)), *options)
        assert len(_timed(data)) == CONFIGS and not data["tlbench"]["skipped"]
        assert not any("search" in r for r in _timed(data)) and "search (model)" not in done.stdout


def test_a_bad_knob_is_a_usage_error_naming_it(tmp_path):
    (tmp_path / "test_searched_suite.py").write_text(SUITE)
    done = subprocess.run([sys.executable, "-m", "pytest", "test_searched_suite.py", "-p", "tlbench.harness.plugin",
                           "--tlbench-search=model", "--tlbench-search-fraction=2", "-p", "no:cacheprovider", "-q"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])})
    assert done.returncode == 4 and "--tlbench-search-fraction" in done.stderr, done.stderr[-2000:]


def test_an_earlier_run_teaches_the_ranker_and_the_account_says_how_many_configs(searched, tmp_path):
    earlier = tmp_path / "earlier.json"
    earlier.write_text(json.dumps(searched[1]))
    done, data = _run(tmp_path / "again", "--tlbench-search=model", f"--tlbench-search-learn-from={earlier}")
    timed_before = len(_timed(searched[1]))
    (account,) = {json.dumps(r["search"]["problem"], sort_keys=True) for r in _timed(data) + data["tlbench"]["skipped"]}
    assert json.loads(account)["learned_from"] == timed_before  # every timed config of the earlier run, none twice
    assert f"after learning from {timed_before} timed configs of earlier runs" in done.stdout


@pytest.mark.parametrize("content", [None, "not json", '{"benchmarks": 3}'])
def test_a_history_file_that_is_not_a_run_is_refused_before_collection(tmp_path, content):
    (tmp_path / "test_searched_suite.py").write_text(SUITE)
    path = tmp_path / "earlier.json"
    if content is not None:
        path.write_text(content)
    done = subprocess.run([sys.executable, "-m", "pytest", "test_searched_suite.py", "-p", "tlbench.harness.plugin",
                           "--tlbench-search=model", f"--tlbench-search-learn-from={path}", "-p", "no:cacheprovider", "-q"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])})
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]
    assert f"--tlbench-search-learn-from {path}: not a readable results file" in done.stderr


def test_a_measured_config_that_failed_counts_as_measured_in_the_account():
    """Records as the results file holds them (hand-written here: the harness's own counting)."""
    from tlbench.harness.results.report.search_account import search_accounts

    problem = {"problem_id": "p", "configs": 3, "measured": 2, "stopped_because": "budget", "measured_device_s": 1.0,
               "exhaustive_projection_s": 1.5}
    records = [{"backend": "b", "status": "timed", "search": {"chosen": "prior top", "problem": problem}},
               {"backend": "b", "status": "failed", "search": {"chosen": "model", "problem": problem}},
               {"backend": "b", "status": "skipped", "search": {"chosen": None, "problem": problem}},
               {"backend": "b", "status": "timed"}]  # no search: not counted
    (account,) = search_accounts(records)
    assert (account.configs, account.measured, account.skipped) == (3, 2, 1)
