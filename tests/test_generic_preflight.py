"""The preflight of a user's kernel suite, on CPU, before anything compiles: real tilelang
bodies written here, real pytest collection of the suites (pytester), and ``tlbench check``.

What is pinned: a suite whose reference takes the wrong number of inputs, whose body needs an
axis the suite does not sweep, whose axis is misspelled (with "did you mean"), whose reference
returns the wrong number of outputs, or whose reference raises, is refused in one line that
names the callable, the problem and the fix; its items fail with that line (stage
``preflight``) and pytest exits 1; ``tlbench check`` prints the same line and exits 1, a good
suite exits 0, a suite that does not import exits 2.  Nothing compiles: the run's trace has
no compile phase, no prefetch and no device phase, and the items' records say ``preflight``.
"""

import json

import pytest

pytest.importorskip("tilelang")

from tlbench.harness.cli import main as tlbench_main  # noqa: E402
from tlbench.harness.core import trace  # noqa: E402

KERNELS = '''
import tilelang
import tilelang.language as T


@tilelang.jit
def scale(A, tile, num_stages=1, threads=128):
    N = T.const("N")
    A: T.Tensor((N,), "float32")
    B = T.empty((N,), "float32")
    with T.Kernel(8, threads=threads) as bx:
        a = T.alloc_shared((tile,), "float32")
        b = T.alloc_fragment((tile,), "float32")
        for step in T.Pipelined(N // (8 * tile), num_stages=num_stages):
            begin = (step * 8 + bx) * tile
            T.copy(A[begin], a)
            for i in T.Parallel(tile):
                b[i] = a[i] * 2
            T.copy(b, B[begin])
    return B


def add_lazy(N, tile, num_stages):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"), C: T.Tensor((N,), "float32")):
        with T.Kernel(8, threads=128) as bx:
            a = T.alloc_shared((tile,), "float32")
            c = T.alloc_fragment((tile,), "float32")
            for step in T.Pipelined(N // (8 * tile), num_stages=num_stages):
                begin = (step * 8 + bx) * tile
                T.copy(A[begin], a)
                for i in T.Parallel(tile):
                    c[i] = a[i] + B[begin + i]
                T.copy(c, C[begin])
    return main
'''

SUITE = '''
import torch
from tlbench import kernel_sweep
from pre_kernels import add_lazy, scale

SWEEP = kernel_sweep(
    "{name}", {body},
    sizes={{"N": 16384}},
    axes={axes},
    inputs={inputs},
    reference={reference},
)

def test_{name}(tlbench):
    tlbench.run()
'''

TWO = "lambda device, N: [torch.randn(N, device=device), torch.randn(N, device=device)]"
ONE = "lambda device, N: [torch.randn(N, device=device)]"
CASES = {
    # name: (suite arguments, the one line the preflight must print)
    "arity": (dict(body="add_lazy", axes='{"tile": [1024], "num_stages": [1, 2]}', inputs=TWO, reference="lambda a: a * 2"),
              "preflight arity-N16384 (cuda body): reference (a lambda): it takes 1 positional argument(s), it is given 2 "
              "(the inputs); fix: take one parameter per tensor inputs() returns"),
    "missingaxis": (dict(body="add_lazy", axes='{"tile": [1024]}', inputs=TWO, reference="lambda a, b: a + b"),
                    "preflight missingaxis-N16384 (cuda body): body add_lazy: it takes 'num_stages', which no size, axis or "
                    "constant gives; fix: add it to sizes, axes or constants, or give it a default"),
    "misspelled": (dict(body="scale", axes='{"tile": [1024], "num_stage": [1, 2]}', inputs=ONE, reference="lambda a: a * 2"),
                   "preflight misspelled-N16384 (cuda body): axis 'num_stage': neither the body scale nor any callable takes "
                   "it (did you mean 'num_stages'?); fix: rename the axis to a name the body takes, or drop it"),
    "outputs": (dict(body="scale", axes='{"tile": [1024]}', inputs=ONE, reference="lambda a: (a * 2, a)"),
                "preflight outputs-N16384 (cuda body): reference (a lambda): it returned 2 tensor(s), the kernel has 1 "
                "output(s) (B); fix: return one tensor per output, in parameter order"),
    "raises": (dict(body="scale", axes='{"tile": [1024]}', inputs=ONE, reference="lambda a: a.reshape(3, -1)"),
               "preflight raises-N16384 (cuda body): reference (a lambda): raised RuntimeError: shape '[3, -1]' is invalid "
               "for input of size 16384; fix: make reference run on these arguments"),
}


@pytest.fixture
def project(pytester):
    pytester.makepyfile(pre_kernels=KERNELS)
    for name, (arguments, _) in CASES.items():
        pytester.makepyfile(**{f"test_{name}": SUITE.format(name=name, **arguments)})
    pytester.makepyfile(test_good=SUITE.format(name="good", body="scale", axes='{"tile": [1024], "num_stages": [1, 2]}',
                                               inputs=ONE, reference="lambda a: a * 2"))
    pytester.syspathinsert()
    return pytester


def test_each_bad_suite_fails_its_items_with_one_line_and_nothing_compiles(project, monkeypatch):
    trace_file = project.path / "trace.jsonl"
    monkeypatch.setenv(trace.ENV, str(trace_file))
    files = [f"test_{name}.py" for name in CASES]
    result = project.runpytest(*files, "-p", "no:cacheprovider", "--tlbench-backend=nvidia", "--tlbench-isolation=inprocess",
                               "--tlbench-compile-rounds=1", "--benchmark-json=out.json", "-rf")
    assert result.ret == 1
    text = result.stdout.str()
    for name, (_, line) in CASES.items():
        assert "\n" not in line
        assert text.count(f"[tlbench] {line}\n") == 1, (name, text[-4000:])  # once, at collection
    failed = json.loads((project.path / "out.json").read_text())["tlbench"]["failed"]
    assert len(failed) == 2 * (2 + 1 + 2 + 1 + 1)  # a compile and a device item per config of each suite
    assert {r["stage"] for r in failed} == {"preflight"}
    for record in failed:
        assert record["error"] == CASES[record["case_id"].split("-")[0]][1]
    events = {line["event"] for line in trace.read(trace_file)}
    assert "preflight" in events
    assert not events & {"compile phase start", "prefetch", "phase start", "chunk start"}, events


def test_tlbench_check_prints_the_line_and_exits_1_before_any_compile(project, capsys):
    for name, (_, line) in CASES.items():
        code = tlbench_main(["check", str(project.path / f"test_{name}.py"), "--backend", "nvidia"])
        out = capsys.readouterr().out
        assert code == 1, out
        assert out.splitlines()[0] == line
        assert out.splitlines()[-1].endswith("failing their preflight (nothing was compiled)")


def test_tlbench_check_passes_a_good_suite_and_refuses_one_that_does_not_import(project, capsys):
    assert tlbench_main(["check", str(project.path / "test_good.py"), "--backend", "nvidia"]) == 0
    said, summary = capsys.readouterr().out.strip().splitlines()  # what was checked at which sizes, then the verdict
    assert said.startswith("tlbench check: each suite's callables ran on CPU torch at its smoke size; each of the 1 problem(s)")
    assert summary == "tlbench check: 1 suite(s), 4 item(s), 0 failing their preflight: ok (nothing was compiled)"
    (project.path / "test_broken.py").write_text("import no_such_module_here\n")
    assert tlbench_main(["check", str(project.path / "test_broken.py")]) == 2
    assert "No module named 'no_such_module_here'" in capsys.readouterr().err


def test_the_trace_does_show_a_compile_when_a_suite_passes(project, monkeypatch):
    """The control of the first test: the same trace records a compile phase when one runs."""
    trace_file = project.path / "trace.jsonl"
    monkeypatch.setenv(trace.ENV, str(trace_file))
    result = project.runpytest("test_good.py", "-p", "no:cacheprovider", "--tlbench-backend=nvidia", "--tlbench-kind=compile",
                               "--tlbench-isolation=inprocess", "--tlbench-compile-rounds=1")
    result.assert_outcomes(passed=2)
    assert "compile phase start" in {line["event"] for line in trace.read(trace_file)}

