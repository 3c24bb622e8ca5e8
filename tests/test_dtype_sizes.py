"""Every dtype at its real size: fp8 one byte, int4 half a byte (packed), bool and int8 one byte;
an unknown dtype is an error naming it, never a default.

The harness sizes by name with a table (harness/core/dtypes.py, no tvm or torch); the
backends with tvm's own ``DataType`` (backends/dtype_sizes.py); both agree on every name
tvm knows.  Real tilelang bodies with fp8 and int4 shared buffers, lowered by the real
backends on this CPU box, are counted that way in their plans - NVIDIA's total matches the
dynamic shared memory tilelang itself asks for.
"""

import importlib

import pytest

from tlbench.harness.core.dtypes import buffer_bytes, dtype_bits

BITS = {
    "float8_e4m3fn": 8, "float8_e4m3": 8, "float8_e5m2": 8, "float8_e8m0fnu": 8, "e4m3_float8": 8,
    "int8": 8, "uint8": 8, "bool": 8, "int4": 4, "uint4": 4, "float4_e2m1fn": 4, "float6_e2m3fn": 6, "int1": 1,
    "float16": 16, "bfloat16": 16, "half": 16, "float32": 32, "float": 32, "torch.float32": 32, "int32": 32,
    "float64": 64, "int64": 64, "float16x4": 64,
}


@pytest.mark.parametrize("name, bits", sorted(BITS.items()))
def test_each_dtype_has_its_real_size(name, bits):
    assert dtype_bits(name) == bits


def test_sub_byte_buffers_are_packed_and_rounded_up():
    assert buffer_bytes((128, 128), "float8_e4m3fn") == 16384
    assert buffer_bytes((128,), "int4") == 64
    assert buffer_bytes((3,), "int4") == 2
    assert buffer_bytes((8,), "int1") == 1
    assert buffer_bytes((2, 3), "bool") == 6


@pytest.mark.parametrize("name", ["float8", "fp8", "int3x", "complex64", ""])
def test_an_unknown_dtype_is_an_error_naming_it(name):
    with pytest.raises(ValueError, match=f"unknown dtype {name!r}"):
        dtype_bits(name)


def test_the_backends_size_with_tvm_and_agree_with_the_table():
    pytest.importorskip("tilelang")
    from tlbench.backends.dtype_sizes import buffer_bytes as tvm_bytes, storage_bits

    for name, bits in BITS.items():
        if name in ("e4m3_float8", "torch.float32", "half"):  # spellings tvm does not take (tilelang's older one, torch's)
            continue
        assert storage_bits(name) == bits, name
    assert tvm_bytes((128,), "int4") == 64 and tvm_bytes((128, 128), "float8_e5m2") == 16384
    with pytest.raises(ValueError, match="unknown dtype 'e4m3_float8'"):
        storage_bits("e4m3_float8")


KERNELS = '''
import tilelang.language as T
import tilelang.ascend.language as TA


def cast_cuda(N, tile):
    @T.prim_func
    def main(X: T.Tensor((N, 128), "float32"), Q: T.Tensor((N, 128), "float8_e4m3fn"), P: T.Tensor((N, 128), "int4")):
        with T.Kernel(N // tile, threads=128) as bx:
            q = T.alloc_shared((tile, 128), "float8_e4m3fn")
            p = T.alloc_shared((tile, 128), "int4")
            f = T.alloc_fragment((tile, 128), "float32")
            T.copy(X[bx * tile, 0], f)
            for i, j in T.Parallel(tile, 128):
                q[i, j] = f[i, j]
                p[i, j] = T.Cast("int4", f[i, j])
            T.copy(q, Q[bx * tile, 0])
            T.copy(p, P[bx * tile, 0])
    return main


def cast_ascend(N, tile):
    @TA.prim_func
    def main(X: TA.Tensor((N, 128), "float32"), Q: TA.Tensor((N, 128), "float8_e4m3fn")):
        with TA.Kernel(N // tile) as bx:
            x = TA.alloc_shared((tile, 128), "float32")
            q = TA.alloc_shared((tile, 128), "float8_e4m3fn")
            TA.copy(X[bx * tile : (bx + 1) * tile, :], x)
            with TA.SimtVF(threads=128):
                xf = TA.alloc_fragment((tile, 128), "float32")
                qf = TA.alloc_fragment((tile, 128), "float8_e4m3fn")
                TA.copy(x, xf)
                TA.copy(xf, qf)
                TA.copy(qf, q)
            TA.copy(q, Q[bx * tile : (bx + 1) * tile, :])
    return main
'''


@pytest.fixture()
def casts(tmp_path, monkeypatch):
    pytest.importorskip("tilelang")
    from tlbench.harness.sweep_api import kernel_sweep

    (tmp_path / "dtype_kernels.py").write_text(KERNELS)
    monkeypatch.syspath_prepend(str(tmp_path))
    kernels = importlib.import_module("dtype_kernels")
    return kernel_sweep("casts", {"cuda": kernels.cast_cuda, "ascend": kernels.cast_ascend}, sizes={"N": 1024},
                        axes={"tile": [32]}, inputs=lambda device, N: [], module=__name__)


def test_nvidia_plan_counts_fp8_at_one_byte_and_int4_at_half(casts):
    from tlbench.backends.nvidia import NvidiaBackend
    from tlbench.harness.core.backend_api import BackendOptions

    plan = NvidiaBackend(BackendOptions()).lower(casts.cases("nvidia", "full")[0]).plan
    sizes = {b["name"]: (b["dtype"], b["bytes"]) for b in plan.buffers}
    assert sizes == {"q": ("float8_e4m3fn", 32 * 128), "p": ("int4", 32 * 128 // 2)}
    assert plan.bytes_per_scope["shared.dyn"] == 32 * 128 + 32 * 128 // 2  # tilelang's own dynamic shared memory agrees


def test_ascend_plan_counts_fp8_at_one_byte(casts):
    from tlbench.backends.ascend.backend import AscendBackend
    from tlbench.harness.core.backend_api import BackendOptions

    plan = AscendBackend(BackendOptions()).lower(casts.cases("ascend", "full")[0]).plan
    sizes = {b["name"]: (b["dtype"], b["bytes"]) for b in plan.buffers}
    assert sizes == {"x": ("float32", 32 * 128 * 4), "q": ("float8_e4m3fn", 32 * 128)}
    assert plan.bytes_per_scope["shared.ub"] == 32 * 128 * 5


def test_a_budget_skip_names_the_buffers_their_dtypes_and_the_backend():
    from types import SimpleNamespace

    from tlbench.harness.core.budget import plan_overflow
    from tlbench.harness.measure.outcome import over_budget

    plan = SimpleNamespace(
        bytes_per_scope={"shared.ub": 263168}, limits={"shared.ub": 253952},
        buffers=[{"name": "y_s_ub", "scope": "shared.ub", "dtype": "float32", "versions": 2, "bytes": 1024},
                 {"name": "y_ub", "scope": "shared.ub", "dtype": "float32", "versions": 2, "bytes": 131072},
                 {"name": "other", "scope": "shared.l1", "dtype": "float32", "versions": 1, "bytes": 4}])
    assert over_budget(plan_overflow(plan), "ascend").reason == (
        "over the on-chip budget: shared.ub needs 263168 B, limit 253952 B "
        "(y_ub 2 x 65536 B float32, y_s_ub 2 x 512 B float32) on ascend")
