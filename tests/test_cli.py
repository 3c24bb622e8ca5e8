"""The ``tlbench`` console script: exit codes, one-line errors, outputs it writes.

Exit codes: 0 no regression, 1 regression, 2 unusable input (one line on stderr, no
traceback).  Runs ``harness.cli.main`` in-process, on the real-run fixtures.
"""

import copy
import gzip
import json
import sys
from pathlib import Path

import pytest

from tlbench.harness.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
COMPARE = FIXTURES / "compare"
H200 = FIXTURES / "h200-stages-smoke.json"
ASCEND_A, ASCEND_B = COMPARE / "ascend-compile-a.json", COMPARE / "ascend-compile-b.json"
SLEEPY, SLEEPY_AA, SLEEPY_SLOW = COMPARE / "sleepy-base.json", COMPARE / "sleepy-aa.json", COMPARE / "sleepy-slow10.json"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(err):
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def _write(tmp_path, name, doc):
    path = tmp_path / name
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return path


# -- compare BASE NEW ---------------------------------------------------------------------------


def test_aa_compile_runs_exit_0(capsys):
    code, out, err = _run(capsys, "compare", COMPARE / "compile-cpu-base.json", COMPARE / "compile-cpu-aa.json")
    assert code == 0, out + err
    summary = out.strip().splitlines()[-1]
    assert summary.startswith("no regression;") and "SLOWER" not in summary, summary
    assert "SLOWER" not in out.split("per item")[1]  # no item row says SLOWER


def test_aa_sleep_runs_exit_0(capsys):
    code, out, _ = _run(capsys, "compare", SLEEPY, SLEEPY_AA)
    assert code == 0 and "no regression" in out


def test_injected_slowdown_exit_1_with_markdown_and_png(capsys, tmp_path):
    md, png = tmp_path / "cmp.md", tmp_path / "cmp.png"
    code, out, _ = _run(capsys, "compare", SLEEPY, SLEEPY_SLOW, "--markdown", md, "--png", png)
    assert code == 1
    assert "7 regression(s)" in out and "ratio to vendor" in out
    text = md.read_text()
    assert ":x:" in text and text.count("| SLOWER |") == 7 and "ratio to vendor" in text
    assert png.read_bytes().startswith(PNG_MAGIC)


def test_min_effect_options(capsys):
    code, out, _ = _run(capsys, "compare", SLEEPY, SLEEPY_SLOW, "--min-effect", "0.5")
    assert code == 0 and ">= 50%" in out
    code, out, _ = _run(capsys, "compare", SLEEPY, SLEEPY_SLOW, "--min-effect-for", "sleepy=0.5")
    assert code == 0 and "sleepy: 50%" in out


def test_testbed_mismatch_exit_2_unless_allowed(capsys, tmp_path):
    doc = json.loads(H200.read_text())
    doc["machine_info"]["tlbench"]["backends"]["nvidia"]["accelerator"] = "NVIDIA H100 80GB HBM3"
    other = _write(tmp_path, "h100.json", doc)
    code, _, err = _run(capsys, "compare", H200, other)
    assert code == 2
    assert "testbed differs for nvidia: accelerator NVIDIA H200 -> NVIDIA H100 80GB HBM3" in _one_line_error(err)
    code, out, _ = _run(capsys, "compare", H200, other, "--allow-testbed-mismatch")
    assert code == 0 and "TESTBED MISMATCH nvidia" in out


# -- each bad input: exit 2 and one line ------------------------------------------------------------


def _schema_mismatch(tmp_path):
    doc = json.loads(SLEEPY.read_text())
    for bench in doc["benchmarks"]:
        bench["extra_info"]["tlbench"]["schema_version"] = 99
    doc["tlbench"]["schema_version"] = 99
    doc["machine_info"]["tlbench"]["schema_version"] = 99
    return _write(tmp_path, "future.json", doc)


def _plain_pytest_benchmark(tmp_path):
    doc = json.loads(SLEEPY.read_text())
    for bench in doc["benchmarks"]:
        bench["extra_info"] = {}
    doc.pop("tlbench")
    return _write(tmp_path, "plain.json", doc)


BAD_INPUTS = {
    "missing file": (lambda tmp: tmp / "nope.json", "nope.json: no such file"),
    "malformed JSON": (lambda tmp: _write(tmp, "broken.json", '{"benchmarks": [1, 2'), "broken.json: not valid JSON ("),
    "empty file": (lambda tmp: _write(tmp, "empty.json", ""), "empty.json: empty file"),
    "not pytest-benchmark output": (
        lambda tmp: _write(tmp, "other.json", {"results": []}),
        "other.json: not pytest-benchmark output (no 'benchmarks' list)",
    ),
    "pytest-benchmark without tlbench": (
        _plain_pytest_benchmark,
        "plain.json: pytest-benchmark output without tlbench records",
    ),
    "schema_version mismatch": (_schema_mismatch, "future.json: tlbench schema_version 99"),
    "truncated gzip": (lambda tmp: _write_bytes(tmp, "cut.json.gz", gzip.compress(SLEEPY.read_bytes())[:200]), "cut.json.gz: cannot be read ("),
}


def _write_bytes(tmp_path, name, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_a_gzipped_results_file_reads_as_the_json_inside(capsys, tmp_path):
    packed = _write_bytes(tmp_path, "sleepy.json.gz", gzip.compress(SLEEPY.read_bytes()))
    code, out_gz, _ = _run(capsys, "report", packed)
    code_plain, out_plain, _ = _run(capsys, "report", SLEEPY)
    assert code == code_plain == 0
    assert out_gz.replace(str(packed), "F") == out_plain.replace(str(SLEEPY), "F")
    code, out, _ = _run(capsys, "compare", SLEEPY, packed)
    assert code == 0 and "SAME" in out


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_exit_2_with_one_line(capsys, tmp_path, case):
    make, message = BAD_INPUTS[case]
    bad = make(tmp_path)
    for argv in (("compare", SLEEPY, bad), ("compare", bad, SLEEPY), ("report", bad)):
        code, _, err = _run(capsys, *argv)
        assert code == 2, (argv, err)
        line = _one_line_error(err)
        assert line.startswith("tlbench: ") and message in line, line


def test_different_backends_exit_2(capsys):
    code, _, err = _run(capsys, "compare", ASCEND_A, H200)
    assert code == 2
    assert "different backends: ascend-compile-a.json has ascend, h200-stages-smoke.json has nvidia" in _one_line_error(err)


def test_compare_needs_exactly_two_files(capsys):
    code, _, err = _run(capsys, "compare", SLEEPY)
    assert code == 2 and "compare takes BASE.json NEW.json" in _one_line_error(err)


def test_nothing_in_common_exit_2(capsys, tmp_path):
    doc = json.loads(SLEEPY.read_text())
    for bench in doc["benchmarks"]:
        bench["extra_info"]["tlbench"]["case_id"] += "-renamed"
    other = _write(tmp_path, "renamed.json", doc)
    code, _, err = _run(capsys, "compare", SLEEPY, other)
    assert code == 2 and "nothing to compare" in _one_line_error(err)


@pytest.mark.parametrize(
    "argv,expected",
    [
        (["nosuch"], "invalid choice: 'nosuch' (choose from compare, report, baseline, nightly"),  # more may follow
        (["compare", "a", "b", "--alpha", "2"], "alpha '2' must be between 0 and 1"),
        (["compare", "a", "b", "--min-effect", "five"], "'five' is not a number"),
        (["compare", "a", "b", "--min-effect-for", "stages"], "expected SUITE=FRACTION"),
        (["baseline", "delete", "x.json"], "invalid choice: 'delete' (choose from update)"),
    ],
)
def test_bad_arguments_list_valid_choices(capsys, argv, expected):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert expected in err.replace("'compare', 'report', 'baseline', 'nightly', 'recover'", "compare, report, baseline, nightly, recover").replace(
        "'update'", "update"
    )


# -- across backends ----------------------------------------------------------------------------


def test_across_backends_prints_the_stage_table_and_writes_png(capsys, tmp_path):
    png, md = tmp_path / "across.png", tmp_path / "across.md"
    code, out, err = _run(capsys, "compare", "--across-backends", H200, ASCEND_A, "--png", png, "--markdown", md)
    assert code == 0, err
    assert "nvidia: device time" in out and "ascend: modeled cycles/core" in out
    assert "MODEL, not a measurement" in out
    assert "15,680 cyc (model)" in out and "27.47 us" in out  # s1 of the 128x128x32 tile on each side
    assert "ascend best on gemm-1024x1024x1024-f16: 128x128x32 t128 auto-s3" in out
    assert "nvidia best on gemm-1024x1024x1024-f16: 128x128x32 t128 auto-s4" in out
    assert png.read_bytes().startswith(PNG_MAGIC) and png.stat().st_size > 20_000
    assert "| problem | tile | loop |" in md.read_text()


def test_across_backends_with_one_backend_exit_2(capsys):
    code, _, err = _run(capsys, "compare", "--across-backends", H200)
    assert code == 2 and "needs two backends" in _one_line_error(err)


def test_across_backends_with_one_backend_in_two_files_exit_2(capsys):
    code, _, err = _run(capsys, "compare", "--across-backends", ASCEND_A, ASCEND_B)
    assert code == 2 and "backend ascend appears in both" in _one_line_error(err)
    assert "one run per backend" in err and "internal error" not in err


# -- report -------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [H200, ASCEND_A])
def test_report_single_run(capsys, tmp_path, path):
    md, png = tmp_path / "run.md", tmp_path / "run.png"
    code, out, err = _run(capsys, "report", path, "--markdown", md, "--png", png)
    assert code == 0, err
    assert "14 timed" in out or "15 timed" in out
    # the id is split: its problem heads a group, its config is the row (greppable either way)
    assert "gemm-1024x1024x1024-f16" in out and "\n  bm128-bn256-bk64-t256-auto-s3 " in out
    assert "| gemm-1024x1024x1024-f16 | bm128-bn256-bk64-t256-auto-s3 |" in md.read_text()  # markdown: problem and config columns
    assert md.read_text().startswith("### tlbench report")
    assert png.read_bytes().startswith(PNG_MAGIC)


def test_report_stages_delegates_to_stage_report(capsys, monkeypatch, tmp_path):
    import types

    calls = []
    fake = types.ModuleType("tlbench.harness.analysis.stage_report")
    fake.main = lambda path, png=None, markdown=None, as_json=False: calls.append((path, png, markdown)) or 3
    monkeypatch.setitem(sys.modules, "tlbench.harness.analysis.stage_report", fake)
    monkeypatch.delattr("tlbench.harness.analysis.stage_report", raising=False)
    code, _, _ = _run(capsys, "report", H200, "--stages", "--png", tmp_path / "s.png", "--markdown", tmp_path / "s.md")
    assert code == 3 and calls == [(str(H200), str(tmp_path / "s.png"), str(tmp_path / "s.md"))]


def test_report_stages_writes_the_png_and_the_markdown_it_was_asked_for(capsys, tmp_path):
    # it used to print the report and drop both outputs without a word
    png, md = tmp_path / "out.png", tmp_path / "out.md"
    code, out, err = _run(capsys, "report", "--stages", H200, "--png", png, "--markdown", md)
    assert code == 0, err
    assert png.read_bytes().startswith(PNG_MAGIC)
    text = md.read_text()
    assert text.startswith("### tlbench stage report") and "recommended num_stages" in text
    assert f"wrote {png}" in out and f"wrote {md}" in out
    beside = sorted(p.name for p in tmp_path.glob("out-*-stages.png"))
    assert beside and all(p.startswith("out-nvidia-") for p in beside)


def test_report_stages_without_the_module_exit_2(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tlbench.harness.analysis.stage_report", None)  # import raises ImportError
    monkeypatch.delattr("tlbench.harness.analysis.stage_report", raising=False)
    code, _, err = _run(capsys, "report", H200, "--stages")
    assert code == 2 and "report --stages is not available here" in _one_line_error(err)


# -- baseline update ----------------------------------------------------------------------------


def test_baseline_update_writes_one_file_per_backend(capsys, tmp_path):
    both = json.loads(ASCEND_A.read_text())
    nvidia = json.loads(H200.read_text())
    both["benchmarks"] += nvidia["benchmarks"]
    both["machine_info"]["tlbench"]["backends"].update(nvidia["machine_info"]["tlbench"]["backends"])
    both["tlbench"]["backends"] = ["ascend", "nvidia"]
    run = _write(tmp_path, "both.json", both)
    baselines = tmp_path / "baselines"
    code, out, err = _run(capsys, "baseline", "update", run, "--out-dir", baselines)
    assert code == 0, err
    assert sorted(p.name for p in baselines.iterdir()) == ["ascend-cpu.json", "nvidia-h200.json"]
    assert "created" in out
    code, out, _ = _run(capsys, "compare", baselines / "nvidia-h200.json", H200)
    assert code == 0
    code, out, err = _run(capsys, "baseline", "update", H200, "--out-dir", baselines)
    assert code == 2 and "--force" in _one_line_error(err)  # an existing baseline is replaced only with --force
    code, out, _ = _run(capsys, "baseline", "update", H200, "--out-dir", baselines, "--force")
    assert code == 0 and "replaced" in out and "nvidia-h200.json" in out


def test_baseline_update_refuses_a_run_without_samples(capsys, tmp_path):
    doc = copy.deepcopy(json.loads(SLEEPY.read_text()))
    doc["benchmarks"] = []
    code, _, err = _run(capsys, "baseline", "update", _write(tmp_path, "empty-run.json", doc), "--out-dir", tmp_path / "b")
    assert code == 2 and "has no timed items" in _one_line_error(err)
    assert not (tmp_path / "b").exists()
