"""The autotune rule on a real H200 run (results/h200-parity/gemm-small-more.json.gz): the fastest
correct kernel per problem, against that run's vendor item, recorded under its config's own id
when the winner was the labelled ``best`` replay of an earlier winner."""

import gzip
import json
from pathlib import Path

from tlbench.harness.results.export.best_configs import pick_best

RUN = Path(__file__).resolve().parents[1] / "results" / "h200-parity" / "gemm-small-more.json.gz"


def test_the_winner_per_problem_and_a_best_replay_is_recorded_under_its_plain_id():
    records = [b["extra_info"]["tlbench"] for b in json.load(gzip.open(RUN))["benchmarks"]]
    best = {e.problem_id: e for e in pick_best(records, {"nvidia": "NVIDIA H200"})}
    assert sorted(best) == ["gemm-1024x1024x1024-f16", "gemm-2048x2048x2048-f16", "gemm-4096x4096x4096-f16"]
    for problem_id, entry in best.items():
        assert "-best-" not in entry.case_id and entry.case_id.startswith(problem_id + "-")
        assert entry.vs_vendor is not None and entry.candidates >= 14
    # 2048^3 and 4096^3 were won by the replayed earlier winner, 1024^3 by a new config
    assert best["gemm-2048x2048x2048-f16"].case_id == "gemm-2048x2048x2048-f16-bm128-bn256-bk64-t256-g16-so-auto-s3"
    assert best["gemm-4096x4096x4096-f16"].case_id == "gemm-4096x4096x4096-f16-bm128-bn256-bk64-t256-g16-so-auto-s4"
    assert best["gemm-1024x1024x1024-f16"].case_id == "gemm-1024x1024x1024-f16-bm64-bn128-bk128-t256-g8-so-auto-s4"
    fastest = min((r for r in records if r["case_id"].startswith("gemm-1024x1024x1024-f16-") and r.get("config")),
                  key=lambda r: r["summary"]["median"])
    assert best["gemm-1024x1024x1024-f16"].median_s == fastest["summary"]["median"]
