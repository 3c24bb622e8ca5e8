"""A failing compile keeps its full traceback: real tilelang bodies, the real plugin (pytester,
in a subprocess), NVIDIA compile items on a CPU box.

- A bug in the user's own code (a helper the factory calls, for a config after the first, which
  the preflight traces): the item's line names the body; ``-v`` prints the traceback with
  that helper's frame; without ``-v`` the failure section and the summary keep one line and
  say where the traceback is; the results file's ``tlbench.failed[].traceback`` and the
  journal hold it either way.
- A kernel a tilelang pass rejects (no warp partition for a 48x48 ``T.gemm`` tile): the
  traceback names the failing pass (``LayoutInferencer``), not tlbench's wrapper.
The compile runs in the backend's worker process: the traceback crosses that boundary as text.
- The same bug in the config the preflight traces fails the items at the preflight, before any
  compile: that failure keeps the traceback of the exception behind it too.
"""

import json

import pytest

pytest.importorskip("tilelang")

KERNELS = '''
import tilelang.language as T


def tile_count_of(N, tile):
    if tile < 100:
        return N // (tile - tile)  # the user's bug
    return N // tile


def divides_by_zero(N, tile):
    count = tile_count_of(N, tile)

    @T.prim_func
    def main(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32")):
        with T.Kernel(count, threads=128) as bx:
            for i in T.Parallel(tile):
                Y[bx * tile + i] = X[bx * tile + i]
    return main


def always_divides_by_zero(N, tile):
    return divides_by_zero(N, tile // 2)


def no_warp_partition(N, tile):
    @T.prim_func
    def main(X: T.Tensor((N, N), "float16"), Y: T.Tensor((N, N), "float16")):
        with T.Kernel(N // tile, threads=128) as bx:
            a = T.alloc_shared((tile, tile), "float16")
            c = T.alloc_fragment((tile, tile), "float32")
            T.copy(X[bx * tile, 0], a)
            T.gemm(a, a, c)
            T.copy(c, Y[bx * tile, 0])
    return main
'''

USER_BUG_SUITE = '''
import torch
from tlbench.harness.sweep_api import kernel_sweep
from failing_kernels import divides_by_zero

SWEEP = kernel_sweep("userbug", divides_by_zero, sizes={"N": 1024}, axes={"tile": [128, 64]}, smoke={"N": 512}, quick={"N": 1024},
                     inputs=lambda device, N: [torch.randn(N, device=device)], reference=lambda x: x)

def test_userbug(tlbench):
    tlbench.run()
'''

PREFLIGHT_BUG_SUITE = '''
import torch
from tlbench.harness.sweep_api import kernel_sweep
from failing_kernels import always_divides_by_zero

SWEEP = kernel_sweep("preflightbug", always_divides_by_zero, sizes={"N": 1024}, axes={"tile": [128]},
                     inputs=lambda device, N: [torch.randn(N, device=device)], reference=lambda x: x)

def test_preflightbug(tlbench):
    tlbench.run()
'''

PASS_FAILS_SUITE = '''
import torch
from tlbench.harness.sweep_api import kernel_sweep
from failing_kernels import no_warp_partition

SWEEP = kernel_sweep("passfails", no_warp_partition, sizes={"N": 192}, axes={"tile": [48]},
                     inputs=lambda device, N: [torch.randn(N, N, device=device).half()], reference=lambda x: x)

def test_passfails(tlbench):
    tlbench.run()
'''


def _run(pytester, *args):
    pytester.makepyfile(failing_kernels=KERNELS, test_userbug_suite=USER_BUG_SUITE, test_passfails_suite=PASS_FAILS_SUITE,
                         test_preflightbug_suite=PREFLIGHT_BUG_SUITE)
    return pytester.runpytest_subprocess("--tlbench-backend=nvidia", "--tlbench-kind=compile", "--tlbench-compile-rounds=1",
                                         "--benchmark-json=out.json", "-p", "no:cacheprovider", *args, timeout=900)


def _failed(pytester):
    return {f["case_id"]: f for f in json.loads((pytester.path / "out.json").read_text())["tlbench"]["failed"]}


def test_verbose_prints_the_traceback_with_the_failing_frame_and_the_record_and_journal_hold_it(pytester):
    result = _run(pytester, "-v")
    assert result.ret == 1, result.stdout.str()[-3000:]
    out = result.stdout.str()
    assert "in tile_count_of" in out and "return N // (tile - tile)  # the user's bug" in out
    assert "ZeroDivisionError: integer division or modulo by zero" in out
    failed = _failed(pytester)
    bug, rejected = failed["userbug-N1024-tile64"], failed["passfails-N192-tile48"]
    assert ", in tile_count_of\n" in bug["traceback"] and ", in divides_by_zero\n" in bug["traceback"]
    assert "CompileError" not in bug["traceback"]  # the cause's traceback, not tlbench's wrapper around it
    assert "tvm::tl::LayoutInferencer" in rejected["traceback"] and "No valid warp partition" in rejected["traceback"]
    caught = failed["preflightbug-N1024-tile128"]  # the preflight caught this one before any compile: its traceback too
    assert caught["stage"] == "preflight" and ", in tile_count_of\n" in caught["traceback"]
    journal = [json.loads(line) for line in (pytester.path / "out.journal.jsonl").read_text().splitlines()]
    kept = {e["outcome"]["case_id"]: e["outcome"].get("traceback", "") for e in journal if e.get("type") == "item"}
    assert ", in tile_count_of\n" in kept["userbug-N1024-tile64"]


def test_without_verbose_one_line_says_where_the_traceback_is(pytester):
    result = _run(pytester)
    assert result.ret == 1
    out = result.stdout.str()
    assert "in tile_count_of" not in out  # not printed ...
    result.stdout.fnmatch_lines([
        "[[]compile[]]: body divides_by_zero raised ZeroDivisionError (kernel userbug, problem userbug-N1024, config tile64): "
        "integer division or modulo by zero",
        "(its traceback: pytest -v or --tb=long prints it; *)",
        "  FAILED compile userbug-N1024-tile64: [[]compile[]]: body divides_by_zero raised ZeroDivisionError *",
        "  tracebacks: pytest -v (or --tb=long) prints each; *",
    ])
    assert ", in tile_count_of\n" in _failed(pytester)["userbug-N1024-tile64"]["traceback"]  # ... but kept
    assert "in tile_count_of" in _run(pytester, "--tb=long").stdout.str()
