"""The pytest-xdist hooks: a worker pinned to its device, pytest-benchmark kept working under ``-n``.

Contract: ``pytest_cmdline_main`` parks a worker's marker (``HIDDEN_WORKER``) and the controller's
``--benchmark-only``; ``pytest_sessionstart`` puts both back.  ``-n N`` without ``--dist`` uses the
cost-group scheduler (gpu_split.py).  Without xdist, or with ``--dist``, nothing changes.
"""

from __future__ import annotations

import os

import pytest

from .bench_adapter import stop_session_json
from .gpu_split import COST_FOLDER_KEY, cost_folder, make_scheduler, register_worker_costs
from .xdist_support import WORKER_ENV, worker_index

HIDDEN_WORKER = pytest.StashKey[str]()
CONTROLLER_ONLY = pytest.StashKey[bool]()
OWN_SCHEDULER = pytest.StashKey[bool]()


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """Both are put back at session start: after every plugin configured, before the controller
    ships its options (so the workers still receive --benchmark-only)."""
    chose_dist = any(str(a).startswith("--dist") for a in config.invocation_params.args)
    if worker_index() is not None:
        config.stash[HIDDEN_WORKER] = os.environ.pop(WORKER_ENV)
    elif config.getoption("numprocesses", None) and config.getoption("benchmark_only", False):
        config.stash[CONTROLLER_ONLY] = True
        config.option.benchmark_only = False
    config.stash[OWN_SCHEDULER] = worker_index() is None and bool(config.getoption("numprocesses", None)) and not chose_dist


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    return make_scheduler(config, log) if config.stash.get(OWN_SCHEDULER, False) else None


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    if node.config.stash.get(OWN_SCHEDULER, False):
        node.workerinput["tlbench_cost_groups"] = True
        node.workerinput[COST_FOLDER_KEY] = cost_folder(node.config)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    config = session.config
    hidden = config.stash.get(HIDDEN_WORKER, None)
    if hidden is not None:
        os.environ[WORKER_ENV] = hidden
        stop_session_json(config)  # the controller writes the merged file
    if config.stash.get(CONTROLLER_ONLY, False):
        config.option.benchmark_only = True
    register_worker_costs(config)  # a worker of the group scheduler tells the controller its costs
