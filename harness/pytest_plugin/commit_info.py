"""``commit_info`` of the results JSON: which code made this run, even without a usable git.

Contract: ``fill_commit_info(commit_info, root, environ)`` completes pytest-benchmark's dict:
``TLBENCH_COMMIT`` / ``TLBENCH_COMMIT_DIRTY`` win over git (kept as ``git_id`` / ``git_dirty``),
``id_source`` says which, ``source_digest`` hashes the ``*.py`` of harness/, backends/, suites/.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Mapping, MutableMapping

SOURCE_DIRS = ("harness", "backends", "suites")


def source_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for folder in SOURCE_DIRS:
        for path in sorted((root / folder).rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return "sha256:" + digest.hexdigest()


def fill_commit_info(commit_info: MutableMapping, root: Path, environ: Mapping[str, str] | None = None) -> None:
    environ = os.environ if environ is None else environ
    known = commit_info.get("id") not in (None, "", "unknown", "unversioned") and not commit_info.get("error")
    if environ.get("TLBENCH_COMMIT"):
        if known:
            commit_info["git_id"], commit_info["git_dirty"] = commit_info.get("id"), commit_info.get("dirty")
        else:
            commit_info["git_error"] = commit_info.pop("error", None)
        commit_info["id"] = environ["TLBENCH_COMMIT"].strip()
        dirty = environ.get("TLBENCH_COMMIT_DIRTY")
        commit_info["dirty"] = None if dirty is None else dirty.strip() not in ("", "0", "false", "no")
        commit_info["id_source"] = "TLBENCH_COMMIT"
    elif known:
        commit_info["id_source"] = "git"
    else:
        commit_info["id_source"] = "unknown: git gave no commit and TLBENCH_COMMIT is not set"
    commit_info["source_digest"] = source_digest(root)
