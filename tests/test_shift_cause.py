"""A whole-run shift names its cause from the records' kernel hashes: a changed kernel body is a
change of the kernel code, never "a toolchain or harness change" (a real CPU compile run, every
item's compile time x 1.2, with and without the kernel bodies changed).  A whole-run move of
compile time gates only where instruction counts moved with it (without counts it is NOISY:
test_compile_gate), so both runs get counts here, the new one's 5 % up with the time."""

import copy
import json
from pathlib import Path

from tlbench.harness.results.compare.compare import compare_runs
from tlbench.harness.results.compare.shift_cause import cause
from tlbench.harness.results.files.store import load_results, parse_results

BASE = Path(__file__).parent / "fixtures" / "compare" / "compile-cpu-base.json"


def _counted(doc: dict, factor: float) -> dict:
    for i, bench in enumerate(doc["benchmarks"]):
        count = int((700_000_000 + 10_000_000 * i) * factor)
        bench["extra_info"]["tlbench"]["instructions"] = {"counter": "callgrind", "event": "Ir", "lowering": [count]}
    return doc


def _slower(new_hash: str | None) -> dict:
    doc = _counted(copy.deepcopy(json.loads(BASE.read_text())), 1.05)
    for bench in doc["benchmarks"]:
        rec = bench["extra_info"]["tlbench"]
        rec["samples_s"] = [s * 1.2 for s in rec["samples_s"]]
        rec["cpu_samples_s"] = [s * 1.2 for s in rec["cpu_samples_s"]]
        bench["stats"]["data"] = rec["samples_s"]
        if new_hash is not None:
            rec["kernel_hash"] = new_hash
    return doc


def _shift(base_hash: str | None, new_hash: str | None):
    base = _counted(copy.deepcopy(json.loads(BASE.read_text())), 1.0)
    if base_hash is not None:
        for bench in base["benchmarks"]:
            bench["extra_info"]["tlbench"]["kernel_hash"] = base_hash
    cmp = compare_runs(parse_results(base, "base.json"), parse_results(_slower(new_hash), "new.json"))
    (shift,) = [s for s in cmp.shifts if s.verdict == "SHIFT" and "(instructions)" not in s.words]
    assert shift.gates  # the counts moved with the time: a shift that gates
    return shift


def test_a_changed_kernel_body_is_called_a_code_change():
    shift = _shift("sha256:old", "sha256:new")
    assert shift.words.startswith("WHOLE-RUN SHIFT") and "a change of the kernel code" in shift.words
    assert "toolchain or harness change" not in shift.words


def test_unchanged_bodies_are_the_toolchain_or_harness():
    shift = _shift("sha256:same", "sha256:same")
    assert shift.words.endswith("the kernel bodies are unchanged (kernel_hash, 14 of 14): a toolchain or harness change")


def test_without_hashes_it_says_it_cannot_tell():
    assert "carry no kernel_hash" in cause([({}, {})])
    assert "changed in 1 of 2 kernels" in cause([({"kernel_hash": "a"}, {"kernel_hash": "b"}), ({"kernel_hash": "c"}, {"kernel_hash": "c"})])
