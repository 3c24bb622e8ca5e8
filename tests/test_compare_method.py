"""Compare refuses two runs whose paired items were measured differently (another timer, another
L2 flush), on the real H200 run (tests/fixtures/h200-stages-smoke.json: CUPTI after a write flush)
and the throwaway sleep backend's run (no traits of its own: its generic record fields).

- same method: compares as before, no mismatch;
- another timer (a record's ``method``) or another L2 flush (``l2_flush_bytes``, and the note a
  record timed after a read flush carries) is refused with one line naming the backend, the
  items, both methods and what to do; ``tlbench compare`` exits 2 with that line;
- ``allow_method_mismatch`` / ``--allow-method-mismatch`` compares, and every report says so;
- an older file that does not record a field: that field is unknown, not a mismatch, and the
  comparison's notes say it was not checked;
- the nightly gate (the same machinery) calls such a baseline unusable;
- compile items keep their own method (round counts, parallel jobs) out of this check.
"""

import copy
import json
from pathlib import Path

import pytest

from tlbench.harness.cli import main
from tlbench.harness.results.compare.compare import compare_runs
from tlbench.harness.results.compare.comparison import CompareError
from tlbench.harness.results.compare.judgement import Thresholds, Verdict
from tlbench.harness.results.nightly.nightly import gate_against_baselines
from tlbench.harness.results.report import report_cells
from tlbench.harness.results.files.store import load_results, parse_results

FIXTURES = Path(__file__).parent / "fixtures"
H200 = FIXTURES / "h200-stages-smoke.json"
SLEEPY = FIXTURES / "compare" / "sleepy-base.json"
COMPILE_BASE, COMPILE_AA = FIXTURES / "compare" / "compile-cpu-base.json", FIXTURES / "compare" / "compile-cpu-aa.json"
READ_NOTE = "L2 flush: read 125829120 bytes (clean lines; --tlbench-nvidia-l2-flush=read)"  # as a read-flushed record says


def _edited(path, edit, name="new.json"):
    """The run at ``path`` with ``edit(record)`` applied to each timed record."""
    doc = json.loads(Path(path).read_text())
    for bench in doc["benchmarks"]:
        edit(bench["extra_info"]["tlbench"])
    return doc


def _results(doc, name="new.json"):
    return parse_results(copy.deepcopy(doc), name)


def _events(rec):
    rec["method"] = "cuda-event"
    rec["notes"] = rec.get("notes", []) + ["CUDA events around each call (chosen: --tlbench-nvidia-timer=events)"]


def _read_flush(rec):
    rec["notes"] = rec.get("notes", []) + [READ_NOTE]


def _no_flush(rec):
    rec["l2_flush_bytes"] = 0


def test_same_method_compares_as_before():
    base = load_results(H200)
    cmp = compare_runs(base, _results(_edited(H200, lambda rec: None)))
    assert cmp.method_mismatches == ()
    assert not cmp.has_regression and cmp.compared == 15
    assert not any("MISMATCH" in line for line in report_cells.testbed_lines(cmp))


def test_another_timer_is_refused_naming_backend_items_methods_and_what_to_do():
    with pytest.raises(CompareError) as refused:
        compare_runs(load_results(H200), _results(_edited(H200, _events), "events.json"))
    words = str(refused.value)
    assert "\n" not in words
    assert words.startswith("measurement method differs for nvidia in 15 device items (")
    assert "gemm-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s0" in words
    assert "timer cupti-kernel-timestamps -> cuda-event" in words
    assert "L2 flush" not in words  # the flush did not change
    assert "--tlbench-nvidia-timer" in words and "--allow-method-mismatch" in words


@pytest.mark.parametrize("edit,change", [(_read_flush, "L2 flush write -> read"), (_no_flush, "L2 flush write -> off")])
def test_another_l2_flush_is_refused(edit, change):
    with pytest.raises(CompareError, match=r"measurement method differs for nvidia in 15 device items") as refused:
        compare_runs(load_results(H200), _results(_edited(H200, edit), "read.json"))
    assert change in str(refused.value) and "timer" not in str(refused.value).split(":", 1)[1].split(";")[0]
    assert "--tlbench-nvidia-l2-flush" in str(refused.value)


def test_one_item_measured_differently_is_refused_and_named():
    target = "gemm-1024x1024x1024-f16-bm128-bn256-bk64-t256-auto-s3"
    doc = _edited(H200, lambda rec: _events(rec) if rec["case_id"] == target else None)
    with pytest.raises(CompareError, match=rf"for nvidia in 1 device item \({target}\): timer cupti-kernel-timestamps -> cuda-event"):
        compare_runs(load_results(H200), _results(doc))


def test_a_backend_without_method_traits_is_judged_on_its_generic_record_fields():
    flushed = _edited(SLEEPY, lambda rec: rec.update(l2_flush_bytes=4096))
    with pytest.raises(CompareError, match=r"measurement method differs for sleepy in 8 device items .*: l2_flush_bytes 0 -> 4096; "):
        compare_runs(load_results(SLEEPY), _results(flushed))
    timed_otherwise = _edited(SLEEPY, lambda rec: rec.update(method="perf_counter around a busy loop"))
    with pytest.raises(CompareError, match=r"method perf_counter around time\.sleep -> perf_counter around a busy loop"):
        compare_runs(load_results(SLEEPY), _results(timed_otherwise))


def test_override_compares_and_every_report_says_the_methods_differ():
    cmp = compare_runs(load_results(H200), _results(_edited(H200, _events)), allow_method_mismatch=True)
    (mismatch,) = cmp.method_mismatches
    assert mismatch.backend == "nvidia" and len(mismatch.items) == 15
    assert dict(mismatch.base) == {"timer": "cupti-kernel-timestamps", "L2 flush": "write"}
    assert dict(mismatch.new) == {"timer": "cuda-event", "L2 flush": "write"}
    lines = [line for line in report_cells.testbed_lines(cmp) if line.startswith("METHOD MISMATCH")]
    assert lines == ["METHOD MISMATCH nvidia in 15 device items: timer cupti-kernel-timestamps -> cuda-event "
                     "(compared anyway, on request)"]
    assert all(i.verdict is not Verdict.FAILED for i in cmp.items) and cmp.compared == 15


def test_cli_exits_2_with_one_line_then_compares_on_request(capsys, tmp_path):
    other = tmp_path / "read-flush.json"
    other.write_text(json.dumps(_edited(H200, _read_flush)))
    assert main(["compare", str(H200), str(other)]) == 2
    out, err = capsys.readouterr()
    (line,) = err.strip().splitlines()
    assert "measurement method differs for nvidia" in line and "L2 flush write -> read" in line and "Traceback" not in err
    assert main(["compare", str(H200), str(other), "--allow-method-mismatch"]) == 0
    out, _ = capsys.readouterr()
    assert "METHOD MISMATCH nvidia in 15 device items: L2 flush write -> read (compared anyway, on request)" in out
    assert main(["compare", str(H200), str(other), "--allow-method-mismatch", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    (mismatch,) = document["method_mismatches"]
    assert mismatch["backend"] == "nvidia" and mismatch["items"] == 15
    assert mismatch["base"]["L2 flush"] == "write" and mismatch["new"]["L2 flush"] == "read"


def test_an_older_file_without_the_fields_still_compares_and_says_what_was_not_checked():
    def older(rec):
        for field in ("l2_flush_bytes", "notes"):
            rec.pop(field, None)

    old = _results(_edited(H200, older), "old.json")
    cmp = compare_runs(old, _results(_edited(H200, _read_flush), "read.json"))
    assert cmp.method_mismatches == () and cmp.compared == 15
    assert "nvidia: L2 flush not recorded in old.json for 15 device items (an older results file): not checked" in cmp.notes
    assert any("not checked" in line for line in report_cells.testbed_lines(cmp))


def test_an_older_file_without_a_method_still_compares():
    old = _results(_edited(SLEEPY, lambda rec: rec.pop("method")), "old.json")
    cmp = compare_runs(old, load_results(SLEEPY))
    assert cmp.method_mismatches == () and not cmp.has_regression
    assert "sleepy: method not recorded in old.json for 8 device items (an older results file): not checked" in cmp.notes


def test_the_nightly_gate_calls_a_baseline_of_another_method_unusable(tmp_path):
    baselines, night = tmp_path / "baselines", tmp_path / "night"
    baselines.mkdir()
    night.mkdir()
    (baselines / "nvidia-h200.json").write_text(H200.read_text())
    (night / "nvidia-h200.json").write_text(json.dumps(_edited(H200, _events)))
    (gate,) = gate_against_baselines({"nvidia": night / "nvidia-h200.json"}, baselines, Thresholds())
    assert gate.unusable and gate.comparison is None
    assert "measurement method differs for nvidia" in gate.problem and "cuda-event" in gate.problem


def test_compile_items_keep_their_own_method():
    """A compile item's method says how many rounds and how many items ran at a time; the compile
    rules judge that (harness/results/compare/pairing.py), so it is not refused here."""
    parallel = _edited(COMPILE_AA, lambda rec: rec.update(method=rec["method"] + "; 4 compile items timed at a time, one per process"))
    cmp = compare_runs(load_results(COMPILE_BASE), _results(parallel))
    assert cmp.compared == 14 and not cmp.counts()[Verdict.FAILED]


def test_the_note_read_back_is_the_note_the_read_flush_writes():
    from tlbench.backends.gpu.flush_choice import flush_mode_of, read_flush_note

    assert read_flush_note(125829120) == READ_NOTE
    assert [flush_mode_of(b, n) for b, n in ((0, []), (64, []), (64, [READ_NOTE]), (None, []), (64, None))] == [
        "off", "write", "read", None, None]
