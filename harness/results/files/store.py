"""Results files on disk: read and validate one, write, merge and split them, name baselines.

Contract: ``load_results(path)`` returns a ``Results`` (the document, its records as written
with ``problem_id``, typed as ``timed`` / ``failures`` / ``skips``, backends and testbeds) from a
JSON or gzip file, or raises ``ResultsError`` (one line: the file, what is wrong, what to do)
after checking every field readers use (record_fields.py).  ``merge_documents`` /
``split_by_backend`` keep failed and skipped items; ``baseline_name``: ``<backend>-<device>.json``.
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from ...core.backend_traits import BackendTraits, TraitsCatalog
from ...core.record import EXTRA_KEY, SCHEMA_VERSION, records_of
from ...core.record_reader import RecordReader
from . import record_fields
from .record_fields import Outcome, Record, ResultsError, suite_from
from .derived_drift import with_derived_drift

MAX_FILE_BYTES = 512 * 2**20  # a results file larger than this is refused before it is read
MAX_BYTES_ENV = "TLBENCH_MAX_RESULTS_BYTES"

REQUIRED_RECORD_KEYS = ("backend", "kind", "case_id", "samples_s")


@dataclass(frozen=True)
class Testbed:
    """What must match for two runs of one backend to be compared sample by sample; the traits
    name ``driver`` and ``vendor_library`` (``BackendTraits.testbed_fields``), and the latter
    only matters for ratios to the vendor item, so it is kept apart."""

    backend: str
    target: str | None
    accelerator: str | None
    tilelang: str | None
    driver: str | None
    vendor_library: str | None = None

    MATCHED = ("target", "accelerator", "tilelang", "driver")

    def differences(self, other: "Testbed") -> list[str]:
        """``field a -> b`` for each field that must match and does not."""
        return [
            f"{name} {getattr(self, name)} -> {getattr(other, name)}"
            for name in self.MATCHED
            if getattr(self, name) != getattr(other, name)
        ]

    def describe(self) -> str:
        device = self.accelerator or "no accelerator"
        parts = [self.backend, device, f"tilelang {self.tilelang}"]
        if self.driver:
            parts.append(f"driver {self.driver}")
        if self.target:
            parts.append(self.target)
        return ", ".join(parts)

    @property
    def device_slug(self) -> str:
        """File-name form of the accelerator (``h200``), ``cpu`` for a compile-only box."""
        if not self.accelerator:
            return "cpu"
        slug = re.sub(r"[^a-z0-9]+", "-", self.accelerator.lower()).strip("-")
        prefix = f"{self.backend}-"
        return slug[len(prefix):] if slug.startswith(prefix) and len(slug) > len(prefix) else slug


@dataclass(frozen=True)
class Results:
    """One validated results file."""

    path: str
    document: dict[str, Any]
    records: tuple[dict[str, Any], ...]  # timed items (``records_of``) as written, with problem_id
    failed: tuple[dict[str, Any], ...]
    skipped: tuple[dict[str, Any], ...]
    backends: tuple[str, ...]
    timed: tuple[Record, ...] = field(init=False, repr=False, compare=False)  # ``records``, typed
    failures: tuple[Outcome, ...] = field(init=False, repr=False, compare=False)  # ``failed`` typed
    skips: tuple[Outcome, ...] = field(init=False, repr=False, compare=False)  # ``skipped``, typed

    def __post_init__(self) -> None:
        object.__setattr__(self, "timed", tuple(map(Record.of, self.records)))
        object.__setattr__(self, "failures", tuple(Outcome.of("failed", r) for r in self.failed))
        object.__setattr__(self, "skips", tuple(Outcome.of("skipped", r) for r in self.skipped))

    def testbed(self, backend: str) -> Testbed:
        return testbed_of(self.document, backend)

    @property
    def name(self) -> str:
        return Path(self.path).name


def testbed_of(document: Mapping[str, Any], backend: str, traits: BackendTraits | None = None) -> Testbed:
    info = ((document.get("machine_info") or {}).get(EXTRA_KEY) or {}).get("backends", {}).get(backend) or {}
    traits = traits or TraitsCatalog.from_entry_points().get(backend)
    fields = traits.testbed_fields(info)
    return Testbed(backend=backend, target=info.get("target"), accelerator=info.get("accelerator"),
                   tilelang=info.get("tilelang"), driver=fields.get("driver"),
                   vendor_library=fields.get("vendor_library"))


def baseline_name(testbed: Testbed) -> str:
    return f"{testbed.backend}-{testbed.device_slug}.json"


def suite_of(record: Mapping[str, Any]) -> str:
    """The suite a record as written came from (``Item.suite``)."""
    return suite_from(record.get("fullname") or record.get("nodeid"))


# -- reading --------------------------------------------------------------------------------


def max_file_bytes() -> int:
    try:
        return int(os.environ.get(MAX_BYTES_ENV) or MAX_FILE_BYTES)
    except ValueError:
        return MAX_FILE_BYTES


def _too_large(path: Path, limit: int) -> ResultsError:
    return ResultsError(f"{path}: larger than {limit / 2**20:.0f} MiB, too large for a results file; "
                        f"pass the --benchmark-json file of a run (or raise {MAX_BYTES_ENV})")


def _read_bounded(path: Path, limit: int) -> bytes:
    """The file's bytes (a gzip file's JSON inside), refused once past ``limit`` without reading it whole."""
    if path.stat().st_size > limit:
        raise _too_large(path, limit)
    with path.open("rb") as fh:
        magic = fh.read(2)
        fh.seek(0)
        stream = gzip.GzipFile(fileobj=fh) if magic == b"\x1f\x8b" else fh  # archived results, e.g. results/*.json.gz
        raw = stream.read(limit + 1)
    if len(raw) > limit:
        raise _too_large(path, limit)
    return raw


def _read_json(path: Path) -> Any:
    if not path.exists():
        raise ResultsError(f"{path}: no such file")
    if path.is_dir():
        raise ResultsError(f"{path}: is a directory, not a results JSON file")
    try:
        text = _read_bounded(path, max_file_bytes()).decode("utf-8")
    except (OSError, UnicodeDecodeError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise ResultsError(f"{path}: cannot be read ({exc})") from None
    if not text.strip():
        raise ResultsError(f"{path}: empty file (did the run stop before pytest-benchmark wrote it?)")
    try:
        return json.loads(text)  # NaN in a judged field is refused by record_fields, with the field named
    except json.JSONDecodeError as exc:
        raise ResultsError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise ResultsError(f"{path}: not valid JSON (nested too deeply)") from None


def _check_shape(path: Path, doc: Any) -> None:
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
        raise ResultsError(
            f"{path}: not pytest-benchmark output (no 'benchmarks' list); pass the file written by --benchmark-json"
        )
    if not isinstance(doc.get("machine_info"), dict):
        raise ResultsError(f"{path}: not pytest-benchmark output (no 'machine_info' object)")
    record_fields.check_document(path, doc)
    has_records = any(isinstance(b, dict) and EXTRA_KEY in (b.get("extra_info") or {}) for b in doc["benchmarks"])
    if not has_records and EXTRA_KEY not in doc:
        raise ResultsError(
            f"{path}: pytest-benchmark output without tlbench records; run a tlbench suite (suites/) with --benchmark-json"
        )


def _check_version(path: Path, where: str, version: Any) -> None:
    if version != SCHEMA_VERSION:
        raise ResultsError(
            f"{path}: tlbench schema_version {version!r} in {where}, this tlbench reads {SCHEMA_VERSION}; "
            "re-run the suite with this tlbench or use the tlbench that wrote the file"
        )


def _check_record(path: Path, rec: Mapping[str, Any]) -> None:
    label = rec.get("name") or rec.get("case_id") or "?"
    _check_version(path, f"benchmark {label}", rec.get("schema_version"))
    missing = [k for k in REQUIRED_RECORD_KEYS if k not in rec]
    if missing:
        raise ResultsError(f"{path}: benchmark {label} has a tlbench record without {', '.join(missing)}")
    samples = rec["samples_s"]
    if not isinstance(samples, list) or not samples:
        raise ResultsError(f"{path}: benchmark {label} has no samples (samples_s is empty)")
    if not all(isinstance(s, (int, float)) and not isinstance(s, bool) and math.isfinite(s) and s >= 0 for s in samples):
        raise ResultsError(f"{path}: benchmark {label} has a sample that is not a non-negative number (field samples_s)")
    record_fields.check_record(path, str(label), rec)


OUTCOME_RECORD_KEYS = {"failed": ("backend", "kind", "case_id", "stage", "error"), "skipped": ("backend", "kind", "case_id", "reason")}


def _check_outcome_record(path: Path, kind: str, index: int, rec: Any) -> None:
    """A failed/skipped record names its item, or the file is unusable (exit 2), with the field."""
    where = f"tlbench.{kind}[{index}]"
    if not isinstance(rec, dict):
        raise ResultsError(f"{path}: {where} is not an object")
    _check_version(path, f"item {rec.get('nodeid', where)}", rec.get("schema_version"))
    missing = [k for k in OUTCOME_RECORD_KEYS[kind] if k not in rec]
    if missing:
        raise ResultsError(f"{path}: {where} ({rec.get('nodeid', 'no nodeid')}) has no {', '.join(missing)}; re-run the suite or repair the file")
    record_fields.check_outcome(path, where, rec, ("stage", "error") if kind == "failed" else ("reason",))


def parse_results(doc: Any, path: str = "<document>") -> Results:
    """Validate an already-parsed document (see ``load_results``)."""
    where = Path(path)
    _check_shape(where, doc)
    top = doc.get(EXTRA_KEY) or {}
    if top:
        _check_version(where, "the top-level tlbench key", top.get("schema_version"))
    machine = doc["machine_info"].get(EXTRA_KEY)
    if machine:
        _check_version(where, "machine_info", machine.get("schema_version"))
    records = tuple(records_of(doc))
    for rec in records:
        _check_record(where, rec)
    records = tuple(with_derived_drift(rec) for rec in records)
    failed = tuple(top.get("failed") or ())
    skipped = tuple(top.get("skipped") or ())
    for kind, recs in (("failed", failed), ("skipped", skipped)):
        for index, rec in enumerate(recs):
            _check_outcome_record(where, kind, index, rec)
    reader = RecordReader()
    records, failed, skipped = (tuple(_with_problem_id(where, reader, r) for r in group) for group in (records, failed, skipped))
    seen = top.get("backends") or sorted({r["backend"] for r in (*records, *failed, *skipped)})
    return Results(path=str(path), document=doc, records=records, failed=failed, skipped=skipped, backends=tuple(seen))


def _with_problem_id(where: Path, reader: RecordReader, rec: dict[str, Any]) -> dict[str, Any]:
    """The record with ``problem_id``, read through its kernel family (never from its id)."""
    if "problem" not in rec:
        return rec
    try:
        return {**rec, "problem_id": reader.read(rec).problem_id}
    except (KeyError, TypeError, ValueError) as exc:
        raise ResultsError(
            f"{where}: item {rec.get('case_id', '?')}: its kernel family cannot read it ({exc}); "
            "install the package that provides that family (tlbench.families entry point)"
        ) from None


def load_results(path: str | Path) -> Results:
    return parse_results(_read_json(Path(path)), str(path))


# -- writing, merging, splitting ------------------------------------------------------------


def write_document(document: dict[str, Any], path: str | Path) -> Path:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    return out


def split_by_backend(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """One document per backend, each with only that backend's items and device info."""
    parsed = parse_results(document)
    out = {}
    for backend in parsed.backends:
        machine = dict(document["machine_info"])
        info = machine.get(EXTRA_KEY)
        if info:
            machine[EXTRA_KEY] = {**info, "backends": {k: v for k, v in info.get("backends", {}).items() if k == backend}}
        part = {**document, "machine_info": machine}
        part["benchmarks"] = [b for b in document["benchmarks"]
                              if ((b.get("extra_info") or {}).get(EXTRA_KEY) or {}).get("backend")
                              == backend]
        top = document.get(EXTRA_KEY)
        if top:
            part[EXTRA_KEY] = {
                **top,
                "backends": [backend],
                "failed": [r for r in top.get("failed", []) if r.get("backend") == backend],
                "skipped": [r for r in top.get("skipped", []) if r.get("backend") == backend],
            }
        out[backend] = part
    return out


def merge_documents(documents: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Several runs (say one per suite file) as one document; the first one's metadata leads."""
    docs = list(documents)
    if not docs:
        raise ResultsError("nothing to merge: no results documents")
    merged = {**docs[0], "benchmarks": [b for d in docs for b in d.get("benchmarks", [])]}
    machine = dict(docs[0]["machine_info"])
    infos = [d["machine_info"].get(EXTRA_KEY) for d in docs if d["machine_info"].get(EXTRA_KEY)]
    if infos:
        backends: dict[str, Any] = {}
        for info in infos:
            backends.update(info.get("backends", {}))
        machine[EXTRA_KEY] = {**infos[0], "backends": backends}
    merged["machine_info"] = machine
    tops = [d[EXTRA_KEY] for d in docs if d.get(EXTRA_KEY)]
    if tops:
        merged[EXTRA_KEY] = {
            **tops[0],
            "backends": sorted({b for t in tops for b in (t.get("backends") or [])}),
            "kinds": sorted({k for t in tops for k in (t.get("kinds") or [])}),
            "scope": "+".join(sorted({t.get("scope") or "?" for t in tops})),
            "sweeps": {name: s for t in tops for name, s in (t.get("sweeps") or {}).items()},
            "failed": [r for t in tops for r in t.get("failed", [])],
            "skipped": [r for t in tops for r in t.get("skipped", [])],
        }
    return merged
