"""One run split over N machines: the shard spec, the run's identity, where a record was measured.

Contract: ``ShardSpec.parse("I/N")`` is shard I of N (else ``ValueError``, one line); ``run_digest(nodeids)``:
SHA-256 over the run's sorted distinct node ids (shards of one run compute the same); ``placement(record)``: its
shard and device, e.g. ``"2/3@GPU-5e1f"`` (None: neither known), since a vendor item is measured once per placement.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Iterable, Mapping


@dataclass(frozen=True)
class ShardSpec:
    index: int  # 1-based
    count: int

    @classmethod
    def parse(cls, text: str) -> "ShardSpec":
        index, sep, count = str(text).strip().partition("/")
        try:
            spec = cls(int(index), int(count)) if sep else None
        except ValueError:
            spec = None
        if spec is None or spec.count < 1 or not 1 <= spec.index <= spec.count:
            raise ValueError(f"--tlbench-shard={text!r}: expected I/N with 1 <= I <= N, e.g. --tlbench-shard=2/3 "
                             "(shard 2 of 3; N jobs run shards 1/N .. N/N)")
        return spec

    @property
    def label(self) -> str:
        return f"{self.index}/{self.count}"


def run_digest(nodeids: Iterable[str]) -> str:
    digest = hashlib.sha256()
    for nodeid in sorted(set(nodeids)):
        digest.update(nodeid.encode("utf-8"))
        digest.update(b"\0")
    return "sha256:" + digest.hexdigest()


def placement(record: Mapping[str, Any]) -> str | None:
    shard, uuid = record.get("shard"), record.get("device_uuid")
    if shard is None:
        return str(uuid) if uuid else None
    return f"{shard}@{uuid}" if uuid else str(shard)
