"""Every verdict word tlbench prints, in one table: its order, colours and whether it can gate.

Contract: ``WORDS`` holds one ``VerdictWord`` per word, worst first; ``word(name)`` looks one up
(unknown: a neutral entry), with ``rank``, ``style``, ``colour``, ``gates`` and ``folded``;
``item_words()`` the item verdicts in table order.  Each ``Verdict`` must have a row (checked
at import).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Verdict(str, Enum):
    """The verdict of one item of a run-vs-run comparison."""

    FAILED = "FAILED"
    SLOWER = "SLOWER"
    MISSING = "MISSING"
    NOISY = "NOISY"
    FASTER = "FASTER"
    NEW = "NEW"
    SAME = "SAME"


@dataclass(frozen=True)
class VerdictWord:
    word: str
    style: str  # rich style on a terminal
    colour: str  # hex, for HTML pages and plots
    gates: bool  # can fail the gate
    meaning: str
    folded: bool = False  # the unremarkable case: reports may fold these rows away


WORDS: tuple[VerdictWord, ...] = (
    VerdictWord("FAILED", "bold red", "#b2182b", True, "the item failed in NEW (and did not in BASE)"),
    VerdictWord("SLOWER", "bold red", "#d6604d", True, "slower beyond the minimum effect and the pair's resolution"),
    VerdictWord("MISSING", "magenta", "#9970ab", True, "in BASE, not measured in NEW"),
    VerdictWord("WHOLE-RUN SHIFT", "bold red", "#c51b7d", True, "the whole run moved together, and not the machine"),
    VerdictWord("MODEL WORSE", "bold red", "#e08214", True, "modeled cycles or a loop's II worse (a model, not a time)"),
    VerdictWord("NOISY", "yellow", "#e6ab02", False, "a change this pair of runs cannot resolve"),
    VerdictWord("PLAN CHANGED", "yellow", "#bf812d", False, "the compiler decided otherwise (gates on request)"),
    VerdictWord("MACHINE", "yellow", "#d9c36a", False, "the whole run moved with its in-run witness: the machine"),
    VerdictWord("SAME COMMIT", "yellow", "#cdbf8f", False, "a level change between runs of one commit: the environment or the run's mode, not the code"),
    VerdictWord("FASTER", "green", "#1a9850", False, "faster beyond the minimum effect and the pair's resolution"),
    VerdictWord("MODEL BETTER", "green", "#66bd63", False, "modeled cycles or a loop's II better (a model)"),
    VerdictWord("NEW", "cyan", "#4393c3", False, "measured in NEW only"),
    VerdictWord("SAME", "dim", "#9e9e9e", False, "no change this pair can tell", folded=True),
    VerdictWord("SAME PLAN", "dim", "#bdbdbd", False, "the same compiler plan and model", folded=True),
)
_BY_WORD = {w.word: w for w in WORDS}
_RANK = {w.word: i for i, w in enumerate(WORDS)}
UNKNOWN = VerdictWord("?", "", "#777777", False, "a word this table does not know")
if any(v.value not in _BY_WORD for v in Verdict) or len(_BY_WORD) != len(WORDS):
    raise ImportError("verdict_words: every Verdict needs exactly one row in WORDS")


def _name(verdict: object) -> str:
    return str(getattr(verdict, "value", verdict))


def word(verdict: object) -> VerdictWord:
    return _BY_WORD.get(_name(verdict), UNKNOWN)


def rank(verdict: object) -> int:
    return _RANK.get(_name(verdict), len(WORDS))


def style(verdict: object) -> str:
    return word(verdict).style


def colour(verdict: object) -> str:
    return word(verdict).colour


def is_regression(verdict: object) -> bool:
    """The word fails the gate when its item gates."""
    return word(verdict).gates


def folded(verdict: object) -> bool:
    return word(verdict).folded


def item_words() -> list[str]:
    """The item verdicts (``Verdict``), in table order."""
    items = {v.value for v in Verdict}
    return [w.word for w in WORDS if w.word in items]
