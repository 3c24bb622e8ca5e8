"""commit_info: git's answer kept, a copied tree named through TLBENCH_COMMIT, and a source
digest of the code that ran; and a kernel-body hash in every record of a real run."""

import json
from pathlib import Path

from tlbench.backends.kernels.source_hash import body_hash
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


def test_body_hash_is_the_kernel_modules_source():
    import hashlib

    expected = hashlib.sha256((ROOT / "backends" / "kernels" / "gemm" / "body.py").read_bytes()).hexdigest()
    assert body_hash("gemm") == f"sha256:{expected}"
    assert body_hash("vendor") is None


def test_flash_attention_cases_hash_their_own_body():
    import hashlib

    expected = hashlib.sha256((ROOT / "backends" / "kernels" / "flash_attention.py").read_bytes()).hexdigest()
    assert body_hash("flash_attention") == f"sha256:{expected}"
