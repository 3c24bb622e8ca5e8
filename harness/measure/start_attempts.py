"""How many starts of a worker in a row have failed (worker_session.py).

Contract: ``StartAttempts(limit)``: ``failed(words)``, ``succeeded()``, ``any_failed``,
``exhausted`` (``limit`` failures in a row) and ``refusal(backend)``: the error text of an item no
worker was started for.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class StartAttempts:
    limit: int
    _failures: list[str] = field(default_factory=list)  # why each start since the last ready failed

    def failed(self, words: str) -> None:
        self._failures.append(words)

    def succeeded(self) -> None:
        self._failures.clear()

    @property
    def any_failed(self) -> bool:
        """A start has failed since the last ``ready``."""
        return bool(self._failures)

    @property
    def exhausted(self) -> bool:
        return len(self._failures) >= self.limit

    def refusal(self, backend: str) -> str:
        return (f"not started again: the {backend} worker failed to start {len(self._failures)} times in a row "
                f"(last: {self._failures[-1] if self._failures else 'unknown'}), so no further worker is started in "
                "this session; fix what stops it (its words above, or run one item with --tlbench-isolation=inprocess "
                "to see the error in this process) and run again")
