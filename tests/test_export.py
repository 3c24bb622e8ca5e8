"""github-action-benchmark export: TFLOP/s bigger-is-better and time smaller-is-better."""

import json
from pathlib import Path

import pytest

from tlbench.harness.cli import main
from tlbench.harness.results.files.store import load_results

ROOT = Path(__file__).resolve().parents[1]
STAGES = ROOT / "results" / "h200-gemm-stages" / "stages.json"


def test_export_writes_both_custom_files_from_a_real_run(tmp_path, capsys):
    assert main(["export", "--format", "github-action-benchmark", str(STAGES), "--out-dir", str(tmp_path)]) == 0
    assert "customBiggerIsBetter" in capsys.readouterr().out
    bigger = json.loads((tmp_path / "tflops-bigger-is-better.json").read_text())
    smaller = json.loads((tmp_path / "time-smaller-is-better.json").read_text())
    results = load_results(STAGES)
    device = [r for r in results.records if r["kind"] == "device"]
    assert len(smaller) == len(results.records) and len(bigger) == len(device)
    names = [e["name"] for e in bigger]
    assert len(set(names)) == len(names)
    rec = next(r for r in device if r["case_id"].endswith("bm128-bn256-bk64-t256-auto-s3"))
    entry = next(e for e in bigger if e["name"] == f"stages/device-nvidia-{rec['case_id']}")
    assert entry["unit"] == "TFLOP/s" and entry["value"] == pytest.approx(rec["throughput"]["tflops"])
    timed = next(e for e in smaller if e["name"] == entry["name"])
    assert timed["unit"] == "ms" and timed["value"] == pytest.approx(rec["summary"]["median"] * 1e3)
    assert set(entry) == {"name", "unit", "value", "range", "extra"}


def test_export_of_a_non_results_file_is_one_line(tmp_path, capsys):
    assert main(["export", "--format", "github-action-benchmark", str(ROOT / "results" / "best_configs.json"),
                 "--out-dir", str(tmp_path)]) == 2
    assert "not pytest-benchmark output" in capsys.readouterr().err
