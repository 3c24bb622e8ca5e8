"""Every size, cheaply: ``tlbench check`` and the collection preflight check every
problem the scope runs at its own size on torch's meta device, nothing allocated - the body
traced, the inputs' count, dtypes and shapes, each output non-empty, the reference's answers -
and the memory the inputs, outputs and reference need against the device's (``--device-memory``
GiB; 80 GiB on a CPU box).  Real tilelang and CPU torch; the suites are written here.
"""

import pytest

pytest.importorskip("tilelang")

from tlbench.harness.cli import main as tlbench_main  # noqa: E402

# pytester's inline runs put sys.modules back after each run, and the first op on torch's meta
# device imports torch's symbolic-shape stack, which refuses a second import: taken here, once
torch = pytest.importorskip("torch")
torch.empty(1, device="meta") * 2

KERNELS = '''
import tilelang.language as T


def doubled(N, block):
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
from sized_kernels import doubled


def rows_of_2048(device, N):
    return [torch.randn(N, device=device).reshape(-1, 2048).reshape(-1)]  # only a multiple of 2048 reshapes


def doubled_through_an_outer_product(x, N):
    return (x[:, None] * torch.full((N, N), 2.0, device=x.device)).sum(1) / N  # an N x N fp32 intermediate


SWEEP = kernel_sweep(
    "{name}", {{"cuda": doubled}},
    sizes=[{{"N": 4096}}, {{"N": {big}}}],
    smoke={{"N": 4096}},
    axes={{"block": [128]}},
    inputs={inputs},
    reference={reference},
)

def test_{name}(tlbench):
    tlbench.run()
'''


@pytest.fixture
def project(pytester):
    pytester.makepyfile(sized_kernels=KERNELS)
    pytester.makepyfile(
        test_full_only=SUITE.format(name="full_only", big=5000, inputs="rows_of_2048", reference="lambda x: x * 2"),
        test_huge_reference=SUITE.format(name="huge_reference", big=300000, inputs="lambda device, N: [torch.randn(N, device=device)]",
                                         reference="doubled_through_an_outer_product"),
        test_wide=SUITE.format(name="wide", big=2**34, inputs="lambda device, N: [torch.randn(N).to(device)]",  # made on CPU, moved
                               reference="lambda x: x * 2"),
        test_fits=SUITE.format(name="fits", big=8192, inputs="lambda device, N: [torch.randn(N, device=device)]",
                               reference="doubled_through_an_outer_product"),
    )
    pytester.syspathinsert()
    return pytester


def _check(project, capsys, name: str, *more: str) -> tuple[int, list[str]]:
    code = tlbench_main(["check", str(project.path / f"test_{name}.py"), "--backend", "nvidia", *more])
    return code, capsys.readouterr().out.splitlines()


def test_inputs_that_fail_only_at_the_full_size_are_caught(project, capsys):
    code, lines = _check(project, capsys, "full_only")
    assert code == 1, lines
    assert lines[0] == ("preflight full_only-N5000 (cuda body): inputs rows_of_2048: at N=5000 it raised RuntimeError: shape "
                        "'[-1, 2048]' is invalid for input of size 5000; fix: make inputs run at every size the scope runs")
    assert lines[-1] == "tlbench check: 1 suite(s), 4 item(s), 2 failing their preflight (nothing was compiled)"
    code, lines = _check(project, capsys, "full_only", "--scope", "smoke")  # the smoke scope runs N=4096 alone
    assert code == 0, lines


def test_a_reference_needing_more_memory_than_the_device_is_refused_naming_it(project, capsys):
    code, lines = _check(project, capsys, "huge_reference")
    assert code == 1, lines
    assert lines[0] == ("preflight huge_reference-N300000 (cuda body): reference doubled_through_an_outer_product: at "
                        "N=300000 it needs 670.55 GiB for the tensors it makes, beside the inputs (1.14 MiB) and outputs "
                        "(1.14 MiB): 670.55 GiB, more than the device's 80.00 GiB; fix: compute the reference in pieces (a "
                        "loop over rows or blocks), or give --tlbench-device-memory the memory of the device it runs on")
    code, lines = _check(project, capsys, "huge_reference", "--device-memory", "1024")
    assert code == 0, lines


def test_inputs_and_outputs_past_the_device_are_refused_and_never_allocated(project, capsys):
    # inputs() makes its tensor without device= and moves it: meta is torch's default device there too,
    # so 64 GiB are never allocated on this box
    code, lines = _check(project, capsys, "wide")
    assert code == 1, lines
    assert lines[0] == ("preflight wide-N17179869184 (cuda body): inputs (a lambda): at N=17179869184 the inputs (64.00 GiB) "
                        "and outputs (64.00 GiB) need more than the device's 80.00 GiB; fix: leave this size out, or give "
                        "--tlbench-device-memory the memory of the device it runs on")


def test_the_check_says_what_ran_and_at_which_sizes(project, capsys):
    code, lines = _check(project, capsys, "fits")  # two 8192 x 8192 fp32 tensors: 0.5 GiB, nothing allocated, it fits
    assert code == 0, lines
    assert lines[-2] == ("tlbench check: each suite's callables ran on CPU torch at its smoke size; each of the 2 problem(s) "
                         "of the full scope at its own size: the body traced, the inputs, outputs and reference on torch's "
                         "meta device (shapes, dtypes, counts; memory against 80 GiB) where no note says otherwise")
    code, lines = _check(project, capsys, "fits", "--device-memory", "0.1")
    assert code == 1 and "reference doubled_through_an_outer_product: at N=8192 it needs 256.00 MiB" not in lines[0]  # two N x N fp32 tensors live at once
    assert "at N=8192 it needs 0.50 GiB for the tensors it makes" in lines[0] and "device's 0.10 GiB" in lines[0]


def test_the_memory_peak_counts_what_lives_at_once():
    from tlbench.backends.kernels.generic.preflight_sizes import MemoryPeak

    x = torch.empty(1024, device="meta")  # 4 KiB, made before: not the call's
    with MemoryPeak().watching() as peak:
        for _ in range(3):
            y = torch.ones(1 << 20, device="meta") * x.sum()  # 4 MiB for ones, 4 MiB for the product, the last y freed
        x.add_(1)  # in place: nothing new
        x[:10].mul_(2)  # a view: nothing new
    assert 8 << 20 < peak.peak <= (12 << 20) + 16 and y.shape == (1 << 20,)
