"""The JSON Schemas shipped in harness/results/schema/ describe real files: every committed real
results file validates against results.schema.json, a real ``tlbench compare --json`` output
against compare-output.schema.json (with the verdict words of the verdict table), and a broken field
is caught (the validator can fail)."""

from __future__ import annotations

import copy
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from json_schema_subset import errors

from tlbench.harness.results.report.json_output import compare_output_schema
from tlbench.harness.results.compare.verdict_words import Verdict

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "harness" / "results" / "schema"
REAL_FILES = [
    "tests/fixtures/compare/compile-cpu2/b1.json",
    "tests/fixtures/compare/compile-cpu2/b2.json",
    "tests/fixtures/compare/compile-cpu-base.json",
    "tests/fixtures/ascend-stages.json",
    "tests/fixtures/h200-stages-smoke.json",
    "tests/fixtures/compare/h200-aa2/aa3.json",
    "tests/fixtures/compare/compile-loaded/quiet.json",
    "tests/fixtures/compare/compile-loaded/loaded.json",
    "results/h200-gemm-stages/stages.json",
    "results/h200-quick-and-full-scope/full.json.gz",
]


def _load(path: Path):
    raw = path.read_bytes()
    return json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)


def _schema(name: str) -> dict:
    return json.loads((SCHEMAS / name).read_text())


@pytest.mark.parametrize("name", REAL_FILES)
def test_real_results_files_validate(name):
    path = ROOT / name
    assert path.exists(), f"{name} is committed and listed here: update the list if it moved"
    assert errors(_load(path), _schema("results.schema.json")) == []


def test_a_broken_field_is_caught():
    doc = _load(ROOT / REAL_FILES[0])
    broken = copy.deepcopy(doc)
    broken["benchmarks"][0]["extra_info"]["tlbench"]["machine_probe_cpu_s"] = [0.0, "x"]
    broken["tlbench"]["partial"] = "yes"
    found = errors(broken, _schema("results.schema.json"))
    assert any("machine_probe_cpu_s[0]" in e for e in found) and any("machine_probe_cpu_s[1]" in e for e in found)
    assert any("partial" in e for e in found)


def test_compare_json_output_validates(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "tlbench.harness.cli", "compare", REAL_FILES[0], REAL_FILES[1], "--json"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert errors(out, compare_output_schema()) == []
    assert out["exit_code"] == 0 and out["exit_reason"] == "no regression" and len(out["items"]) == 28


def test_the_schemas_ship_with_the_package():
    text = (ROOT / "pyproject.toml").read_text()
    assert '"tlbench.harness.results" = ["schema/*.json"]' in text


def test_the_compare_schema_takes_its_verdict_words_from_the_table():
    schema = compare_output_schema()
    assert sorted(schema["$defs"]["verdict"]["enum"]) == sorted(v.value for v in Verdict)
    item = {"suite": "s", "backend": "b", "kind": "compile", "case_id": "c", "verdict": "SLOWISH", "gates": True,
            "regression": False, "reason": ""}
    out = {"tlbench_output": "compare", "output_version": 1, "exit_code": 0, "exit_reason": "", "counts": {},
           "base": {"path": "a", "partial": None}, "new": {"path": "b", "partial": None}, "items": [item], "shifts": []}
    assert any("SLOWISH" in e for e in errors(out, schema))
    assert errors({**out, "items": [{**item, "verdict": "SLOWER"}]}, schema) == []
