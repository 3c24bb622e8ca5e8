"""On a CUDA GPU (skipped elsewhere): a user's memory-bound kernel whose row count is
``T.dynamic("M")`` with a ``T.ceildiv(M, block_M)`` grid, and a vendor call of two kernels,
green on the first run with NVML unavailable.

Pinned: every device item passes its check on two problems (one binary serves both row
counts; the outputs sized from the tensors ``inputs()`` made); the kernel is read in GB/s
against the memory bandwidth (datasheet for a GPU tlbench has a profile of, else the one the
device reports), with no nvidia-ml-py - a ``pynvml`` that fails to import stands in for its
absence (a test-only stand-in, on the child's path only); the vendor item, ``relu(2 * x)`` in
torch (a multiply kernel and a ReLU kernel), says its kernel-only time is the sum of its two
kernels.  Run on the H200: ``python -m pytest tests/test_gpu_dynamic_memory_bound.py -v -s``.
"""

import json
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tilelang")
if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU: this test times device items", allow_module_level=True)

KERNELS = '''
import tilelang
import tilelang.language as T


@tilelang.jit
def relu2x(X, block_M, block_N, num_stages, threads=128):
    M = T.dynamic("M")
    N = T.const("N")
    X: T.Tensor((M, N), "float16")
    Y = T.empty((M, N), "float16")
    with T.Kernel(T.ceildiv(M, block_M), N // block_N, threads=threads) as (bx, by):
        x = T.alloc_shared((block_M, block_N), "float16")
        y = T.alloc_fragment((block_M, block_N), "float16")
        for step in T.Pipelined(1, num_stages=num_stages):
            T.copy(X[bx * block_M, by * block_N], x)
            for i, j in T.Parallel(block_M, block_N):
                y[i, j] = T.max(x[i, j] * 2, 0)
            T.copy(y, Y[bx * block_M, by * block_N])
    return Y
'''

SUITE = '''
import torch
from tlbench.harness.sweep_api import kernel_sweep
from relu2x_kernels import relu2x

SWEEP = kernel_sweep(
    "relu2x", {"cuda": relu2x},
    sizes=[{"M": 16384, "N": 8192}, {"M": 4000, "N": 8192}],
    axes={"block_M": [32, 64], "block_N": [256], "num_stages": [1]},
    inputs=lambda device, M, N: [torch.randn(M, N, device=device, dtype=torch.float16)],
    reference=lambda x: torch.relu(x * 2),
    vendor=lambda x: torch.relu(x * 2),
    bytes_moved=lambda M, N: 2 * M * N * 2,
)

def test_relu2x(tlbench):
    tlbench.run()
'''


def test_dynamic_memory_bound_kernel_and_a_two_kernel_vendor_without_nvml(tmp_path):
    (tmp_path / "relu2x_kernels.py").write_text(KERNELS)
    (tmp_path / "test_relu2x_suite.py").write_text(SUITE)
    no_nvml = tmp_path / "no_nvml"
    no_nvml.mkdir()
    (no_nvml / "pynvml.py").write_text("raise ImportError('nvidia-ml-py is not installed (test-only stand-in)')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(no_nvml), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "test_relu2x_suite.py", "--tlbench-backend=nvidia", "--tlbench-kind=device",
         "--benchmark-json=a.json", "-p", "no:cacheprovider", "-p", "tlbench.harness.plugin", "-q"],  # -p: a checkout on PYTHONPATH, nothing installed
        capture_output=True, text=True, cwd=tmp_path, timeout=1200, env=env,
    )
    print(out.stdout[-4000:])  # the summary, for `pytest -s` on the GPU host
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    records = [b["extra_info"]["tlbench"] for b in json.loads((tmp_path / "a.json").read_text())["benchmarks"]]
    kernels = [r for r in records if r.get("config")]
    vendors = [r for r in records if not r.get("config")]
    assert {r["problem"]["M"] for r in kernels} == {16384, 4000} and len(kernels) == 4 and len(vendors) == 2
    for rec in kernels:
        assert rec["check"]["ok"], rec["check"]
        assert rec["plan"]["features"]["grid"] == -(-rec["problem"]["M"] // rec["config"]["block_M"]) * (8192 // 256)
        assert rec["throughput"]["pct_of_bandwidth"] > 0 and rec["roofline"]["bound"] == "memory"
        assert any("no clock telemetry" in n for n in rec["notes"]), rec["notes"]  # NVML really was absent
    assert "GB/s" in out.stdout and "% of the" in out.stdout and "memory bandwidth (" in out.stdout
    for rec in vendors:
        assert any("a call launched 2 kernels" in n for n in rec["notes"]), rec["notes"]
