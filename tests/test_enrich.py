"""tlbench.harness.pytest_plugin.enrich on the real backends' hash and profile methods.

The vendor item is device-only, so no CPU suite run reaches it: on the H200 its record
crashed in ``kernel_body_hash`` (a VendorCase has no config).  These pin the rule with the
real NVIDIA and Ascend backends, constructed here without a device.
"""

import pytest

from tlbench.harness.pytest_plugin.enrich import enrich_record

pytest.importorskip("tilelang")


def _backends():
    from tlbench.backends.ascend import AscendBackend
    from tlbench.backends.nvidia import NvidiaBackend
    from tlbench.harness.core.backend_api import BackendOptions

    return [NvidiaBackend(BackendOptions({})), AscendBackend(BackendOptions({}))]


@pytest.mark.parametrize("index", [0, 1])
def test_vendor_record_has_no_kernel_hash_and_does_not_raise(index):
    from builtin_gemm import gemm_vendor, problem

    backend = _backends()[index]
    record = {"kind": "device", "throughput": {"tflops": 100.0}, "summary": {"median": 1e-3}}
    enrich_record(record, backend, gemm_vendor(problem(1024, 1024, 1024)))
    assert record["kernel_hash"] is None


@pytest.mark.parametrize("index", [0, 1])
def test_kernel_record_gets_the_body_hash(index):
    from builtin_gemm import config, gemm_case, problem

    backend = _backends()[index]
    case = gemm_case(problem(1024, 1024, 1024), config(128, 128, 32))
    record = {"kind": "compile"}
    enrich_record(record, backend, case)
    assert isinstance(record["kernel_hash"], str) and len(record["kernel_hash"]) >= 8
