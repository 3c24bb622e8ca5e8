"""commit_info: git's answer kept, a copied tree named through TLBENCH_COMMIT, and a source
digest of the code that ran; and a kernel-body hash in every record of a real run."""

import json
from pathlib import Path

from tlbench.harness.core.kernel_traits import kernel_hash
from tlbench.harness.pytest_plugin.commit_info import fill_commit_info, source_digest

ROOT = Path(__file__).resolve().parents[1]


def test_a_git_commit_is_kept_and_labelled():
    info = {"id": "abc123", "dirty": True, "branch": "main"}
    fill_commit_info(info, ROOT, environ={})
    assert info["id"] == "abc123" and info["dirty"] is True and info["id_source"] == "git"
    assert info["source_digest"] == source_digest(ROOT)


def test_the_environment_wins_over_a_stale_git_in_a_copied_tree():
    info = {"id": "55710a9ec8", "dirty": True, "branch": "main"}
    fill_commit_info(info, ROOT, environ={"TLBENCH_COMMIT": "c30c638", "TLBENCH_COMMIT_DIRTY": "0"})
    assert info["id"] == "c30c638" and info["dirty"] is False and info["id_source"] == "TLBENCH_COMMIT"
    assert info["git_id"] == "55710a9ec8" and info["git_dirty"] is True


def test_a_tree_without_commits_takes_the_environment_and_keeps_gits_error():
    info = {"id": "unknown", "dirty": False, "error": "CalledProcessError(128, 'bad revision HEAD')"}
    fill_commit_info(info, ROOT, environ={"TLBENCH_COMMIT": "c4ca298d", "TLBENCH_COMMIT_DIRTY": "1"})
    assert info["id"] == "c4ca298d" and info["dirty"] is True and info["id_source"] == "TLBENCH_COMMIT"
    assert "bad revision" in info["git_error"]


def test_without_git_or_environment_the_id_stays_unknown_and_says_why():
    info = {"id": "unversioned", "dirty": False}
    fill_commit_info(info, ROOT, environ={})
    assert info["id"] == "unversioned" and info["id_source"].startswith("unknown")


def test_source_digest_changes_with_the_code(tmp_path):
    for folder in ("harness", "backends", "suites"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "a.py").write_text("x = 1\n")
    before = source_digest(tmp_path)
    (tmp_path / "backends" / "a.py").write_text("x = 2\n")
    assert source_digest(tmp_path) != before


def _hash_of(*files):
    import hashlib

    hashes = ["sha256:" + hashlib.sha256(f.read_bytes()).hexdigest() for f in files]
    return hashes[0] if len(hashes) == 1 else "sha256:" + hashlib.sha256("\n".join(hashes).encode()).hexdigest()


def test_kernel_hash_is_the_source_of_the_body_modules():
    from tlbench.suites.gemm.test_stages import SWEEP  # the built-in GEMM suite (kernel_sweep)
    from tlbench.harness.core.cases import VendorCase

    case = SWEEP.cases("nvidia", "smoke")[0]
    suites = ROOT / "suites"
    body = _hash_of(suites / "gemm" / "body.py", suites / "gemm" / "raster.py")  # the body file and the tile order it imports
    assert kernel_hash(case, "cuda") == body and kernel_hash(case, "ascend") == body  # both dialects' bodies live in one file
    assert kernel_hash(VendorCase(case.problem), "cuda") is None


def test_flash_attention_cases_hash_the_suites_kernel_modules_and_nothing_else_of_theirs():
    """A flash-attention case of the suites hashes its factories (suites/flash_attention/build.py), the
    kernel modules beside them that those import (found by the source closure) and the problem
    and config values the bodies read (named in ``body_modules``: tlbench's own files are not
    followed); the reference, the vendor calls and the declarations are not part of the kernel."""
    import sys
    from dataclasses import asdict

    from tlbench import kernel_sweep
    from tlbench.suites.flash_attention.problem import FaConfig, FaProblem
    from tlbench.harness.core.source_closure import source_closure

    suites = ROOT / "suites" / "flash_attention"
    from tlbench.suites.flash_attention.sweep import FA

    problem = FaProblem(1, 2, 1024, 1024)
    sweep = kernel_sweep("flash_attention", **FA, sizes=[asdict(problem)], module=__name__,
                         configs=[asdict(FaConfig(128, 128, 2)), asdict(FaConfig(128, 128, 2, threads=384, body="hopper_ws"))])
    shared, ws = sweep.cases("nvidia", "full")
    files = source_closure([suites / "build.py", suites / "problem.py"])
    assert {f.name for f in files} == {"build.py", "problem.py", "validation.py", "body.py", "dialect_cuda.py",
                                       "dialect_ascend.py", "hopper.py", "hopper_ws.py"}
    assert kernel_hash(shared, "cuda") == kernel_hash(ws, "cuda") == kernel_hash(shared, "ascend") == _hash_of(*files)
