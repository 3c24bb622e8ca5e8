"""The plugin's command-line options.

Contract: ``pytest_addoption(parser)`` adds every ``--tlbench-*`` option (each backend's own from
its traits); ``backend_option_values(config)`` is what ``BackendOptions`` carries;
``compile_settings(scope, rounds, max_seconds)`` the compile items' rounds and time cap.
"""

from __future__ import annotations

from ..core.backend_api import BackendOptions
from ..core.backend_traits import BackendOption, TraitsCatalog
from ..core.sweep import SCOPES
from ..measure import instructions
from ..measure.options import add_measure_options
from ..measure.option_types import non_negative_float, positive_int
from . import isolation, journaling, overlap_start, sharding
from .preflight import DEFAULT_DEVICE_GIB


# Compile items by scope: the quick scope (the main job) takes fewer rounds and caps an item's
# rounds by time, so one slow lowering (a flash-attention Z3 schedule: 6-15 s on a 2-core box)
# costs one round, not five; smoke and full (the nights) keep five and no cap.
QUICK_COMPILE_ROUNDS, COMPILE_ROUNDS = 3, 5
QUICK_COMPILE_MAX_S = 3.0


def compile_settings(scope: str, rounds: int | None, max_seconds: float | None) -> tuple[int, float | None]:
    """(rounds, the per-item cap in seconds or None) from the options, defaults by ``scope``."""
    quick = scope == "quick"
    rounds = rounds if rounds is not None else (QUICK_COMPILE_ROUNDS if quick else COMPILE_ROUNDS)
    cap = max_seconds if max_seconds is not None else (QUICK_COMPILE_MAX_S if quick else None)
    return rounds, (cap or None)


def pytest_addoption(parser):
    group = parser.getgroup("tlbench", "tlbench: TileLang pipeline benchmarks")
    group.addoption("--tlbench-backend", dest="tlbench_backend", default="auto",
                    help="a backend name, a comma list, or auto (default: every backend that compiles here)")
    for option in backend_options():
        group.addoption(option.name, dest="tlbench_backend_option_" + option.dest, default=option.default,
                        help=option.help, **({"choices": option.choices} if option.choices else {}))
    group.addoption("--tlbench-kind", default="all", choices=("compile", "device", "all"), help="which measure kinds to run")
    group.addoption("--tlbench-scope", default="quick", choices=SCOPES,
                    help="quick (default): the small complete story each suite declares, compile items lower only; "
                         "smoke: small problems; full: every sweep, compile items time lowering + build")
    group.addoption("--tlbench-compile-rounds", type=positive_int, default=None,
                    help=f"cold rounds per compile item, taken round-robin over a backend's compile items (default "
                         f"{QUICK_COMPILE_ROUNDS} in the quick scope, {COMPILE_ROUNDS} in smoke and full)")
    group.addoption("--tlbench-compile-max-seconds", type=non_negative_float, default=None, metavar="SECONDS",
                    help=f"an item's compile rounds stop once they took this many CPU seconds, after at least one (default "
                         f"{QUICK_COMPILE_MAX_S:g} in the quick scope, no limit in smoke and full; 0: no limit)")
    group.addoption("--tlbench-compile-jobs", default="auto", metavar="N|auto",
                    help="compile items timed at a time, each in its own worker process (default auto: half the "
                         "CPUs this process may use on a host with 8 or more, else 1; 1 under pytest-xdist workers "
                         "and with --tlbench-isolation inprocess). Each record says how many ran at a time")
    group.addoption("--tlbench-cache-dir", default=None, metavar="DIR",
                    help="where tlbench keeps answers worth reusing across runs, e.g. the inert-key probe "
                         "(default: $TLBENCH_CACHE_DIR, else $XDG_CACHE_HOME/tlbench, else ~/.cache/tlbench)")
    group.addoption("--tlbench-seed", type=int, default=None, help="input seed (default: random, recorded in the JSON)")
    add_measure_options(group)
    instructions.add_options(group)
    group.addoption("--tlbench-autotune", nargs="?", const="results/best_configs.json", default=None, metavar="PATH",
                    help="after the run, write the fastest correct config per problem to PATH (default results/best_configs.json)")
    group.addoption("--tlbench-profile", default=None, metavar="FILE.json",
                    help="a calibrated profile of this machine (tlbench calibrate -o FILE.json): device records "
                         "also get roofline_calibrated, %% of its copy bandwidth and matmul peak, beside the datasheet's")
    group.addoption("--tlbench-devices", dest="tlbench_devices", default=None,
                    help="device ids for pytest-xdist workers, e.g. 0,1 (default: all the backends' devices visible)")
    group.addoption("--tlbench-device-memory", type=non_negative_float, default=None, metavar="GIB",
                    help="the device memory (GiB) the preflight holds each problem's inputs, outputs and reference "
                         "against, at their real sizes (default: what the backend's device reports; with no device, "
                         f"as on a CPU box, {DEFAULT_DEVICE_GIB} GiB)")
    group.addoption("--tlbench-preflight-only", action="store_true", default=False,
                    help="collect and run each suite's preflight only: no search-space diagnostics, no inert-key "
                         "lowering (what `tlbench check PATH` runs)")
    journaling.add_options(group)
    isolation.add_options(group)
    overlap_start.add_options(group)
    sharding.add_options(group)


def backend_options() -> list[BackendOption]:
    """Every backend's own options, from its traits (loaded without its toolchain)."""
    return [o for traits in TraitsCatalog.from_entry_points().all() for o in traits.options]


def backend_option_values(config) -> BackendOptions:
    """Each backend option's value, under the key its backend reads."""
    values = {o.dest: config.getoption("tlbench_backend_option_" + o.dest) for o in backend_options()}
    values["cold_build"] = config.getoption("--tlbench-scope") != "quick"  # quick: compile items lower only
    return BackendOptions(values)
