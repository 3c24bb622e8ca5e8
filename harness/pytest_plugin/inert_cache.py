"""The inert-key probe's results on disk, so one lowering serves every process and later run.

Contract: ``cached_inert_keys(cache, key, configs, kernel_source)`` returns the answer stored for
``key`` (a ``ProbeKey``; None caches nothing), else probes and stores it atomically; an unreadable
file is a ``UserWarning``.  ``default_directory()``: ``$TLBENCH_CACHE_DIR`` or the XDG cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from dataclasses import asdict, dataclass
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


@dataclass(frozen=True)
class ProbeKey:
    backend: str
    compiler: str
    family: str
    problem: str
    configs: tuple[str, ...]
    bodies: tuple[str, ...]
    format: int = FORMAT

    def as_json(self) -> dict[str, object]:
        return json.loads(json.dumps(asdict(self)))  # tuples as lists, as the cache file holds it


def probe_key(backend: Any, family: str, problem_id: str, configs: Sequence[Any], body_hashes: Sequence[str]) -> ProbeKey | None:
    """What decides the probe's answer, or None when the backend cannot name its compiler."""
    lowering_key = getattr(backend, "lowering_key", None)
    compiler = lowering_key() if callable(lowering_key) else None
    if not compiler:
        return None
    return ProbeKey(backend.name, str(compiler), family, problem_id, tuple(c.config_id for c in configs),
                    tuple(sorted(set(body_hashes))))


@dataclass(frozen=True)
class InertKeyCache:
    directory: Path

    def _path(self, key: ProbeKey) -> Path:
        digest = hashlib.sha256(json.dumps(key.as_json(), sort_keys=True).encode()).hexdigest()
        return self.directory / "inert-keys" / f"{digest}.json"

    def get(self, key: ProbeKey) -> list[str] | None:
        path = self._path(key)
        if not path.exists():
            return None
        try:
            stored = json.loads(path.read_text())
            if stored.get("key") != key.as_json() or not isinstance(stored.get("inert_keys"), list):
                raise ValueError("its key or inert_keys do not match this probe")
            return [str(k) for k in stored["inert_keys"]]
        except (OSError, ValueError, AttributeError) as exc:
            warnings.warn(f"tlbench: ignoring the unreadable inert-key cache file {path} ({exc}); probing again", UserWarning, stacklevel=2)
            return None

    def put(self, key: ProbeKey, inert: list[str]) -> None:
        path = self._path(key)
        try:
            atomic_write_text(path, json.dumps({"key": key.as_json(), "inert_keys": inert}, sort_keys=True))
        except OSError as exc:  # a read-only home: the run goes on, the next one probes again
            warnings.warn(f"tlbench: could not write the inert-key cache under {path.parent} ({exc})", UserWarning, stacklevel=2)


def cached_inert_keys(cache: InertKeyCache | None, key: ProbeKey | None, configs: Sequence[Any],
                      kernel_source: Callable[[Any], str]) -> list[str]:
    found = cache.get(key) if cache is not None and key is not None else None
    if found is not None:
        return found
    inert = inert_keys(configs, kernel_source)
    if cache is not None and key is not None:
        cache.put(key, inert)
    return inert
