"""Hand externally measured samples to pytest-benchmark as if its own timer took them.

Contract: ``feed_samples(benchmark, samples_s, extra_info)`` makes the fixture's ``stats``
hold exactly ``samples_s`` (one round per sample, one iteration each) and merges
``extra_info``.  pytest-benchmark's public API only times a callable with a host clock; the
device time we want in ``stats`` (so ``pytest-benchmark compare`` and
``--benchmark-compare-fail`` judge the kernel) is measured by the backend, so this goes
through the fixture's ``_make_stats``, the one private call in tlbench.  It is pinned by
tests/test_plugin.py against the installed pytest-benchmark.
"""

from __future__ import annotations

from typing import Any, Sequence


def feed_samples(benchmark: Any, samples_s: Sequence[float], extra_info: dict[str, Any]) -> None:
    benchmark.extra_info.update(extra_info)
    if getattr(benchmark, "disabled", False):
        return
    stats = benchmark._make_stats(1)
    for sample in samples_s:
        stats.update(float(sample))
