"""The verdict words of a run-vs-run comparison, in ONE table every output reads.

Contract: ``Verdict`` is the word an item gets (a ``str`` enum: ``Verdict.SLOWER.value ==
"SLOWER"``); ``TABLE`` holds one ``Word`` per verdict, in display order (regressions first):
whether the word is a regression when its item gates (``regression``), whether reports may
fold it away as the unremarkable case (``folded``: markdown's collapsed section), its terminal
style (a rich style), its figure colour (hex) and what it means in one line.  ``word(v)``,
``rank(v)``, ``style(v)``, ``colour(v)``, ``is_regression(v)`` and ``words()`` are the
readers: report_terminal, report_markdown, report_png, report_cells' order, comparison's
gate and the JSON schema of ``compare --json`` (json_output.compare_output_schema) all read
them, so a new word is one ``Verdict`` member and one row here.  Every member has exactly one
row (checked at import).

The rules that give these words are harness/results/compare_rules.py's.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Verdict(str, Enum):
    FAILED = "FAILED"
    SLOWER = "SLOWER"
    NOISY = "NOISY"
    FASTER = "FASTER"
    NEW = "NEW"
    MISSING = "MISSING"
    SAME = "SAME"


@dataclass(frozen=True)
class Word:
    verdict: Verdict
    regression: bool  # a regression (exit 1) when its item gates
    folded: bool  # the unremarkable case: reports may fold these rows away
    style: str  # rich style on a terminal
    colour: str  # figure colour
    meaning: str


TABLE: tuple[Word, ...] = (
    Word(Verdict.FAILED, True, False, "bold red", "#b2182b", "the item failed in the new run (where it did not in the base)"),
    Word(Verdict.SLOWER, True, False, "bold red", "#d6604d", "slower by at least the minimum effect, beyond what the pair resolves"),
    Word(Verdict.NOISY, False, False, "yellow", "#e6ab02", "moved, or may have, by more than this pair of runs can resolve"),
    Word(Verdict.FASTER, False, False, "green", "#1a9850", "faster by at least the minimum effect, beyond what the pair resolves"),
    Word(Verdict.NEW, False, False, "cyan", "#4393c3", "timed in the new run only"),
    Word(Verdict.MISSING, True, False, "magenta", "#9970ab", "an item of the base not measured in the new run"),
    Word(Verdict.SAME, False, True, "dim", "#9e9e9e", "moved less than the minimum effect, and the pair resolves that much"),
)

_BY_VERDICT = {w.verdict: w for w in TABLE}
_RANK = {w.verdict: i for i, w in enumerate(TABLE)}
if set(_BY_VERDICT) != set(Verdict) or len(TABLE) != len(Verdict):
    raise ImportError("verdict_table: every Verdict needs exactly one row in TABLE")


def word(verdict: Verdict) -> Word:
    return _BY_VERDICT[Verdict(verdict)]


def rank(verdict: Verdict) -> int:
    """Display order: regressions first, the unremarkable last."""
    return _RANK[Verdict(verdict)]


def style(verdict: Verdict) -> str:
    return word(verdict).style


def colour(verdict: Verdict) -> str:
    return word(verdict).colour


def is_regression(verdict: Verdict) -> bool:
    return word(verdict).regression


def folded(verdict: Verdict) -> bool:
    return word(verdict).folded


def words() -> list[str]:
    """Every verdict word, in display order (the JSON schema's enum)."""
    return [w.verdict.value for w in TABLE]
