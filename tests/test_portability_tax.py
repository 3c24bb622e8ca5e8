"""The portability tax: which configs are the one body, and the summary's one line a problem.

``one_body`` comes from the suite's own ``validate`` over every dialect it names a body for
(``GenericFamily.portable``): the built-in flash-attention and GEMM suites are asked as they are.
The tax line is read from the summary of two real H100 runs committed in
results/portability-tax/h100/ (the one FA body, the hand warp-specialized FA and the vendor; the
one GEMM body's best tiles, the hand GEMM and cuBLAS).  Those files were written before records
carried ``one_body``, so each record gets it here from the live family of its suite, as a run
writes it now; the times the line quotes are the files' own medians.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

from tlbench.harness.core.cases import PORTABLE_KEY
from tlbench.harness.results.files.record_fields import Record
from tlbench.harness.results.report.portability_tax import TaxGroup, tax_lines
from tlbench.harness.results.report.summary import summary_lines

ROOT = Path(__file__).resolve().parents[1]
RUNS = ROOT / "results" / "portability-tax" / "h100"


@pytest.fixture(scope="module")
def families():
    from tlbench.suites.gemm import test_gemm_ws, test_tiles

    sys.path.insert(0, str(ROOT / "results" / "portability-tax"))
    try:
        import test_fa_tax
    finally:
        del sys.path[0]
    return {"flash_attention": test_fa_tax.SWEEP.family, "gemm": test_tiles.SWEEP.family, "gemm_ws": test_gemm_ws.SWEEP.family}


def _one_body(families, record):
    family = families[record["family"]]
    return family.portable(family.problem(record["problem"]), family.config(record["config"]))


def test_the_one_body_is_what_every_dialect_s_validate_accepts(families):
    fa = families["flash_attention"]
    problem = fa.problem({"batch": 2, "heads": 16, "seq_q": 8192, "seq_k": 8192, "dim": 128, "dtype": "bfloat16",
                          "causal": False, "kv_heads": None, "out_dtype": None, "accum_dtype": "float32"})
    words = {c.config_id: fa.portable(problem, c) for c in fa.configs_for("cuda")}
    assert words["bm128-bn128-t256-auto-s1"] is True  # the shared body lowers for Ascend too
    assert words["bm128-bn128-t256-auto-s1-fm"] is False  # fast math: an NVIDIA build choice the Ascend backend refuses
    assert words["bm128-bn192-t384-auto-s2-hopper_ws-fm"] is False  # the hand Hopper kernel
    gemm_ws = families["gemm_ws"]  # a body for one dialect only
    assert {gemm_ws.portable(p, c) for p in gemm_ws.problems[:1] for c in gemm_ws.configs_for("cuda")} == {False}
    assert fa.portable(problem, None) is None  # a vendor item is no config


def _records(families, name):
    doc = json.loads(gzip.decompress((RUNS / name).read_bytes()))
    records = [b["extra_info"]["tlbench"] for b in doc["benchmarks"]]
    for record in records:
        if record.get("config") is not None:
            record[PORTABLE_KEY] = _one_body(families, record)
    return records


def _median(records, case_suffix):
    (record,) = [r for r in records if r["case_id"].endswith(case_suffix)]
    return record["summary"]["median"]


def test_the_fa_line_names_each_side_s_fastest_config_and_what_the_one_body_pays(families):
    records = _records(families, "fa-tax.json.gz")
    lines = [ln for ln in summary_lines(records) if ln.startswith("portability tax")]
    assert len(lines) == 2, lines  # non-causal and causal
    body = _median(records, "s8192-d128-bf16-bm128-bn128-t256-auto-s1")  # the fastest one-body config (no fast math)
    hand = _median(records, "s8192-d128-bf16-bm128-bn192-t384-auto-s2-hopper_ws-fm")
    line = next(ln for ln in lines if "causal" not in ln)
    assert "one body bm128-bn128-t256-auto-s1 " in line and "target-specific bm128-bn192-t384-auto-s2-hopper_ws-fm " in line
    assert f"the one body pays {body / hand - 1:+.1%}" in line


def test_the_gemm_line_pairs_the_one_body_s_block_with_the_hand_kernel_s_by_their_vendor_s_work(families):
    records = _records(families, "gemm-tax.json.gz")
    lines = [ln for ln in summary_lines(records) if ln.startswith("portability tax")]
    assert [ln.split(":")[0] for ln in lines] == ["portability tax nvidia · gemm-4096x4096x4096-f16",
                                                 "portability tax nvidia · gemm-8192x8192x8192-f16"]
    assert all("target-specific block_M128-block_N256" in ln for ln in lines)  # the 8192 hand kernel, not the 4096 one
    assert "persistent132-lazy_store1-store_slices4 1.451 ms" in lines[1]


def _timed(backend, case_id, summary, one_body):
    """A complete timed record of ``backend``'s device item ``case_id``."""
    return Record.of({"backend": backend, "kind": "device", "case_id": case_id, "summary": summary,
                      PORTABLE_KEY: one_body})


def test_records_without_the_word_or_a_time_make_no_line():
    timed = _timed("b", "p-a", {"median": 1e-3}, True)
    assert tax_lines([TaxGroup("b", "p", [timed, _timed("b", "p-b", {}, False)], [])]) == []
    assert tax_lines([TaxGroup("b", "p", [_timed("b", "p-a", {"median": 1e-3}, None)], [])]) == []
    # two blocks of another backend or other work are never paired
    hand = TaxGroup("c", "q", [_timed("c", "q-h", {"median": 1e-3}, False)], [])
    assert tax_lines([TaxGroup("b", "p", [timed], []), hand]) == []
