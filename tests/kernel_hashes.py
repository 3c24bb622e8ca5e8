"""Hash the generated kernel source of every case of every suite, for each backend.

Usage: ``python3 tests/kernel_hashes.py OUT.json [--suites DIR] [--backend NAME ...] [--traced]``
and ``python3 tests/kernel_hashes.py --compare BEFORE.json AFTER.json``.

For a refactor that must not change a built-in kernel: before and after it, this writes
``{backend: {case_id: sha256 of backend.kernel_source(case)}}`` for every case any scope
(quick, smoke, full) of every ``suites/<family>/test_*.py`` declares (with any recorded ``best`` case),
lowered by the real backends (tilelang's CUDA codegen; the Ascend pipeline's AscendC).  A case
the compiler refuses is hashed by its error's first line (``error: ...``), so a refusal that
changes shows too.  ``--traced`` hashes instead what the backend would lower: the case's
PrimFunc as its family builds it for the backend's dialect (TVMScript with metadata) and the
traits that reach the compiler (pass configs, out_idx, target) - seconds for every case where
lowering them (flash attention on Ascend: 10-30 s a case) takes an hour; the same PrimFunc and
traits lower to the same kernel.  ``--compare`` prints each case whose hash differs or that is only on one
side, and exits 1 if there is any, else prints how many matched and exits 0.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

SCOPES = ("quick", "smoke", "full")


def _suite_sweeps(suites: Path) -> list[tuple[str, Any]]:
    out = []
    if str(suites.resolve()) not in sys.path:  # a flat folder's suite imports its sibling body module, as under pytest
        sys.path.insert(0, str(suites.resolve()))
    families = (p for p in suites.glob("*/test_*.py") if (p.parent / "__init__.py").is_file())  # suites/<family>/, not conformance/
    for path in sorted([*suites.glob("test_*.py"), *families]):
        spec = importlib.util.spec_from_file_location(f"_tlbench_suite_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sweep = getattr(module, "SWEEP", None)
        if sweep is not None:
            out.append((path.name, sweep))
    return out


def _cases(sweeps: list[tuple[str, Any]], backend: str, root: Path) -> dict[str, Any]:
    from tlbench.harness.results.export.best_configs import load_best

    def best(path, name, problem, device):
        return load_best(root / path, name, problem, device)

    cases: dict[str, Any] = {}
    for _, sweep in sweeps:
        for scope in SCOPES:
            for case in sweep.cases(backend, scope, None, best):
                cases.setdefault(case.case_id, case)
    return cases


def _hash(backend: Any, case: Any) -> str:
    try:
        source = backend.kernel_source(case)
    except Exception as exc:  # noqa: BLE001 - a refusal is part of what must not move
        first = (str(exc).strip().splitlines() or [""])[0]
        return f"error: {type(exc).__name__}: {first}"
    return hashlib.sha256(source.encode()).hexdigest()


def _traced_hash(backend: Any, case: Any) -> str:
    from tlbench.harness.core.kernel_traits import kernel_traits

    try:
        func = case.family.build(case.problem, case.config, backend.dialect)
        traits = kernel_traits(case, backend.dialect)
        compiled_with = [sorted((k, repr(v)) for k, v in traits.pass_configs.items()), traits.out_idx, repr(traits.target)]
        text = func.script(show_meta=True) + "\n" + json.dumps(compiled_with)
    except Exception as exc:  # noqa: BLE001 - a refusal is part of what must not move
        first = (str(exc).strip().splitlines() or [""])[0]
        return f"error: {type(exc).__name__}: {first}"
    return hashlib.sha256(text.encode()).hexdigest()


def dump(out: Path, suites: Path, backends: list[str], traced: bool = False) -> None:
    from tlbench.harness.core.backend_api import BackendOptions
    from tlbench.harness.core.registry import BackendRegistry

    registry = BackendRegistry.from_entry_points(BackendOptions())
    sweeps = _suite_sweeps(suites)
    result: dict[str, dict[str, str]] = {}
    for name in backends:
        backend = registry.get(name)
        cases = _cases(sweeps, name, suites.parent)
        result[name] = {}
        for i, (case_id, case) in enumerate(sorted(cases.items()), 1):
            result[name][case_id] = (_traced_hash if traced else _hash)(backend, case)
            print(f"[{name} {i}/{len(cases)}] {case_id} {result[name][case_id][:16]}", flush=True)
            out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")  # partial progress survives
    out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")


def compare(before: Path, after: Path) -> int:
    a, b = json.loads(before.read_text()), json.loads(after.read_text())
    diffs, same = [], 0
    for backend in sorted(set(a) | set(b)):
        left, right = a.get(backend, {}), b.get(backend, {})
        for case_id in sorted(set(left) | set(right)):
            if case_id not in right:
                diffs.append(f"{backend} {case_id}: only in {before}")
            elif case_id not in left:
                diffs.append(f"{backend} {case_id}: only in {after}")
            elif left[case_id] != right[case_id]:
                diffs.append(f"{backend} {case_id}: {left[case_id][:16]} -> {right[case_id][:16]}")
            else:
                same += 1
    for line in diffs:
        print(line)
    errors = sum(1 for side in a.values() for h in side.values() if h.startswith("error:"))
    print(f"{same} kernel sources identical ({errors} of them compiler refusals), {len(diffs)} differ")
    return 1 if diffs else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path, help="OUT.json, or BEFORE.json AFTER.json with --compare")
    parser.add_argument("--compare", action="store_true")
    parser.add_argument("--suites", type=Path, default=Path("suites"))
    parser.add_argument("--backend", action="append", help="default: nvidia and ascend")
    parser.add_argument("--traced", action="store_true", help="hash each case's PrimFunc and compile traits, not its lowered source")
    args = parser.parse_args(argv)
    if args.compare:
        if len(args.files) != 2:
            parser.error("--compare takes BEFORE.json AFTER.json")
        return compare(*args.files)
    if len(args.files) != 1:
        parser.error("give one OUT.json (or --compare BEFORE.json AFTER.json)")
    dump(args.files[0], args.suites, args.backend or ["nvidia", "ascend"], args.traced)
    return 0


if __name__ == "__main__":
    sys.exit(main())
