"""tests/kernel_hashes.py: the sha256 of every suite case's generated kernel source,
dumped through the real NVIDIA backend (tilelang's CUDA codegen on this CPU) and compared; the
suite is the built-in GEMM (suites/gemm/body.py) declared as the suites declare it."""

import json

import pytest

import kernel_hashes

SUITE = """
from tlbench.suites.gemm.sweep import GEMM, config, problem  # the built-in GEMM (suites/ is on sys.path)
from tlbench import kernel_sweep

SWEEP = kernel_sweep("gemm", **GEMM, sweep_name="tiny", sizes=[problem(256, 256, 256)],
                     configs=[config(128, 128, 32, 128, "auto", 2), config(128, 128, 32, 128, "auto", 3),
                              config(128, 128, 1000, 128, "auto", 2)])
"""


def test_dump_hashes_each_case_and_compare_finds_a_change(tmp_path, capsys):
    pytest.importorskip("tilelang")
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "test_tiny.py").write_text(SUITE)
    before = tmp_path / "before.json"
    assert kernel_hashes.main([str(before), "--suites", str(suites), "--backend", "nvidia"]) == 0
    hashes = json.loads(before.read_text())["nvidia"]
    ids = sorted(hashes)
    assert len(ids) == 3 and len({hashes[i] for i in ids}) == 3  # s2 and s3 differ; the refused one is its error
    assert hashes["gemm-256x256x256-f16-bm128-bn128-bk1000-t128-auto-s2"].startswith("error: ")
    assert kernel_hashes.main(["--compare", str(before), str(before)]) == 0
    assert "3 kernel sources identical (1 of them compiler refusals), 0 differ" in capsys.readouterr().out

    moved = {"nvidia": {**hashes, ids[0]: "0" * 64}}
    moved["nvidia"].pop(ids[1])
    after = tmp_path / "after.json"
    after.write_text(json.dumps(moved))
    assert kernel_hashes.main(["--compare", str(before), str(after)]) == 1
    out = capsys.readouterr().out
    assert f"nvidia {ids[0]}: " in out and f"nvidia {ids[1]}: only in {before}" in out and "1 differ" not in out


def test_traced_hashes_tell_the_built_primfunc_and_its_pass_configs_apart(tmp_path):
    pytest.importorskip("tilelang")
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "test_tiny.py").write_text(SUITE)
    out = tmp_path / "traced.json"
    assert kernel_hashes.main([str(out), "--suites", str(suites), "--backend", "nvidia", "--traced"]) == 0
    hashes = json.loads(out.read_text())["nvidia"]
    s2, s3 = hashes["gemm-256x256x256-f16-bm128-bn128-bk32-t128-auto-s2"], hashes["gemm-256x256x256-f16-bm128-bn128-bk32-t128-auto-s3"]
    assert len(s2) == len(s3) == 64 and s2 != s3  # num_stages is in the traced PrimFunc
    assert hashes["gemm-256x256x256-f16-bm128-bn128-bk1000-t128-auto-s2"].startswith("error: ")  # the body refuses it
