"""Where a night's time went (harness/results/nightly/night_costs.py), from the records' own numbers."""

from tlbench.harness.results.nightly.night_costs import cost_markdown


def _bench(case, samples, build, count, child, lowering, shard="1/2"):
    record = {"kind": "compile", "backend": "ascend", "case_id": case, "samples_s": samples, "shard": shard,
              "cold_build_once": {"wall_s": build} if build else None,
              "instructions": {"lowering": [lowering], "count_wall_s": count, "child_wall_s": child, "count_child": 7}}
    return {"extra_info": {"tlbench": record}}


def test_a_merged_night_shows_each_shard_its_parts_and_every_item_costliest_first():
    document = {
        "benchmarks": [_bench("gemm-s2", [0.2, 0.2], 0.0, 10.0, 350.0, 800_000_000),
                       _bench("fa-s3", [6.6], 0.0, 300.0, 350.0, 90_000_000_000)],
        "tlbench": {"sharded": {"shards": [
            {"label": "1/2", "phases_s": {"start-up": 12.0, "ascend setup": 1.0, "ascend rounds": 7.0, "ascend count": 360.0, "session": 381.0}},
            {"label": "2/2", "phases_s": {"session": 200.0}},
        ]}},
    }
    text = cost_markdown([document])
    assert "| shard 1/2 | 381 s | start-up 12 s, ascend setup 1 s, ascend rounds 7 s, ascend count 360 s |" in text
    assert "| shard 2/2 | 200 s | - |" in text
    # one child: 350 s of wall, 310 s of counts -> 40 s its own
    assert ("2 compile items (2 with instruction counts): timed rounds 7 s, one cold build each 0 s, callgrind counts 310 s, "
            "and 1 count child(ren)' own start-up and warm-up 40 s.") in text
    rows = [line for line in text.splitlines() if line.startswith("| ascend ")]
    assert rows == ["| ascend fa-s3 | 6.6 | 0.0 | 300.0 | 90,000,000,000 | 1/2 |",
                    "| ascend gemm-s2 | 0.4 | 0.0 | 10.0 | 800,000,000 | 1/2 |"]


def test_nothing_known_is_no_section():
    assert cost_markdown([{"benchmarks": []}]) == ""


def test_item_costs_are_each_timed_items_seconds_and_a_skipped_items_nothing():
    from tlbench.harness.results.nightly.night_costs import item_costs

    document = {"benchmarks": [_bench("gemm-s2", [0.2, 0.2], 2.0, 10.0, 350.0, 800_000_000)],
                "tlbench": {"skipped": [{"kind": "compile", "backend": "ascend", "case_id": "fa-bm256"}]}}
    assert item_costs([document]) == {"compile-ascend-gemm-s2": 12.4, "compile-ascend-fa-bm256": 0.0}


def test_case_ids_and_run_names_are_escaped_in_the_table():
    """A case id (the suite's own words) holding HTML or a pipe shows as text: the summary is
    rendered as markdown/HTML in a CI step summary.  A real night's file, one id edited."""
    import json
    from pathlib import Path

    doc = json.loads((Path(__file__).parent / "fixtures" / "compare" / "cpu-counts" / "n1-nvidia-cpu.json").read_text())
    rec = doc["benchmarks"][0]["extra_info"]["tlbench"]
    rec["case_id"] = "gemm-<script>alert(1)</script>-a|b"
    doc["tlbench"]["phases_s"] = {"<img src=x onerror=alert(1)>": 1.0, "session": 2.0}
    text = cost_markdown([doc])
    assert "<script>" not in text and "<img" not in text
    assert "gemm-&lt;script>alert(1)&lt;/script>-a\\|b" in text
