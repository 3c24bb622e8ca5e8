"""The GEMM family's problem and config types and their ids (history keys: never change them).

Contract: ``GemmProblem`` is ``C = A @ B^T`` (+ optional fused ReLU epilogue) and names
itself ``gemm-8192x8192x8192-f16`` / ``gemm_relu-512x512x1024-bf16-of32``; ``GemmConfig``
is a tile, threads and loop schedule and names itself ``bm128-bn256-bk64-t256-auto-s3``
(+ ``c<cores>``, ``g<group_m>``, ``so``, ``offset`` when set).  A case id is
``<problem_id>[-<label>]-<config_id>`` (harness/core/cases.py); tests/test_case_ids.py pins
the scheme byte for byte.  No tilelang, no torch: suites and the harness's readers import
this freely.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from tlbench.harness.core import loop_form
from tlbench.harness.core.cases import DTYPE_BYTES, DTYPE_SHORT

LoopForm = Literal["auto", "manual", "serial"]


@dataclass(frozen=True)
class GemmProblem:
    """``C = A @ B^T`` with A (M, K), B (N, K); optional fused epilogue (``"relu"``)."""

    M: int
    N: int
    K: int
    dtype: str = "float16"
    accum_dtype: str = "float32"
    out_dtype: str | None = None  # None: same as dtype
    epilogue: str | None = None

    @property
    def output_dtype(self) -> str:
        return self.out_dtype or self.dtype

    @property
    def flops(self) -> int:
        return 2 * self.M * self.N * self.K

    @property
    def bytes_moved(self) -> int:
        """Compulsory DRAM traffic: read A and B once, write C once."""
        ab = (self.M * self.K + self.N * self.K) * DTYPE_BYTES[self.dtype]
        return ab + self.M * self.N * DTYPE_BYTES[self.output_dtype]

    family: ClassVar[Any]  # the family object: bound where it is defined (family.py imports this module, not back)

    @property
    def problem_id(self) -> str:
        kind = "gemm" if self.epilogue is None else f"gemm_{self.epilogue}"
        out = "" if self.out_dtype in (None, self.dtype) else f"-o{DTYPE_SHORT[self.out_dtype]}"
        return f"{kind}-{self.M}x{self.N}x{self.K}-{DTYPE_SHORT[self.dtype]}{out}"


@dataclass(frozen=True)
class GemmConfig(loop_form.LoopFormConfig):
    """Tile, threads and loop schedule of one kernel variant.

    ``loop_form``: ``auto`` is ``T.Pipelined(n, num_stages=num_stages)``; ``manual`` is
    ``T.Pipelined(n, stage=[0, 0, 1], order=[0, 1, 2])`` (no num_stages, depth 2);
    ``serial`` is ``T.serial(n)``.  ``num_cores`` set: a persistent kernel of that many
    blocks walks the output tiles (``T.Persistent``); unset: one block per output tile.
    ``enable_offset`` asks tilelang's Ascend scheduler for a real prologue/body/epilogue
    software pipeline.  ``group_m`` rasterizes the 1-D grid in panels of that many tile rows
    (L2 reuse; what ``T.use_swizzle`` does on a 2-D grid).  ``stage_output`` routes the
    accumulator through an on-chip buffer before the global store, where the target has
    one for that (CUDA shared memory; the Ascend path stores L0C through Fixpipe anyway).
    """

    block_M: int
    block_N: int
    block_K: int
    threads: int = 128
    loop_form: LoopForm = "auto"
    num_stages: int | None = 2
    num_cores: int | None = None
    enable_offset: bool = False
    group_m: int | None = None
    stage_output: bool = False

    @property
    def config_id(self) -> str:
        parts = [f"bm{self.block_M}", f"bn{self.block_N}", f"bk{self.block_K}", f"t{self.threads}"]
        if self.num_cores is not None:
            parts.append(f"c{self.num_cores}")
        if self.group_m is not None:
            parts.append(f"g{self.group_m}")
        if self.stage_output:
            parts.append("so")
        parts.append(self.loop_id)
        if self.enable_offset:
            parts.append("offset")
        return "-".join(parts)
