"""The flash-attention problem and config: plain values, no tilelang, no torch.

Contract: ``FaProblem`` is ``O = softmax(Q K^T * scale) V`` (GQA: ``kv_heads`` K/V heads;
``causal``: query i sees keys j <= i); Q and O are ``(batch * heads * seq_q, dim)``, K and V
``(batch * kv_heads * seq_k, dim)``.  ``FaConfig``: the tile, loop form, ``body`` and
``fast_math`` (id ``-fm``).  Ids only grow optional suffixes: they are history keys.  ``flops``
counts the two GEMMs on the attended pairs (no softmax FLOPs); ``bytes_moved`` reads Q, K, V and
writes O once.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar, Literal

from tlbench.harness.core import loop_form
from tlbench.harness.core.cases import DTYPE_BYTES, DTYPE_SHORT

FAMILY = "flash_attention"
LoopForm = Literal["auto", "manual", "serial"]
Body = Literal["shared", "hopper", "hopper_ws", "hopper_ws_ov"]
BODIES = ("shared", "hopper", "hopper_ws", "hopper_ws_ov")
WS_BODIES = ("hopper_ws", "hopper_ws_ov")  # explicitly warp-specialized (suites/flash_attention/hopper_ws.py)


@dataclass(frozen=True)
class FaProblem:
    batch: int
    heads: int
    seq_q: int
    seq_k: int
    dim: int = 128
    dtype: str = "bfloat16"
    causal: bool = False
    kv_heads: int | None = None  # None: same as heads (MHA)
    out_dtype: str | None = None  # None: same as dtype
    accum_dtype: str = "float32"

    def __post_init__(self) -> None:
        for name in ("batch", "heads", "seq_q", "seq_k", "dim"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.heads % self.num_kv_heads:
            raise ValueError(f"heads={self.heads} is not a multiple of kv_heads={self.kv_heads}: GQA needs whole groups")
        if self.causal and self.seq_q != self.seq_k:
            raise ValueError(f"causal needs seq_q == seq_k (got {self.seq_q}, {self.seq_k}): torch SDPA and this family align the mask top-left")
        for name in ("dtype", "out_dtype", "accum_dtype"):
            value = getattr(self, name)
            if value is not None and value not in DTYPE_BYTES:
                raise ValueError(f"{name}={value!r} is not a known dtype; known: {', '.join(DTYPE_BYTES)}")

    family: ClassVar[Any]  # the family object: bound where it is defined (family.py imports this module, not back)

    @property
    def num_kv_heads(self) -> int:
        return self.kv_heads or self.heads

    @property
    def group_size(self) -> int:
        return self.heads // self.num_kv_heads

    @property
    def output_dtype(self) -> str:
        return self.out_dtype or self.dtype

    @property
    def sm_scale(self) -> float:
        return self.dim**-0.5

    @property
    def attended_pairs(self) -> int:
        """(query, key) pairs per head that the softmax weighs (all of them unless causal)."""
        if not self.causal:
            return self.seq_q * self.seq_k
        return self.seq_q * (self.seq_q + 1) // 2  # query i sees keys 0 .. i

    @property
    def flops(self) -> int:
        return 4 * self.batch * self.heads * self.dim * self.attended_pairs

    @property
    def bytes_moved(self) -> int:
        elem = DTYPE_BYTES[self.dtype]
        q = self.batch * self.heads * self.seq_q * self.dim * elem
        kv = 2 * self.batch * self.num_kv_heads * self.seq_k * self.dim * elem
        o = self.batch * self.heads * self.seq_q * self.dim * DTYPE_BYTES[self.output_dtype]
        return q + kv + o

    @property
    def problem_id(self) -> str:
        heads = f"h{self.heads}" if self.kv_heads in (None, self.heads) else f"h{self.heads}kv{self.kv_heads}"
        seq = f"s{self.seq_q}" if self.seq_q == self.seq_k else f"sq{self.seq_q}sk{self.seq_k}"
        out = "" if self.out_dtype in (None, self.dtype) else f"-o{DTYPE_SHORT[self.out_dtype]}"
        causal = "-causal" if self.causal else ""
        return f"fa-b{self.batch}{heads}-{seq}-d{self.dim}-{DTYPE_SHORT[self.dtype]}{out}{causal}"


@dataclass(frozen=True)
class FaConfig(loop_form.LoopFormConfig):
    block_M: int = 128
    block_N: int = 128
    num_stages: int | None = 2
    loop_form: LoopForm = "auto"
    threads: int = 128
    num_cores: int | None = None
    body: Body = "shared"
    enable_offset: bool = False  # Ascend: a real prologue/body/epilogue software pipeline
    fast_math: bool = False  # NVIDIA: nvcc --use_fast_math (tilelang's tl.enable_fast_math); id suffix -fm

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.body not in BODIES:
            raise ValueError(f"body must be one of {', '.join(BODIES)}, got {self.body!r}")

    @property
    def config_id(self) -> str:
        parts = [f"bm{self.block_M}", f"bn{self.block_N}", f"t{self.threads}"]
        if self.num_cores is not None:
            parts.append(f"c{self.num_cores}")
        parts.append(self.loop_id)
        if self.enable_offset:
            parts.append("offset")
        if self.body != "shared":
            parts.append(self.body)
        if self.fast_math:
            parts.append("fm")
        return "-".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

