"""A factory that compiles its ``@tilelang.jit`` kernel inside (tilelang's upstream Ascend
examples end in ``return _build()``) gives tlbench that kernel's PrimFunc, on a machine with no
bisheng; outside tlbench's call, and on other threads, the same jit compiles as it always did.
Real tilelang, real Ascend lowering target."""

import shutil
import threading

import pytest

pytest.importorskip("tilelang")

import tilelang  # noqa: E402
import tilelang.ascend.language as TA  # noqa: E402
from tvm.tirx import PrimFunc  # noqa: E402

from tlbench.backends.kernels.generic.factory import prim_func  # noqa: E402


def upstream_style(N, tile):
    @tilelang.jit(out_idx=[1], target="ascend")
    def _build():
        @TA.prim_func
        def copy(X: TA.Tensor((N,), "float32"), Y: TA.Tensor((N,), "float32")):
            with TA.Kernel(N // tile) as bx:
                x = TA.alloc_shared((tile,), "float32")
                TA.copy(X[bx * tile : (bx + 1) * tile], x)
                TA.copy(x, Y[bx * tile : (bx + 1) * tile])

        return copy

    return _build()


@pytest.mark.skipif(shutil.which("bisheng") is not None, reason="this machine has bisheng: the jit would compile")
def test_the_prim_func_of_an_inner_jit_compile_is_taken_and_nothing_else_changes():
    func = prim_func(upstream_style, {"N": 4096, "tile": 512})
    assert isinstance(func, PrimFunc) and [tuple(int(d) for d in func.buffer_map[p].shape) for p in func.params] == [(4096,), (4096,)]
    with pytest.raises(RuntimeError, match="Cannot find the bisheng compiler"):
        upstream_style(4096, 512)  # outside the call: tilelang compiles, as it always did
    seen = []

    def other_thread():
        try:
            upstream_style(2048, 512)
        except RuntimeError as exc:
            seen.append(str(exc))

    def factory(N, tile):  # while tlbench takes this factory's PrimFunc, another thread's compile is its own
        worker = threading.Thread(target=other_thread)
        worker.start()
        worker.join()
        return upstream_style(N, tile)

    assert isinstance(prim_func(factory, {"N": 1024, "tile": 512}), PrimFunc)
    assert seen and "Cannot find the bisheng compiler" in seen[0]
