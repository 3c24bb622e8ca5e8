"""The measurement options of the pytest plugin, and the ``MeasurePolicy`` they make.

Contract: ``add_measure_options(group)`` declares the ``--tlbench-*`` sampling, search and drift
options; ``policy_from_options(getoption)`` builds the policy (a bad criterion:
``pytest.UsageError``).
"""

from __future__ import annotations

from typing import Any, Callable

import pytest

from ..core.cases import MeasurePolicy
from .criteria import CRITERIA, CriterionError, make_criterion
from .option_types import fraction as _fraction, positive_float as _positive_float, positive_int as _positive_int

D = MeasurePolicy()


def add_measure_options(group: Any) -> None:
    group.addoption("--tlbench-criterion", default=None, metavar="NAME[:key=value,...]",
                    help=f"stopping criterion for device items: {', '.join(CRITERIA)} (default {D.criterion}; "
                         "stdrel:max_noise=0.005; fixed:samples=60)")
    group.addoption("--tlbench-rounds", type=_positive_int, default=D.rounds, help=f"minimum round-robin passes over the device items (default {D.rounds})")
    group.addoption("--tlbench-batch", type=_positive_int, default=D.batch, help=f"samples of each item per pass (default {D.batch})")
    group.addoption("--tlbench-interleave", dest="tlbench_interleave", action="store_true", default=D.interleave, help="measure device items in interleaved rounds (default)")
    group.addoption("--tlbench-no-interleave", dest="tlbench_interleave", action="store_false", help="measure device items one after another")
    group.addoption("--tlbench-max-samples", type=_positive_int, default=D.max_samples, help=f"device samples cap per item (default {D.max_samples})")
    group.addoption("--tlbench-max-seconds", type=_positive_float, default=D.max_seconds, help=f"sampling time cap per item (default {D.max_seconds} s)")
    group.addoption("--tlbench-search", choices=("off", "model"), default=D.search,
                    help="model: measure each problem's configs in the order the pipeline models predict, re-ranked "
                         "as times arrive, and stop once the best is stable; the rest are skipped with their "
                         f"predicted rank (default {D.search}: every config)")
    group.addoption("--tlbench-search-fraction", type=_fraction, default=D.search_fraction, metavar="F",
                    help=f"with --tlbench-search=model: at most this share of a problem's configs is measured (default {D.search_fraction})")
    group.addoption("--tlbench-search-patience", type=_positive_int, default=D.search_patience, metavar="N",
                    help="with --tlbench-search=model: stop once the best stayed the best for N model-chosen "
                         f"measurements and none unmeasured is predicted 1%% faster (default {D.search_patience})")
    group.addoption("--tlbench-search-min-configs", type=_positive_int, default=D.search_min_configs, metavar="N",
                    help=f"with --tlbench-search=model: problems with fewer configs are measured whole (default {D.search_min_configs})")
    group.addoption("--tlbench-search-learn-from", action="append", default=[], metavar="RUN.json",
                    help="with --tlbench-search=model: an earlier run's results file (repeatable); its timed configs "
                         "of the same kernel on the same backend and device teach the ranker before the first measurement")
    group.addoption("--tlbench-drift-threshold", type=_fraction, default=D.drift_threshold, help=f"batch-median shift/trend that counts as drift (default {D.drift_threshold})")


def policy_from_options(getoption: Callable[[str], Any]) -> MeasurePolicy:
    spec = getoption("--tlbench-criterion") or D.criterion
    try:
        make_criterion(spec)
    except CriterionError as exc:
        raise pytest.UsageError(str(exc)) from None
    # each field's option is --tlbench-<field> (its type= has checked it)
    fields = ("rounds", "batch", "max_samples", "max_seconds", "drift_threshold", "search", "search_fraction",
              "search_patience", "search_min_configs")
    return MeasurePolicy(criterion=spec, interleave=getoption("tlbench_interleave"),
                         search_learn_from=tuple(getoption("--tlbench-search-learn-from") or ()),
                         **{f: getoption("--tlbench-" + f.replace("_", "-")) for f in fields})
