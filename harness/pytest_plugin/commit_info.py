"""``commit_info`` of the results JSON: which code made this run, even without a usable git.

Contract: ``fill_commit_info(commit_info, root, environ)`` completes the dict
pytest-benchmark filled from the checkout (its own ``git`` call: id, branch, dirty flag):
- ``TLBENCH_COMMIT`` (the commit id a tree was copied from) and ``TLBENCH_COMMIT_DIRTY`` (1/0), when set, win
  over git and say so in ``id_source``; git's own answer is kept as ``git_id`` / ``git_dirty``.  A copied tree
  can carry a stale ``.git`` (seen on the H200: git named the first landing, dirty, for a tree copied from a
  later commit), and only the person who copied it knows the commit;
- otherwise git's commit is kept (``id_source`` "git"); without either the id stays
  "unknown" and ``id_source`` says why;
- it always adds ``source_digest``: SHA-256 over the ``*.py`` files of ``harness/``,
  ``backends/`` and ``suites/`` (path and bytes, in path order), which ties the run to
  the exact code that ran whether or not git could tell.
It mutates ``commit_info`` in place (pytest-benchmark's hook contract).
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
            digest.update(str(path.relative_to(root)).encode())
            digest.update(b"\0")
            digest.update(path.read_bytes())
            digest.update(b"\0")
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
