"""backends/tools/fa_report.py on a hand-written run document (fixture data, not a
measurement): the ratios, the peak percentage, which SDPA ran, the stage curve, and the
exit status (a compiler refusal is listed but is not a wrong result); and on the committed
gzipped H200 run, whose table it writes again as committed beside it."""

import gzip
import json
from pathlib import Path

from tlbench.backends.tools.fa_report import main, report  # noqa: E402
from tlbench.harness.core.record import EXTRA_KEY  # noqa: E402

PID = "fa-b2h16-s8192-d128-bf16"
CAMPAIGN = Path(__file__).resolve().parents[1] / "results" / "h200-flash-attention"


def _bench(case_id, median_s, tflops, config=None, kind="device"):
    rec = {
        "schema_version": 1,
        "case_id": case_id,
        "backend": "nvidia",
        "kind": kind,
        "config": config,
        "samples_s": [median_s],
        "summary": {"median": median_s},
        "throughput": {"tflops": tflops},
        "check": {"ok": True, "max_abs_err": 1e-4, "atol": 2e-3, "rtol": 2e-2},
    }
    return {"name": case_id, "extra_info": {EXTRA_KEY: rec}}


def _shared(bn, s, median, tflops):
    cfg = {"block_M": 128, "block_N": bn, "threads": 128, "loop_form": "auto", "num_stages": s, "body": "shared"}
    return _bench(f"{PID}-bm128-bn{bn}-t128-auto-s{s}", median, tflops, cfg)


DOC = {
    "machine_info": {},
    "benchmarks": [
        _shared(128, 2, 4.0e-3, 275.0),
        _shared(128, 3, 3.0e-3, 366.5),
        _shared(64, 2, 5.0e-3, 220.0),
        _bench(f"{PID}-bm128-bn128-t256-auto-s2-hopper", 2.0e-3, 550.0, {"block_M": 128, "block_N": 128, "threads": 256, "loop_form": "auto", "num_stages": 2, "body": "hopper"}),
        _bench(f"{PID}-sdpa_flash", 2.5e-3, 440.0),
        _bench(f"{PID}-sdpa_efficient", 4.0e-3, 275.0),
    ],
    EXTRA_KEY: {
        "schema_version": 1,
        "failed": [
            {"schema_version": 1, "kind": "device", "case_id": f"{PID}-sdpa_cudnn", "backend": "nvidia", "stage": "run", "error": "RuntimeError: No available kernel"},
            {"schema_version": 1, "kind": "device", "case_id": f"{PID}-bm128-bn128-t256-auto-s2", "backend": "nvidia", "stage": "compile", "error": "InternalError: Layout infer conflict between S_vec and P_vec\nmore"},
        ],
        "skipped": [{"schema_version": 1, "kind": "device", "case_id": f"{PID}-bm128-bn128-t128-auto-s4", "backend": "nvidia", "reason": "over the on-chip budget: shared.dyn needs 294912 B"}],
    },
}


def test_ratios_peak_share_and_stage_curve():
    lines, failed = report(DOC, peak=1000.0)
    text = "\n".join(lines)
    assert not failed  # the layout conflict is the compiler's refusal, not a wrong result
    assert f"best shared-body FA: {PID}-bm128-bn128-t128-auto-s3 = 0.833x the fastest SDPA" in text
    assert f"best target-specific FA (any non-shared body): {PID}-bm128-bn128-t256-auto-s2-hopper = 1.250x the fastest SDPA" in text
    assert "SDPA backends that ran: sdpa_flash, sdpa_efficient; fastest: " + f"{PID}-sdpa_flash" in text
    assert "SDPA not run: " + f"{PID}-sdpa_cudnn: RuntimeError: No available kernel" in text
    assert "| 55.0 | 1.250 |" in text  # 550 TFLOP/s of a 1000 TFLOP/s peak; 2.5 ms / 2.0 ms
    assert "stage curve 128x128 t128 (TFLOP/s): s1 -, s2 275.0, s3 366.5, s4 -, manual -, serial -" in text
    assert "compiler refused [compile]" in text and "Layout infer conflict between S_vec and P_vec" in text
    assert "over the on-chip budget" in text


def test_a_wrong_result_fails_the_report(tmp_path):
    doc = json.loads(json.dumps(DOC))
    doc[EXTRA_KEY]["failed"].append({"schema_version": 1, "kind": "device", "case_id": f"{PID}-bm128-bn64-t128-auto-s3", "backend": "nvidia", "stage": "check", "error": "wrong result"})
    path = tmp_path / "run.json"
    path.write_text(json.dumps(doc))
    assert main([str(path)]) == 1
    (tmp_path / "empty.json").write_text(json.dumps({"benchmarks": []}))
    assert main([str(tmp_path / "empty.json")]) == 2


def test_a_gzipped_run_reads_as_the_plain_one(tmp_path, capsys):
    plain, packed = tmp_path / "run.json", tmp_path / "run.json.gz"
    plain.write_text(json.dumps(DOC))
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert main([str(plain)]) == 0
    from_plain = capsys.readouterr().out
    assert main([str(packed)]) == 0
    assert capsys.readouterr().out == from_plain and f"## {PID}" in from_plain


def test_the_committed_gzipped_h200_run_gives_the_committed_table(tmp_path, capsys):
    out = tmp_path / "fa.md"
    assert main([str(CAMPAIGN / "fa-s8192.json.gz"), "--markdown", str(out)]) == 0
    assert out.read_text() == (CAMPAIGN / "fa-s8192.md").read_text()
    assert capsys.readouterr().out.startswith("## fa-b2h16-s8192-d128-bf16\n")


def test_a_file_it_cannot_use_is_one_line_and_exit_2(tmp_path, capsys):
    broken = tmp_path / "cut.json.gz"
    broken.write_bytes(gzip.compress(json.dumps(DOC).encode())[:40])  # a copy cut short
    assert main([str(broken)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"fa_report: {broken}: cannot be read") and err.count("\n") == 1
