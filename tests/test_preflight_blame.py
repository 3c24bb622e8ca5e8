"""The preflight and the compile item blame what is wrong, on CPU with a real tilelang body
written here (defects the preflight had):

- a size nothing takes fails the preflight as an axis nothing takes does (it only multiplies
  problems that are the same kernel), while a size the body leaves symbolic, or ``dtype``, is
  tlbench's own and passes;
- a body whose Python code raises at compile time is named in the item's line (body, kernel,
  problem, config), not only its exception;
- a size of 0 that leaves an output with no element is blamed on the size, not on the check
  rule that cannot reject an empty poisoned output.
"""

import json
import subprocess
import sys

import pytest

pytest.importorskip("tilelang")

from tlbench.harness.cli import main as tlbench_main  # noqa: E402

KERNELS = '''
import tilelang.language as T


def doubled(N, block):
    if block > 256:
        raise ValueError("this body takes block <= 256")

    @T.prim_func
    def main(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, block), threads=128) as b:
            for k in T.Parallel(block):
                Y[b * block + k] = X[b * block + k] * 2
    return main


def doubled_rows(block):
    N = T.dynamic("N")

    @T.prim_func
    def main(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, block), threads=128) as b:
            for k in T.Parallel(block):
                Y[b * block + k] = X[b * block + k] * 2
    return main
'''

SUITE = '''
import torch
from tlbench import kernel_sweep
from blame_kernels import doubled, doubled_rows

SWEEP = kernel_sweep(
    "{name}", {{"cuda": {body}}},
    sizes={sizes},
    axes={{"block": {blocks}}},
    inputs=lambda device, N: [torch.randn(N, device=device)],
    reference=lambda x: x * 2,
)

def test_{name}(tlbench):
    tlbench.run()
'''


def suite(name: str, sizes: str, body: str = "doubled", blocks: str = "[128]") -> str:
    return SUITE.format(name=name, sizes=sizes, body=body, blocks=blocks)


@pytest.fixture
def project(pytester):
    pytester.makepyfile(blame_kernels=KERNELS)
    pytester.makepyfile(
        test_spare_size=suite("spare_size", '{"N": 1024, "batch": 4}'),
        test_spare_axis=suite("spare_axis", '{"N": 1024}').replace('{"block": [128]}', '{"block": [128], "unroll": [2]}'),
        test_dtype_size=suite("dtype_size", '{"N": 1024, "dtype": "float32"}'),
        test_zero=suite("zero", '{"N": 0}'),
        test_raises=suite("raises", '{"N": 1024}', blocks="[128, 512]"),
    )
    pytester.syspathinsert()
    return pytester


def _check(project, capsys, name: str) -> tuple[int, list[str]]:
    code = tlbench_main(["check", str(project.path / f"test_{name}.py"), "--backend", "nvidia"])
    return code, capsys.readouterr().out.splitlines()


def test_a_size_nothing_takes_fails_the_preflight_as_an_axis_does(project, capsys):
    code, lines = _check(project, capsys, "spare_axis")
    assert code == 1 and "axis 'unroll': neither the body doubled nor any callable takes it" in lines[0]
    code, lines = _check(project, capsys, "spare_size")
    assert code == 1, lines
    assert lines[0] == ("preflight spare_size-N1024-batch4 (cuda body): size 'batch': neither the body doubled nor any "
                        "callable takes it; fix: rename the size to a name the body takes, or drop it")


def test_a_symbolic_dimension_or_dtype_named_by_a_size_is_taken(project, capsys):
    # the body leaves N symbolic and nothing takes N (inputs takes L): tlbench binds N itself;
    # dtype is the roofline's peak
    text = suite("symbolic_size", '{"N": 1024, "L": 1024}', body="doubled_rows")
    project.makepyfile(test_symbolic_size=text.replace("lambda device, N: [torch.randn(N,", "lambda device, L: [torch.randn(L,"))
    code, lines = _check(project, capsys, "symbolic_size")
    assert code == 0, lines
    code, lines = _check(project, capsys, "dtype_size")
    assert code == 0, lines


def test_a_size_of_zero_is_blamed_not_the_check_rule(project, capsys):
    code, lines = _check(project, capsys, "zero")
    assert code == 1, lines
    assert lines[0] == ("preflight zero-N0 (cuda body): size 'N': at N=0 the kernel's output Y has shape (0,): no element to "
                        "write or check; fix: give every size a value above 0 (a problem the kernel runs on)")
    assert not [line for line in lines if ": check:" in line]


def test_a_body_that_raises_at_compile_time_is_named_in_the_items_line(project):
    run = subprocess.run([sys.executable, "-m", "pytest", "test_raises.py", "--benchmark-only", "--tlbench-backend=nvidia",
                          "--tlbench-kind=compile", "--tlbench-scope=smoke", "--tlbench-compile-rounds=1",
                          "--benchmark-json=out.json", "-p", "no:cacheprovider", "-q"],
                         capture_output=True, text=True, cwd=project.path, timeout=600)
    (failed,) = json.loads((project.path / "out.json").read_text())["tlbench"]["failed"]
    assert failed["case_id"] == "raises-N1024-block512"
    assert failed["error"] == ("body doubled raised ValueError (kernel raises, problem raises-N1024, config block512): "
                               "this body takes block <= 256"), failed["error"]
    assert "FAILED compile raises-N1024-block512: [compile]: body doubled raised ValueError" in run.stdout, run.stdout[-2000:]
