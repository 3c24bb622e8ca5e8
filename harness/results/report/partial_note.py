"""What a report says about an input marked partial (a killed, interrupted or merged-short run).

Contract: ``partial_lines(results)`` returns the note lines (none for a complete run): for a
recovered journal, how many items it holds of how many and whether the run ended; for a merge
with shards missing, the merge's reasons; the first missing items named either way.
"""

from __future__ import annotations

from ..files.store import Results

SHOWN_MISSING = 5


def partial_lines(results: Results) -> list[str]:
    partial = (results.document.get("tlbench") or {}).get("partial")
    if not partial:
        return []
    missing = partial.get("missing") or []
    shown = ", ".join(missing[:SHOWN_MISSING]) + (f" (+{len(missing) - SHOWN_MISSING} more)" if len(missing) > SHOWN_MISSING else "")
    if partial.get("reasons"):  # a merge of shards with some missing (harness/results/files/shard_merge.py)
        return [f"note: {results.name} is PARTIAL: {'; '.join(map(str, partial['reasons']))}" + (f"; missing: {shown}" if missing else "")]
    ended = "ended" if partial.get("run_ended") else "did not end"
    return [
        f"note: {results.name} is PARTIAL, recovered from {partial.get('journal')}: "
        f"{partial.get('items_in_journal')} of {partial.get('items_collected') or '?'} items; the run {ended}"
        + (f"; missing: {shown}" if missing else "")
    ]
