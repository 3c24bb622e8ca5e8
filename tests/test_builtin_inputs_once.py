"""The built-in suites make their inputs once per problem, as before they were declared through
kernel_sweep: no built-in ``inputs`` names an axis (a ``**sizes`` inputs is given every axis, and
the flash-attention suites made Q, K, V and the fp32 reference again for each of 22 configs: 0.2-0.4 s
an item on the H200).  Reads each suite's SWEEP; nothing is compiled."""

import importlib

import pytest

BUILT_IN = ["test_stages", "test_tiles", "test_core_pipelining", "test_ascend_schedule",
            "test_fa_stages", "test_fa_causal", "test_fa_ascend_schedule"]


@pytest.mark.parametrize("suite", BUILT_IN)
def test_one_inputs_key_per_problem(suite):
    module = importlib.import_module(f"tlbench.suites.{'flash_attention' if suite.startswith('test_fa_') else 'gemm'}.{suite}")
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
