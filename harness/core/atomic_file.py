"""Whole-file writes that a reader never sees half of, with the user's permissions.

Contract: ``atomic_write_bytes(path, data)`` / ``atomic_write_text(path, text)`` create the parent directory, write
a uniquely named temporary file beside ``path`` (created mode 0666, so the process umask decides: ``-rw-r--r--``
under umask 022, as a plain ``open(path, "w")`` gives; ``tempfile.mkstemp`` would give ``-rw-------``), fsync it,
rename it over ``path`` (``os.replace``: a reader sees the old file or the new one) and fsync the directory, so the
rename itself survives a crash.  A failed write removes its temporary file and raises.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _create_beside(target)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    fsync_directory(target.parent)
    return target


def atomic_write_text(path: str | Path, text: str) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"))


def _create_beside(target: Path) -> tuple[int, str]:
    while True:
        tmp = str(target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"))
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), tmp
        except FileExistsError:
            continue


def fsync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems refuse fsync on a directory; the rename still happened
        pass
    finally:
        os.close(fd)
