"""Two things the conformance set needed of the preflight and the shape binding, on CPU with
real tilelang bodies written here.

- Packed sub-byte inputs: a kernel parameter of a dtype narrower than a byte (``T.int4``) is
  given as an integer tensor holding the values packed along its last dimension (two int4 an
  int8, as tilelang's int4 GEMM example packs them).  ``bind_arguments`` reads that dimension
  as packed (a symbolic K bound to twice the bytes), the preflight accepts the packed tensor
  and refuses an unpacked or a float one in one line that says how to pack, and an int4
  output is allocated packed.
- Constants across bodies: a constant that only the CUDA body takes does not fail the
  Ascend body's preflight; one that no body and no callable takes does, and the line names
  every body.
"""

import pytest

pytest.importorskip("tilelang")

import torch  # noqa: E402

from tlbench.backends.dtype_sizes import storage_shape, values_per_element  # noqa: E402
from tlbench.backends.kernels.generic.tensors import allocate  # noqa: E402
from tlbench.backends.symbolic_shapes import bind_arguments  # noqa: E402
from tlbench.harness.cli import main as tlbench_main  # noqa: E402

KERNELS = '''
import tilelang
import tilelang.language as T
import tilelang.ascend.language as TA


def int4_gemm(M, N, K, block_M, block_N, block_K):
    @T.prim_func
    def main(A: T.Tensor((M, K), T.int4), B: T.Tensor((N, K), T.int4), C: T.Tensor((M, N), T.int32)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            a = T.alloc_shared((block_M, block_K), T.int4)
            b = T.alloc_shared((block_N, block_K), T.int4)
            acc = T.alloc_fragment((block_M, block_N), T.int32)
            T.clear(acc)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, ko * block_K], a)
                T.copy(B[bx * block_N, ko * block_K], b)
                T.gemm(a, b, acc, transpose_B=True)
            T.copy(acc, C[by * block_M, bx * block_N])
    return main


def int4_rows(M, block_M):
    K = T.dynamic("K")

    @T.prim_func
    def main(A: T.Tensor((M, K), T.int4), C: T.Tensor((M, K), T.int4)):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            for i, j in T.Parallel(block_M, K):
                C[bx * block_M + i, j] = A[bx * block_M + i, j]
    return main


def scale_cuda(N, tile, factor):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(N // tile, threads=128) as bx:
            a = T.alloc_fragment((tile,), "float32")
            T.copy(A[bx * tile], a)
            for i in T.Parallel(tile):
                a[i] = a[i] * factor
            T.copy(a, B[bx * tile])
    return main


def scale_ascend(N, tile):
    @TA.prim_func
    def main(A: TA.Tensor((N,), "float32"), B: TA.Tensor((N,), "float32")):
        with TA.Kernel(N // tile) as bx:
            a = TA.alloc_shared((tile,), "float32")
            TA.copy(A[bx * tile : (bx + 1) * tile], a)
            with TA.SimtVF(threads=256):
                for i in TA.Parallel(tile):
                    a[i] = a[i] * 2.0
            TA.copy(a, B[bx * tile : (bx + 1) * tile])
    return main
'''

INT4_SUITE = '''
import torch
from tlbench import kernel_sweep
from packed_kernels import int4_gemm


def pack(values):  # two signed int4 values a byte, the even column in the low nibble
    v = values.to(torch.int16)
    return ((v[..., ::2] & 0xF) | ((v[..., 1::2] & 0xF) << 4)).to(torch.int8)


def unpack(packed):
    return torch.stack(((packed << 4) >> 4, packed >> 4), dim=-1).flatten(-2)


SWEEP = kernel_sweep(
    "{name}", {{"cuda": int4_gemm}},
    sizes={{"M": 64, "N": 64, "K": 64}},
    axes={{"block_M": [64], "block_N": [64], "block_K": [64]}},
    inputs=lambda device, M, N, K: [{make}(torch.randint(-8, 8, (rows, K), dtype=torch.int8, device=device)) for rows in (M, N)],
    reference=lambda a, b: (unpack(a).float() @ unpack(b).float().T).to(torch.int32),
)


def test_{name}(tlbench):
    tlbench.run()
'''

TWO_BODY_SUITE = '''
import torch
from tlbench import kernel_sweep
from packed_kernels import scale_ascend, scale_cuda

SWEEP = kernel_sweep(
    "{name}", {{"cuda": scale_cuda, "ascend": scale_ascend}},
    sizes={{"N": 4096}},
    axes={{"tile": [1024]}},
    constants={constants},
    inputs=lambda device, N: [torch.randn(N, device=device)],
    reference=lambda a: a * 2,
)


def test_{name}(tlbench):
    tlbench.run()
'''


@pytest.fixture
def project(pytester):
    pytester.makepyfile(packed_kernels=KERNELS)
    pytester.makepyfile(test_packed=INT4_SUITE.format(name="packed", make="pack"),
                        test_unpacked=INT4_SUITE.format(name="unpacked", make=""),
                        test_floats=INT4_SUITE.format(name="floats", make="(lambda t: pack(t).half())"),
                        test_onebody=TWO_BODY_SUITE.format(name="onebody", constants='{"factor": 2.0}'),
                        test_nobody=TWO_BODY_SUITE.format(name="nobody", constants='{"factor": 2.0, "knob_nobody_takes": 3.0}'))
    pytester.syspathinsert()
    return pytester


def _check(project, capsys, suite: str, backend: str = "nvidia") -> tuple[int, list[str]]:
    code = tlbench_main(["check", str(project.path / f"test_{suite}.py"), "--backend", backend])
    return code, capsys.readouterr().out.splitlines()


def test_packed_storage_shapes():
    assert values_per_element("int4", 1) == 2 and storage_shape((256, 256), "int4", 1) == (256, 128)
    assert values_per_element("float4_e2m1fn", 1) == 2 and storage_shape((8, 7), "uint4", 1) == (8, 4)  # rounded up
    assert values_per_element("int4", 4) == 8 and storage_shape((16, 64), "int4", 4) == (16, 8)
    assert values_per_element("int2", 1) == 4
    for whole in ("int8", "bool", "float8_e4m3fn", "float16"):
        assert values_per_element(whole, 1) == 1 and storage_shape((3, 5), whole, 1) == (3, 5)
    with pytest.raises(ValueError, match="cannot hold"):
        values_per_element("int4", 0)


def test_an_int4_output_is_allocated_packed():
    (out,) = allocate([("C", (4, 8), "int4")], "cpu")
    assert out.dtype == torch.int8 and tuple(out.shape) == (4, 4)
    (fp4,) = allocate([("D", (2, 6), "float4_e2m1fn")], "cpu")
    assert tuple(fp4.shape) == (2, 3) and fp4.element_size() == 1


def test_bind_arguments_reads_a_sub_byte_last_dimension_as_packed(project):
    import packed_kernels

    gemm = packed_kernels.int4_gemm(64, 32, 128, 64, 32, 64)
    packed = [torch.zeros(64, 64, dtype=torch.int8), torch.zeros(32, 64, dtype=torch.int8)]
    assert bind_arguments(gemm, packed) == {}
    with pytest.raises(ValueError, match=r"parameter A dimension 1 is 128 \(128 int4 values, 2 to an element of the tensor: "
                                         r"64 elements\); inputs\(\) gave 128"):
        bind_arguments(gemm, [torch.zeros(64, 128, dtype=torch.int8)])
    assert bind_arguments(gemm, [torch.zeros(64, 16, dtype=torch.int32)]) == {}  # eight int4 values an int32

    rows = packed_kernels.int4_rows(64, 32)
    assert bind_arguments(rows, [torch.zeros(64, 48, dtype=torch.int8)]) == {"K": 96}  # symbolic K: twice the bytes
    assert bind_arguments(rows, [torch.zeros(64, 48, dtype=torch.uint8)]) == {"K": 96}


def test_the_preflight_takes_packed_int4_inputs_and_says_how_to_pack_the_others(project, capsys):
    code, lines = _check(project, capsys, "packed")
    assert code == 0, lines
    assert lines[-1].endswith("0 failing their preflight: ok (nothing was compiled)")

    code, lines = _check(project, capsys, "unpacked")
    assert code == 1, lines
    assert lines[0] == ("preflight unpacked-M64-N64-K64 (cuda body): inputs: ValueError: parameter A dimension 1 is 64 (64 int4 "
                        "values, 2 to an element of the tensor: 32 elements); inputs() gave 64 (shape [64, 64] for [64, 64]); "
                        "fix: make each tensor the kernel's shape at these sizes (a sub-byte dtype such as int4 packed along "
                        "its last dimension)")

    code, lines = _check(project, capsys, "floats")
    assert code == 1, lines
    assert lines[0] == ("preflight floats-M64-N64-K64 (cuda body): inputs: tensor 0 (A) is torch.float16; the kernel's A is "
                        "int4, read packed from an integer tensor's bytes; fix: pack int4 values 2 to a byte along the last "
                        "dimension into an int8 or uint8 tensor")


def test_a_constant_one_body_takes_passes_every_body(project, capsys):
    code, lines = _check(project, capsys, "onebody", "nvidia,ascend")
    assert code == 0, lines  # 'factor' reaches scale_cuda only; scale_ascend does not take it


def test_a_constant_no_body_takes_names_every_body(project, capsys):
    code, lines = _check(project, capsys, "nobody", "nvidia,ascend")
    assert code == 1, lines
    for dialect in ("cuda", "ascend"):
        line = (f"preflight nobody-N4096 ({dialect} body): constant 'knob_nobody_takes': neither any body (cuda: scale_cuda, ascend: "
                f"scale_ascend) nor any callable takes it; fix: rename the constant to a name the "
                "body takes, or drop it")
        assert line in lines, lines
