"""The test-only settings a run had in effect, for its results file and journal.

Contract: ``test_only_settings(config)`` lists, as sorted ``dest=value`` strings, every set pytest
option whose dest contains ``test_only`` (options that change what is measured to test the
harness itself); readers leave such runs out of what stands for a commit.
"""

from __future__ import annotations

from typing import Any


def test_only_settings(config: Any) -> list[str]:
    return [f"{dest}={value}" for dest, value in sorted(vars(config.option).items())
            if "test_only" in dest and value not in (None, False, "", [], ())]


test_only_settings.__test__ = False  # type: ignore[attr-defined]  # not a pytest test, wherever it is imported
