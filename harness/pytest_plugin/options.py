"""The plugin's command-line options.

Contract: ``pytest_addoption(parser)`` adds every ``--tlbench-*`` option to the ``tlbench``
group: tlbench's own, the measurement layer's, the journal's, and each backend's own
options from its traits (``BackendTraits.options``, e.g. ``--tlbench-nvidia-arch``).
``backend_option_values(config)`` is what ``BackendOptions`` carries.
"""

from __future__ import annotations



from tlbench.harness.core.backend_api import BackendOptions
from tlbench.harness.core.backend_traits import BackendOption, TraitsCatalog
from tlbench.harness.core.sweep import SCOPES
from tlbench.harness.measure import instructions
from tlbench.harness.measure.options import add_measure_options
from tlbench.harness.measure.option_types import positive_int
from tlbench.harness.pytest_plugin import isolation, journaling, sharding


def pytest_addoption(parser):
    group = parser.getgroup("tlbench", "tlbench: TileLang pipeline benchmarks")
    group.addoption("--tlbench-backend", dest="tlbench_backend", default="auto",
                    help="a backend name, a comma list, or auto (default: every backend that compiles here)")
    for option in backend_options():
        group.addoption(option.name, dest=option_dest(option), default=option.default,
                        help=option.help, **({"choices": option.choices} if option.choices else {}))
    group.addoption("--tlbench-kind", default="all", choices=("compile", "device", "all"), help="which measure kinds to run")
    group.addoption(
        "--tlbench-scope",
        default="quick",
        choices=SCOPES,
        help="quick (default): the small complete story each suite declares, compile items lower only; "
        "smoke: small problems; full: every sweep, compile items time lowering + build",
    )
    group.addoption("--tlbench-compile-rounds", type=positive_int, default=5,
                    help="cold builds per compile item, taken round-robin over a backend's compile items (default 5)")
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
    group.addoption(
        "--tlbench-autotune",
        nargs="?",
        const="results/best_configs.json",
        default=None,
        metavar="PATH",
        help="after the run, write the fastest correct config per problem to PATH (default results/best_configs.json)",
    )
    group.addoption("--tlbench-profile", default=None, metavar="FILE.json",
                    help="a calibrated profile of this machine (tlbench calibrate -o FILE.json): device records "
                         "also get roofline_calibrated, %% of its copy bandwidth and matmul peak, beside the datasheet's")
    group.addoption("--tlbench-devices", dest="tlbench_devices", default=None,
                    help="device ids for pytest-xdist workers, e.g. 0,1 (default: all the backends' devices visible)")
    group.addoption("--tlbench-preflight-only", action="store_true", default=False,
                    help="collect and run each suite's preflight only: no search-space diagnostics, no inert-key "
                         "lowering (what `tlbench check PATH` runs)")
    journaling.add_options(group)
    isolation.add_options(group)
    sharding.add_options(group)


def backend_options() -> list[BackendOption]:
    """Every backend's own options, from its traits (loaded without its toolchain)."""
    return [o for traits in TraitsCatalog.from_entry_points().all() for o in traits.options]


def option_dest(option: BackendOption) -> str:
    return "tlbench_backend_option_" + option.dest


def backend_option_values(config) -> BackendOptions:
    """Each backend option's value, under the key its backend reads."""
    values = {o.dest: config.getoption(option_dest(o)) for o in backend_options()}
    values["cold_build"] = config.getoption("--tlbench-scope") != "quick"  # quick: compile items lower only
    return BackendOptions(values)
