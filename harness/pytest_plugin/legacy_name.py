"""The plugin's pre-namespace name, ``-p harness.plugin``, kept working for one release.

Contract: pytest resolves ``-p harness.plugin`` to this entry point (pyproject.toml), so the
name a user typed still starts the session; the tlbench plugin itself is loaded through its
own ``tlbench`` entry point as in every session.  This module only warns, and only when the
old name was typed: in any other session it does nothing at all.
"""

from __future__ import annotations

import pytest

OLD_NAME = "harness.plugin"


def typed_old_name(args: list[str]) -> bool:
    """Whether ``args`` (the command line, with PYTEST_ADDOPTS) ask for ``-p harness.plugin``."""
    for i, arg in enumerate(args):
        if arg == "-p" and i + 1 < len(args) and args[i + 1] == OLD_NAME:
            return True
        if arg in (f"-p{OLD_NAME}", f"--plugin={OLD_NAME}"):
            return True
    return False


def pytest_configure(config: pytest.Config) -> None:
    import os
    import shlex

    args = [*config.invocation_params.args, *shlex.split(os.environ.get("PYTEST_ADDOPTS", ""), posix=True)]
    if typed_old_name([str(a) for a in args]):
        config.issue_config_time_warning(
            pytest.PytestDeprecationWarning(
                "`-p harness.plugin` is deprecated: the plugin is `tlbench.harness.plugin` and loads by itself "
                "once tlbench is installed; drop the option (or write `-p tlbench.harness.plugin` where tlbench "
                "is only on PYTHONPATH)"),
            stacklevel=2)
