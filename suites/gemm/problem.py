"""The problem and config of an older GEMM record, and their ids (history keys: never change them).

Contract: ``GemmProblem`` and ``GemmConfig`` name themselves as suites/gemm/sweep.py words them
(tests/test_case_ids.py pins both).  No tilelang, no torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from tlbench.harness.core import loop_form
from tlbench.harness.core.cases import DTYPE_SHORT

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

    family: ClassVar[Any]  # the family object: bound where it is defined (family.py imports this module, not back)

    @property
    def problem_id(self) -> str:
        kind = "gemm" if self.epilogue is None else f"gemm_{self.epilogue}"
        out = "" if self.out_dtype in (None, self.dtype) else f"-o{DTYPE_SHORT[self.out_dtype]}"
        return f"{kind}-{self.M}x{self.N}x{self.K}-{DTYPE_SHORT[self.dtype]}{out}"


@dataclass(frozen=True)
class GemmConfig(loop_form.LoopFormConfig):
    """Tile, threads and loop schedule of one kernel variant (fields: suites/gemm/sweep.py)."""

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
        parts += [f"c{self.num_cores}"] if self.num_cores is not None else []
        parts += [f"g{self.group_m}"] if self.group_m is not None else []
        parts += ["so"] if self.stage_output else []
        return "-".join([*parts, self.loop_id, *(["offset"] if self.enable_offset else [])])
