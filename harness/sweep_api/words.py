"""The words a suite gives its kernel's cases: ids, labels, the loop's trip count.

Contract: ``CaseWords`` holds ``kernel_sweep``'s optional word formatters and answers for a
family, with harness/core/described.py's words where the suite gives none; a formatter that
raises or returns the wrong type is a ``ValueError`` naming it.  ``record_words`` is what the
suite worded, as a record's ``described_as`` dict ({} for none).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from ..core.described import StageFacts, Words, derived_config_id, derived_problem_id, problem_label, stage_facts

from .callables import call_named, named_what

@dataclass(frozen=True)
class CaseWords:
    problem_id: Any = None
    config_id: Any = None
    problem_label: Any = None
    config_label: Any = None
    loop_trips: Any = None

    def given(self) -> dict[str, Callable[..., Any] | str]:
        return {k: v for k, v in vars(self).items() if v is not None}

    def _say(self, family: Any, what: str, values: Mapping[str, Any], kind: type = str) -> Any:
        function = family.resolved(getattr(self, what))
        try:
            said = call_named(function, {**family.constants, **values})
        except Exception as exc:  # noqa: BLE001 - the suite's formatter: one line naming it
            raise ValueError(f"kernel {family.name}: {named_what(what, function)} raised {type(exc).__name__} "
                             f"on {dict(values)}: {exc}") from exc
        if not isinstance(said, kind) or isinstance(said, bool) or (kind is str and not said):
            raise ValueError(f"kernel {family.name}: {named_what(what, function)} returned {said!r} on {dict(values)}; "
                             f"it must return a {'non-empty string' if kind is str else kind.__name__}")
        return said

    def problem_id_of(self, family: Any, values: Mapping[str, Any]) -> str:
        return self._say(family, "problem_id", values) if self.problem_id else derived_problem_id(family.name, values)

    def config_id_of(self, family: Any, values: Mapping[str, Any]) -> str:
        return self._say(family, "config_id", values) if self.config_id else derived_config_id(values)

    def problem_label_of(self, family: Any, values: Mapping[str, Any]) -> str:
        return self._say(family, "problem_label", values) if self.problem_label else problem_label(values)

    def stage_of(self, family: Any, values: Mapping[str, Any]) -> StageFacts:
        tile = self._say(family, "config_label", values) if self.config_label else None
        return stage_facts(values, tile)

    def loop_trips_of(self, family: Any, problem: Mapping[str, Any], config: Mapping[str, Any]) -> int | None:
        """The formatter's count; it may say None (no one count: a causal loop's varies by tile)."""
        if not self.loop_trips:
            return None
        function = family.resolved(self.loop_trips)
        if call_named(function, {**family.constants, **problem, **config}) is None:
            return None
        return self._say(family, "loop_trips", {**problem, **config}, int)

    def record_words(self, family: Any, problem: Any, config: Any = None) -> dict[str, Any]:
        """The worded parts of one case (those the suite formats), for its record."""
        if not self.given():
            return {}
        words = Words(
            problem_id=problem.problem_id if self.problem_id else None,
            problem_label=self.problem_label_of(family, problem.values) if self.problem_label else None,
            config_id=config.config_id if config is not None and self.config_id else None,
            stage=config.stage if config is not None and self.config_label else None,
            loop_trips=self.loop_trips_of(family, problem.values, config.values) if config is not None and self.loop_trips else None,
        )
        return {k: v for k, v in words.to_dict().items() if v is not None}
