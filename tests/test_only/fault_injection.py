"""TEST ONLY: real CUDA faults under chosen case ids, for the fault-isolation runs (results/h200-fault-isolation/).

Contract: ``TestOnlyFaults.parse("CASE_ID=oob,CASE_ID=spin")`` (the
``--tlbench-nvidia-test-only-fault`` option of the test plugin, tests/test_only/faults.py;
no shipped suite sets it) makes each named case
run a deliberately broken tilelang kernel instead of its own, in the check and in every
timed call.  Everything else about the case (compile, plan, budget) is the real one, so
the case keeps its id and a run without the option is its clean baseline.
- ``oob``: 32 threads each store one float at an index read from device memory,
  alternately +(2^31 - 1) and -(2^31 - 1) elements from a 32-float buffer.  tilelang guards
  such data-dependent stores; this kernel is built with ``tl.disable_safe_memory_access``
  so the store is not guarded: an illegal address, a sticky CUDA error.
- ``spin``: 32 threads run a dependent multiply-add 2^62 times: a kernel that does not end.
The kernels are built on first use and kept by this object; torch is imported only then.
Never use it for results.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable


KINDS = ("oob", "spin")
FAR = 2**31 - 1


def _oob_kernel(target: Any) -> Callable[..., Any]:
    import tilelang
    import tilelang.language as T
    from tilelang.transform import PassConfigKey

    @T.prim_func
    def test_only_oob_write(Idx: T.Tensor((32,), "int32"), C: T.Tensor((32,), "float32")):
        with T.Kernel(1, threads=32) as _bx:
            for i in T.Parallel(32):
                C[Idx[i]] = T.float32(1.0)

    return tilelang.compile(test_only_oob_write, target=target, execution_backend="tvm_ffi",
                            pass_configs={PassConfigKey.TL_DISABLE_SAFE_MEMORY_ACCESS: True})


def _spin_kernel(target: Any) -> Callable[..., Any]:
    import tilelang
    import tilelang.language as T

    @T.prim_func
    def test_only_spin(C: T.Tensor((32,), "int32")):
        with T.Kernel(1, threads=32) as _bx:
            for i in T.Parallel(32):
                for _j in T.serial(FAR):
                    for _k in T.serial(FAR):
                        C[i] = C[i] * 3 + 1

    return tilelang.compile(test_only_spin, target=target, execution_backend="tvm_ffi")


@dataclass
class TestOnlyFaults:
    __test__ = False  # not a pytest class
    by_case: dict[str, str]
    _kernels: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, spec: str | None) -> "TestOnlyFaults | None":
        if not spec:
            return None
        by_case = {}
        for part in (p.strip() for p in spec.split(",") if p.strip()):
            case_id, sep, kind = part.rpartition("=")
            if not sep or not case_id or kind not in KINDS:
                raise ValueError(
                    f"--tlbench-nvidia-test-only-fault wants CASE_ID=KIND[,CASE_ID=KIND] with KIND in {', '.join(KINDS)}, got {part!r}"
                )
            by_case[case_id] = kind
        return cls(by_case)

    def kernel(self, kind: str, target: Any) -> Any:
        if kind not in self._kernels:
            self._kernels[kind] = _oob_kernel(target) if kind == "oob" else _spin_kernel(target)
        return self._kernels[kind]

    def wrap(self, case_id: str, run: Callable[[], None], device: Any, target: Any) -> Callable[[], None]:
        """``run``, or the broken kernel's launch when ``case_id`` is one of ours."""
        kind = self.by_case.get(case_id)
        if kind is None:
            return run
        import torch

        kernel = self.kernel(kind, target)
        if kind == "oob":
            idx = torch.tensor([FAR if i % 2 == 0 else -FAR for i in range(32)], dtype=torch.int32, device=device)
            out = torch.zeros(32, dtype=torch.float32, device=device)
            return lambda: kernel(idx, out)
        counter = torch.zeros(32, dtype=torch.int32, device=device)
        return lambda: kernel(counter)
