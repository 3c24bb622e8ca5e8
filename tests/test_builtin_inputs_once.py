"""The built-in suites make their inputs once per problem, as before they were declared through
kernel_sweep: no built-in ``inputs`` names an axis (a ``**sizes`` inputs is given every axis, and
the flash-attention suites made Q, K, V and the fp32 reference again for each of 22 configs: 0.2-0.4 s
an item on the H200).  Reads each suite's SWEEP; nothing is compiled."""

import importlib
import importlib.util
import sys
from pathlib import Path

import pytest

SUITES = Path(__file__).resolve().parent.parent / "suites"
BUILT_IN = ["test_stages", "test_tiles", "test_core_pipelining", "test_ascend_schedule",
            "test_fa_stages", "test_fa_causal", "test_fa_ascend_schedule"]


@pytest.fixture(scope="module")
def on_path():
    sys.path.insert(0, str(SUITES))
    yield
    sys.path.remove(str(SUITES))


@pytest.mark.parametrize("suite", BUILT_IN)
def test_one_inputs_key_per_problem(on_path, suite):
    spec = importlib.util.spec_from_file_location(f"builtin_suite_{suite}", SUITES / f"{suite}.py")  # tests/ has its own test_ascend_schedule
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sweep = module.SWEEP
    checked = 0
    for backend, dialect in (("nvidia", "cuda"), ("ascend", "ascend")):
        for scope in ("quick", "smoke", "full"):
            cases = [c for c in sweep.cases(backend, scope, dialect=dialect, load_best=lambda *_: None) if getattr(c, "config", None) is not None]
            by_problem: dict[str, set[str]] = {}
            for case in cases:
                key = case.problem.family.inputs_key(case.problem, case.config)
                by_problem.setdefault(case.problem.problem_id, set()).add(repr(key))
            assert all(len(keys) == 1 for keys in by_problem.values()), (backend, scope, {p: len(k) for p, k in by_problem.items()})
            checked += len(cases)
    assert checked > 0
