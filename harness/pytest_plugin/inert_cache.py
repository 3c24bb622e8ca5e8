"""The inert-key probe's results on disk, so one lowering serves every process and later run.

Contract: ``InertKeyCache(directory)`` stores one small JSON file per probe under ``directory/inert-keys/``,
named by the sha256 of the probe's key, and written atomically (harness/core/atomic_file.py: a temporary file
then ``os.replace``), so concurrent xdist workers never read half a file. ``cached_inert_keys(cache,
key_parts, configs, kernel_source)`` returns the inert keys from the cache when ``key_parts`` (everything that
determines the lowered source: the backend's ``lowering_key()`` - compiler version and target -, the kernel
bodies' hashes, the family, the problem and the probed configs) were probed before; else it probes through
``harness.core.space.inert_keys`` (which lowers) and stores the answer.  ``key_parts`` is None when the
backend cannot name its compiler (no ``lowering_key``): then nothing is cached. A file that cannot be read or
parsed is ignored with a ``UserWarning`` and probed again. ``default_directory()`` is ``$TLBENCH_CACHE_DIR``,
else ``$XDG_CACHE_HOME/tlbench``, else ``~/.cache/tlbench``.  The harness never imports the compiler: the
version comes from the backend.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from ..core.atomic_file import atomic_write_text
from ..core.space import inert_keys

CACHE_ENV = "TLBENCH_CACHE_DIR"
FORMAT = 1


def default_directory() -> Path:
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "tlbench"


def probe_key(backend: Any, family: str, problem_id: str, configs: Sequence[Any], body_hashes: Sequence[str]) -> dict[str, Any] | None:
    """What determines the probe's answer, or None when the backend cannot name its compiler."""
    lowering_key = getattr(backend, "lowering_key", None)
    compiler = lowering_key() if callable(lowering_key) else None
    if not compiler:
        return None
    return {
        "format": FORMAT,
        "backend": backend.name,
        "compiler": str(compiler),
        "family": family,
        "problem": problem_id,
        "configs": [c.config_id for c in configs],
        "bodies": sorted(set(body_hashes)),
    }


@dataclass(frozen=True)
class InertKeyCache:
    directory: Path

    def _path(self, key: dict[str, Any]) -> Path:
        digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
        return self.directory / "inert-keys" / f"{digest}.json"

    def get(self, key: dict[str, Any]) -> list[str] | None:
        path = self._path(key)
        if not path.exists():
            return None
        try:
            stored = json.loads(path.read_text())
            if stored.get("key") != key or not isinstance(stored.get("inert_keys"), list):
                raise ValueError("its key or inert_keys do not match this probe")
            return [str(k) for k in stored["inert_keys"]]
        except (OSError, ValueError, AttributeError) as exc:
            warnings.warn(f"tlbench: ignoring the unreadable inert-key cache file {path} ({exc}); probing again", UserWarning, stacklevel=2)
            return None

    def put(self, key: dict[str, Any], inert: list[str]) -> None:
        path = self._path(key)
        try:
            atomic_write_text(path, json.dumps({"key": key, "inert_keys": inert}, sort_keys=True))
        except OSError as exc:  # a read-only home: the run goes on, the next one probes again
            warnings.warn(f"tlbench: could not write the inert-key cache under {path.parent} ({exc})", UserWarning, stacklevel=2)


def cached_inert_keys(
    cache: InertKeyCache | None, key: dict[str, Any] | None, configs: Sequence[Any], kernel_source: Callable[[Any], str]
) -> list[str]:
    if cache is not None and key is not None:
        found = cache.get(key)
        if found is not None:
            return found
    inert = inert_keys(configs, kernel_source)
    if cache is not None and key is not None:
        cache.put(key, inert)
    return inert
