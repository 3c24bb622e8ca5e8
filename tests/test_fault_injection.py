"""The TEST-ONLY NVIDIA fault kernels (tests/test_only/fault_injection.py) build as intended:
the out-of-bounds store is not guarded by tilelang, the spinning loop is really there.
Real tilelang lowering and nvcc (skipped without them); the kernels run only on the H200."""

import shutil

import pytest

from test_only.fault_injection import TestOnlyFaults


def test_option_is_parsed_and_bad_kinds_are_refused():
    faults = TestOnlyFaults.parse("gemm-a=oob, gemm-b=spin")
    assert faults.by_case == {"gemm-a": "oob", "gemm-b": "spin"}
    assert TestOnlyFaults.parse(None) is None
    with pytest.raises(ValueError, match="KIND in oob, spin, got 'gemm-a=boom'"):
        TestOnlyFaults.parse("gemm-a=boom")


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc to build the kernels")
def test_the_fault_kernels_are_what_they_claim():
    pytest.importorskip("tilelang")
    import tvm

    target = tvm.target.Target({"kind": "cuda", "arch": "sm_90a"})
    faults = TestOnlyFaults.parse("x=oob,y=spin")
    oob = faults.kernel("oob", target).get_kernel_source()
    assert "C[Idx[" in oob and "0 <= Idx" not in oob  # an unguarded, data-dependent store
    spin = faults.kernel("spin", target).get_kernel_source()
    assert spin.count("< 2147483647;") == 2  # two nested loops of 2^31 - 1 trips around the store
