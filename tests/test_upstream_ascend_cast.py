"""tilelang's upstream Ascend per-token FP8 cast (``examples/ascend/example_per_token_cast_to_fp8.py``,
its SIMT mode), unchanged, as a user's suite: its compile item at 8192x8192 passes, its UB
counted at each buffer's real size - fp8 one byte an element.

At 8192x8192 the SIMT kernel keeps three UB buffers, two versions each: 128x128 fp32, 128x128
fp8 e4m3 and 128 fp32 - 2 x (65536 + 16384 + 512) = 164864 B of the 253952 B UB.  Counted at
four bytes an fp8 element it needed 263168 B, and the item was skipped as over the budget.
The example's factory compiles its ``@tilelang.jit`` kernel inside (``return _build()``); tlbench
takes the PrimFunc of that compile (no bisheng needed on this machine).

The example is tilelang's file, not tlbench's: it is read from a tilelang checkout named by
``TLBENCH_TILELANG_EXAMPLES`` (the checkout, or its ``examples`` folder), or from the installed
tilelang package where that ships its examples; without either the test is skipped, saying so.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("tilelang")

EXAMPLE = Path("ascend") / "example_per_token_cast_to_fp8.py"

SUITE = '''
import torch
from tlbench import kernel_sweep
import example_per_token_cast_to_fp8 as upstream

SWEEP = kernel_sweep(
    "per_token_cast_fp8", {"ascend": upstream.per_token_cast_simt},
    sizes={"M": 8192, "N": 8192},
    inputs=lambda device, M, N: [torch.randn(M, N, device=device)],
    reference=upstream.ref_program,
    bytes_moved=lambda M, N: M * N * (4 + 1) + M * (N // 128) * 4,
    pass_configs={"tl.enable_fast_math": True},  # the example's jit declares it
    backends=["ascend"], kinds=("compile",),
)

def test_per_token_cast_fp8(tlbench):
    tlbench.run()
'''


def _example() -> Path | None:
    roots = [Path(os.environ["TLBENCH_TILELANG_EXAMPLES"])] if os.environ.get("TLBENCH_TILELANG_EXAMPLES") else []
    import tilelang

    roots.append(Path(tilelang.__file__).parent)
    for root in roots:
        for base in (root, root / "examples"):
            if (base / EXAMPLE).is_file():
                return base / EXAMPLE
    return None


def test_the_upstream_ascend_fp8_cast_compiles_at_8192_with_fp8_counted_one_byte(tmp_path):
    example = _example()
    if example is None:
        pytest.skip(f"tilelang's {EXAMPLE} is not on this machine: set TLBENCH_TILELANG_EXAMPLES to a tilelang "
                    "checkout (or its examples folder) to run this test")
    (tmp_path / "example_per_token_cast_to_fp8.py").write_bytes(example.read_bytes())  # unchanged
    (tmp_path / "test_cast_suite.py").write_text(SUITE)
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "test_cast_suite.py", "--tlbench-backend=ascend", "--tlbench-compile-rounds=1",
         "--benchmark-json=a.json", "-p", "no:cacheprovider", "-q"],
        capture_output=True, text=True, cwd=tmp_path, timeout=1500,
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    (record,) = [b["extra_info"]["tlbench"] for b in json.loads((tmp_path / "a.json").read_text())["benchmarks"]]
    assert (record["backend"], record["kind"], record["case_id"]) == ("ascend", "compile", "per_token_cast_fp8-M8192-N8192-default")
    buffers = {b["name"]: b for b in record["plan"]["buffers"]}
    fp8 = buffers["y_q_ub_fp8"]
    assert fp8["dtype"] == "float8_e4m3fn" and fp8["shape"] == [128, 128] and fp8["versions"] == 2
    assert fp8["bytes"] == 2 * 128 * 128  # one byte an element
    assert record["plan"]["bytes_per_scope"]["shared.ub"] == 2 * (128 * 128 * 4 + 128 * 128 + 128 * 4) == 164864
    assert record["plan"]["limits"]["shared.ub"] == 253952
