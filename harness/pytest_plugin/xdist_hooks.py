"""The pytest-xdist hooks: a worker pinned to its device, pytest-benchmark kept working under ``-n``.

Contract (hooks registered through harness/plugin.py, which imports them):
- ``pytest_cmdline_main`` (first, before configure): in an xdist worker, park the worker
  marker (``HIDDEN_WORKER``: pytest-benchmark would disable itself on seeing it) so the
  plugin can pin the worker to its device at configure; in the controller, which runs no
  test, park ``--benchmark-only`` (pytest-benchmark refuses it under xdist).  With ``-n N``
  and no ``--dist``, tlbench's own scheduler is used (``OWN_SCHEDULER``).
- ``pytest_sessionstart`` (first): both are put back (``restore_xdist_markers``), after every
  plugin configured and before the controller ships its options to the workers.
- ``pytest_xdist_make_scheduler`` / ``pytest_configure_node``: one cost-balanced group of
  items per GPU (harness/pytest_plugin/gpu_split.py), and each worker told so and given the
  folder where it writes its items' costs for the controller (``gpu_split.cost_folder``); a
  worker given one registers ``gpu_split.WorkerCosts`` at session start.
A session without pytest-xdist, or with ``--dist``, is left exactly as pytest makes it.
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
    """Before configure, under pytest-xdist: pin a worker to its device and hide the worker
    marker from pytest-benchmark (which would disable itself); in the controller, which runs
    no test, park --benchmark-only (pytest-benchmark refuses it under xdist).  Both are put
    back at session start, after every plugin configured and before the controller ships
    its options to the workers (so they still receive --benchmark-only)."""
    chose_dist = any(str(a).startswith("--dist") for a in config.invocation_params.args)
    if worker_index() is not None:
        config.stash[HIDDEN_WORKER] = os.environ.pop(WORKER_ENV)
    elif config.getoption("numprocesses", None) and config.getoption("benchmark_only", False):
        config.stash[CONTROLLER_ONLY] = True
        config.option.benchmark_only = False
    config.stash[OWN_SCHEDULER] = worker_index() is None and bool(config.getoption("numprocesses", None)) and not chose_dist


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``-n N`` without ``--dist``: one cost-balanced group of items per GPU (gpu_split)."""
    if not config.stash.get(OWN_SCHEDULER, False):
        return None
    return make_scheduler(config, log)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """Controller: tell each worker that items come in cost groups (gpu_split), so it can
    measure its group as one interleaved device phase."""
    if node.config.stash.get(OWN_SCHEDULER, False):
        node.workerinput["tlbench_cost_groups"] = True
        node.workerinput[COST_FOLDER_KEY] = cost_folder(node.config)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    restore_xdist_markers(session.config)
    register_worker_costs(session.config)  # a worker of the group scheduler tells the controller its costs


def restore_xdist_markers(config) -> None:
    hidden = config.stash.get(HIDDEN_WORKER, None)
    if hidden is not None:
        os.environ[WORKER_ENV] = hidden
        stop_session_json(config)  # the controller writes the merged file
    if config.stash.get(CONTROLLER_ONLY, False):
        config.option.benchmark_only = True
