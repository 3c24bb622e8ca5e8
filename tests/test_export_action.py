"""``tlbench export --format github-action-benchmark``: files the action itself accepts.

``action_extract`` below reproduces, as faithfully as Python allows, what
benchmark-action/github-action-benchmark does with a ``customBiggerIsBetter`` /
``customSmallerIsBetter`` file (src/extract.ts at commit c38cce98215cf75e178ecd5a0c1a1ab215e93006,
``extractCustomBenchmarkResult`` and the end of ``extractResult``; zod ^4.1.5 in its
package.json):
- ``JSON.parse(output)`` (strict JSON: no NaN or Infinity);
- ``z.array(z.object({name: z.coerce.string(), value: z.coerce.number(), range:
  z.coerce.string().optional(), unit: z.coerce.string(), extra: z.coerce.string().optional()}))``:
  an array; each entry an object; ``value`` coerced with ``Number()`` must be a finite number
  (zod 4 rejects NaN and infinities); strings coerce anything;
- then ``if (benches.length === 0) throw new Error('No benchmark result was found in ...')``.
Its alert logic pairs an entry with the previous night's by ``name`` (src/write.ts,
``prevSuite.benches.find((b) => b.name === current.name)``), so a repeated name is judged
against the wrong entry: names must be unique in a file.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tlbench.harness.cli import main

ROOT = Path(__file__).resolve().parents[1]
COMPILE_ONLY = ROOT / "tests" / "fixtures" / "compare" / "compile-cpu2" / "b1.json"  # the CPU night: both backends, compile only
STAGES = ROOT / "results" / "h200-gemm-stages" / "stages.json"
TWO_GPU = ROOT / "results" / "h200-two-gpu-spread" / "one-process" / "2gpu.json.gz"  # a vendor copy per GPU
PARTIAL = ROOT / "results" / "cpu-shards" / "partial.json.gz"  # a merge with shard 2 missing
FAULTY = ROOT / "results" / "h200-fault-isolation" / "faulty.json"  # 2 items failed (injected device faults)


class ActionRejects(Exception):
    pass


def _js_number(value) -> float:
    """JavaScript ``Number(value)`` for what JSON can hold."""
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return 0.0
        try:
            return float(text) if text.lower() not in ("nan", "inf", "-inf", "infinity", "-infinity") else math.nan
        except ValueError:
            return math.nan
    if isinstance(value, list):
        return 0.0 if not value else (_js_number(value[0]) if len(value) == 1 else math.nan)
    return math.nan  # an object


def action_extract(text: str) -> list[dict]:
    def strict(constant):
        raise ActionRejects(f"JSON.parse: {constant} is not JSON")

    try:
        data = json.loads(text, parse_constant=strict)
    except ValueError as exc:
        raise ActionRejects(f"must be JSON file containing an array of entries in BenchmarkResult format: {exc}") from None
    if not isinstance(data, list):
        raise ActionRejects("must be JSON file containing an array of entries in BenchmarkResult format: expected array")
    benches = []
    for entry in data:
        if not isinstance(entry, dict):
            raise ActionRejects("expected object")
        for key in ("name", "unit"):
            if key not in entry:  # z.coerce.string() of undefined is "undefined": accepted, but a name of "undefined" is no name
                raise ActionRejects(f"{key} missing")
        value = _js_number(entry.get("value"))
        if not math.isfinite(value):
            raise ActionRejects(f"value {entry.get('value')!r} is not a finite number")
        benches.append({"name": str(entry["name"]), "value": value, "unit": str(entry["unit"]),
                        **{k: str(entry[k]) for k in ("range", "extra") if entry.get(k) is not None}})
    if not benches:
        raise ActionRejects("No benchmark result was found")
    return benches


def test_the_reproduced_extractor_rejects_what_the_action_rejects():
    with pytest.raises(ActionRejects, match="No benchmark result was found"):
        action_extract("[]\n")  # what a compile-only run used to write as its TFLOP/s file
    with pytest.raises(ActionRejects):
        action_extract('[{"name": "a", "unit": "ms", "value": NaN}]')
    with pytest.raises(ActionRejects):
        action_extract('{"name": "a"}')
    assert action_extract('[{"name": "a", "unit": "ms", "value": "1.5"}]')[0]["value"] == 1.5


def test_a_compile_only_run_writes_only_what_the_action_accepts_and_says_so(tmp_path, capsys):
    assert main(["export", "--format", "github-action-benchmark", str(COMPILE_ONLY), "--out-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert not (tmp_path / "tflops-bigger-is-better.json").exists()
    assert "not written: " + str(tmp_path / "tflops-bigger-is-better.json") in out and "No benchmark result was found" in out
    benches = action_extract((tmp_path / "time-smaller-is-better.json").read_text())
    assert len(benches) == 28 and len({b["name"] for b in benches}) == 28 and {b["unit"] for b in benches} == {"s"}


def test_a_device_run_writes_both_files_and_both_pass(tmp_path, capsys):
    assert main(["export", "--format", "github-action-benchmark", str(STAGES), "--out-dir", str(tmp_path)]) == 0
    for name in ("tflops-bigger-is-better.json", "time-smaller-is-better.json"):
        benches = action_extract((tmp_path / name).read_text())
        assert len({b["name"] for b in benches}) == len(benches)


def test_names_are_unique_per_item_and_gpu(tmp_path, capsys):
    assert main(["export", "--format", "github-action-benchmark", str(TWO_GPU), "--out-dir", str(tmp_path)]) == 0
    benches = action_extract((tmp_path / "time-smaller-is-better.json").read_text())
    names = [b["name"] for b in benches]
    assert len(set(names)) == len(names)
    vendors = [n for n in names if n.split(" [")[0].endswith("-vendor")]
    assert vendors and all(" [gpu " in n for n in vendors)  # one vendor copy per GPU, each named by its GPU
    assert not any(" [gpu " in n for n in names if not n.split(" [")[0].endswith("-vendor"))  # a kernel runs once: its own name


@pytest.mark.parametrize("run, words", [(PARTIAL, "a PARTIAL run"), (FAULTY, "2 failed item(s)")])
def test_partial_and_failed_runs_are_refused_unless_allowed(tmp_path, capsys, run, words):
    assert main(["export", "--format", "github-action-benchmark", str(run), "--out-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0] and "--allow-partial" in err[0]
    assert not any(tmp_path.iterdir())  # nothing written
    assert main(["export", "--format", "github-action-benchmark", str(run), "--out-dir", str(tmp_path), "--allow-partial"]) == 0
    assert f"note: exported what the run holds; left out: {words}" in capsys.readouterr().out
    action_extract((tmp_path / "time-smaller-is-better.json").read_text())


def _vendor_twice(tmp_path: Path, uuid: bool) -> tuple[Path, str]:
    """The real stages run with its vendor item measured a second time (another copy of its
    record after it) - as a backend spread over two devices writes it when its devices have
    no uuid (harness/measure/device_phase.py sets ``device_uuid`` only where the session knows
    one).  ``uuid``: the second copy names another device."""
    doc = json.loads(STAGES.read_text())
    vendor = next(b for b in doc["benchmarks"] if b["extra_info"]["tlbench"].get("config") is None)
    copy = json.loads(json.dumps(vendor))
    rec = copy["extra_info"]["tlbench"]
    if uuid:
        rec["device_uuid"] = "GPU-00000000-second-device"
    else:
        vendor["extra_info"]["tlbench"].pop("device_uuid", None)
        rec.pop("device_uuid", None)
    doc["benchmarks"].append(copy)
    run = tmp_path / "run.json"
    run.write_text(json.dumps(doc))
    return run, rec["case_id"]


def test_a_run_that_compare_refuses_for_an_item_twice_is_not_exported(tmp_path, capsys):
    run, case_id = _vendor_twice(tmp_path, uuid=False)
    out = tmp_path / "out"
    assert main(["compare", str(run), str(run)]) == 2
    refused = capsys.readouterr().err
    assert "appears twice" in refused
    assert main(["export", "--format", "github-action-benchmark", str(run), "--out-dir", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and case_id in err[0] and "appears twice" in err[0] and "compare refuses" in err[0], err
    assert not out.exists()  # nothing written: no [#1] / [#2] entries the action would pair wrongly
    placed, _ = _vendor_twice(tmp_path, uuid=True)  # a copy per named device: compare reads it, export names each
    assert main(["compare", str(placed), str(placed)]) == 0
    assert main(["export", "--format", "github-action-benchmark", str(placed), "--out-dir", str(out)]) == 0
    names = [b["name"] for b in action_extract((out / "time-smaller-is-better.json").read_text())]
    assert len(set(names)) == len(names) and not any("[#" in n for n in names)
