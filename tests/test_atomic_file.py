"""Atomic whole-file writes: the user's umask decides the mode, the rename is fsync'd."""

import os
import stat

import pytest

from tlbench.harness.core import atomic_file
from tlbench.harness.results.files.journal import Journal, atomic_write_text


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_mode_follows_the_umask_as_a_plain_open_does(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        written = atomic_write_text(tmp_path / "sub" / "results.json", "{}\n")
        plain = tmp_path / "plain.json"
        plain.write_text("{}\n")
        journal = Journal(tmp_path / "run.journal.jsonl")
        journal.append({"type": "end"})
    finally:
        os.umask(old)
    assert written.read_text() == "{}\n"
    assert stat.S_IMODE(written.stat().st_mode) == mode == stat.S_IMODE(plain.stat().st_mode)
    assert stat.S_IMODE((tmp_path / "run.journal.jsonl").stat().st_mode) == mode
    assert sorted(p.name for p in written.parent.iterdir()) == ["results.json"]  # no temp file left


def test_the_directory_is_fsynced_after_the_rename(tmp_path, monkeypatch):
    synced = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "replace", lambda a, b: (synced.append("rename"), real_replace(a, b)))
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append("dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file"), real_fsync(fd)))
    atomic_file.atomic_write_text(tmp_path / "a.json", "x")
    assert synced == ["file", "rename", "dir"]


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(tmp_path, monkeypatch):
    target = tmp_path / "a.json"
    target.write_text("old")

    def refuse(a, b):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="disk full"):
        atomic_write_text(target, "new")
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["a.json"]
