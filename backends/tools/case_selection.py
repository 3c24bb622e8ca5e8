"""Which cases of which suites a campaign tool works on: a suite file's ``SWEEP`` and pytest's
``-k`` rule over case ids, with no GPU and no torch.

Contract: ``load_sweep(path)``, ``keyword_matches(expression, case_id)`` and ``select(...)``
(kernels, then vendor items, each id once); a bad selection is a ``UsageProblem``: the tool
prints its one line and exits 2.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any, Callable, Sequence


class UsageProblem(Exception):
    """Bad input: main prints the one line and exits 2."""


def load_sweep(path: str) -> Any:
    if not Path(path).is_file():
        raise UsageProblem(f"--suite {path}: no such file")
    spec = importlib.util.spec_from_file_location(f"crosscheck_suite_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not hasattr(module, "SWEEP"):
        raise UsageProblem(f"--suite {path}: declares no SWEEP")
    return module.SWEEP


def keyword_matches(expression: str | None, case_id: str) -> bool:
    """pytest's ``-k`` rule over one case id: each word a case-insensitive substring, with and/or/not."""
    if not expression:
        return True
    from _pytest.mark.expression import Expression

    try:
        compiled = Expression.compile(expression)
    except Exception as exc:  # pytest's ParseError
        raise UsageProblem(f"-k {expression!r}: {exc}") from None
    return compiled.evaluate(lambda name, **_: name.lower() in case_id.lower())


def select(sweeps: Sequence[Any], keyword: str | None, case_ids: Sequence[str], load_best: Callable | None = None,
           backend: str = "nvidia", scope: str = "full") -> list[Any]:
    """The selected cases (kernels, then vendor items, suite by suite), each id once."""
    found: dict[str, Any] = {}
    for sweep in sweeps:
        for case in [*sweep.cases(backend, scope, load_best=load_best), *sweep.vendor_cases(backend, scope, "cuda")]:
            found.setdefault(case.case_id, case)
    unknown = [c for c in case_ids if c not in found]
    if unknown:
        raise UsageProblem(f"--case {unknown[0]}: not a case of the given suites at the full scope")
    chosen = [c for cid, c in found.items() if (not case_ids or cid in case_ids) and keyword_matches(keyword, cid)]
    if not chosen:
        raise UsageProblem(f"no case of {len(found)} matches -k {keyword!r} and --case {list(case_ids)}")
    return chosen
