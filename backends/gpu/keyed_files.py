"""One small text file per key in a folder: the storage under the NVIDIA backend's disk caches.

Contract: ``KeyedFiles(directory)`` (None: nothing is stored or found); ``read(key)`` returns the
text or None; ``write(key, text)`` writes ``<key>.json`` atomically (a reader never sees half a
file) and returns False when the disk refuses.
"""

from __future__ import annotations

from pathlib import Path

from tlbench.harness.results.files.journal import atomic_write_text


class KeyedFiles:
    def __init__(self, directory: Path | None) -> None:
        self.directory = directory

    def _path(self, key: str) -> Path | None:
        return self.directory / f"{key}.json" if self.directory is not None else None

    def has(self, key: str) -> bool:
        path = self._path(key)
        return path is not None and path.exists()

    def read(self, key: str) -> str | None:
        path = self._path(key)
        if path is None:
            return None
        try:
            return path.read_text()
        except (OSError, UnicodeDecodeError):
            return None

    def write(self, key: str, text: str) -> bool:
        path = self._path(key)
        if path is None:
            return False
        try:
            atomic_write_text(path, text)
        except OSError:
            return False
        return True
