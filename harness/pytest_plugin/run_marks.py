"""What a run says about itself beyond its measurements: the test-only settings in effect.

Contract: ``test_only_settings(config)`` lists, as ``dest=value`` strings in name order, every pytest option
whose destination names it test-only (``..._test_only_...``: the convention of every option that changes what
is measured for a test of the harness itself - an injected slowdown, a fault) and that is set.  The plugin
writes the list into the results file (``tlbench.test_only``) and the journal's run line, so a reader (the
history, the dashboard) can leave such a run out of what stands for a commit.  Empty: none set.
"""

from __future__ import annotations

from typing import Any


def test_only_settings(config: Any) -> list[str]:
    found = []
    for dest, value in sorted(vars(config.option).items()):
        if "test_only" in dest and value not in (None, False, "", [], ()):
            found.append(f"{dest}={value}")
    return found


test_only_settings.__test__ = False  # type: ignore[attr-defined]  # not a pytest test, wherever it is imported
