"""What the built-in GEMM suites declare their kernel with (suites/gemm/body.py) through ``kernel_sweep``.

Contract: ``problem(M, N, K, ...)`` and ``config(block_M, ...)`` are dicts with every key in the
order records have always carried them (ids and best_configs.json stay what they were; id
``gemm_relu-512x512x1024-bf16-of32``, ``bm128-bn256-bk64-t256-auto-s3`` + ``c``, ``g``, ``so``,
``offset``: tests/test_case_ids.py pins the scheme); ``stage_configs`` and ``axes_configs`` make
config lists; ``GEMM`` holds the keyword arguments every GEMM suite passes to ``kernel_sweep``.
The check: within rtol = atol = 1e-2 of ``A.float() @ B.float().T``; vendor: torch's GEMM.  No
tilelang and no torch at import.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import product
from typing import Any, Iterable

from .body import gemm_ascend, gemm_cuda

from tlbench import pruned

DTYPE_SHORT = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float8_e4m3": "f8e4m3"}
DTYPE_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4, "float8_e4m3": 1}
TORCH_NAMES = {"float8_e4m3": "float8_e4m3fn"}  # tilelang's dtype names torch spells otherwise
VECTOR_CORES = 2  # an Ascend cube core's results are split between two vector cores
SWEPT_KEYS = ("block_M", "block_N", "block_K", "threads", "num_stages", "group_m", "stage_output", "enable_offset", "num_cores")
_TILE_EXTRAS = {"num_cores": "cores={}", "group_m": "group_m={}", "enable_offset": "offset", "stage_output": "staged out"}


def problem(M: int, N: int, K: int, dtype: str = "float16", accum_dtype: str = "float32", out_dtype: str | None = None,
            epilogue: str | None = None) -> dict[str, Any]:
    return dict(M=M, N=N, K=K, dtype=dtype, accum_dtype=accum_dtype, out_dtype=out_dtype, epilogue=epilogue)


def config(block_M: int, block_N: int, block_K: int, threads: int = 128, loop_form: str = "auto", num_stages: int | None = 2,
           num_cores: int | None = None, enable_offset: bool = False, group_m: int | None = None,
           stage_output: bool = False) -> dict[str, Any]:
    return dict(block_M=block_M, block_N=block_N, block_K=block_K, threads=threads, loop_form=loop_form, num_stages=num_stages,
                num_cores=num_cores, enable_offset=enable_offset, group_m=group_m, stage_output=stage_output)


def stage_configs(tiles: Iterable[tuple[int, int, int, int]], num_stages: Iterable[int], manual: bool = True,
                  serial: bool = True, **extra: Any) -> list[dict[str, Any]]:
    """Each (block_M, block_N, block_K, threads) tile's ``auto`` at each num_stages, then ``manual`` and ``serial``."""
    stages = list(num_stages)
    out: list[dict[str, Any]] = []
    for block_M, block_N, block_K, threads in tiles:
        tile = dict(block_M=block_M, block_N=block_N, block_K=block_K, threads=threads, **extra)
        out += [config(**tile, loop_form="auto", num_stages=s) for s in stages]
        out += [config(**tile, loop_form=form, num_stages=None) for form, wanted in (("manual", manual), ("serial", serial)) if wanted]
    return out


def axes_configs(block_M, block_N, block_K, num_stages, threads=(128,), group_m=(None,), stage_output=(False,),
                 enable_offset=(False,), num_cores=(None,)) -> list[dict[str, Any]]:
    """The cross product of the swept keys in ``SWEPT_KEYS`` order, every config an ``auto`` loop."""
    given = dict(block_M=block_M, block_N=block_N, block_K=block_K, threads=threads, num_stages=num_stages, group_m=group_m,
                 stage_output=stage_output, enable_offset=enable_offset, num_cores=num_cores)
    return [config(loop_form="auto", **dict(zip(SWEPT_KEYS, combo))) for combo in product(*(given[k] for k in SWEPT_KEYS))]


# ids and labels are history keys: never change them
def problem_id(M, N, K, dtype, out_dtype, epilogue) -> str:
    kind = "gemm" if epilogue is None else f"gemm_{epilogue}"
    out = "" if out_dtype in (None, dtype) else f"-o{DTYPE_SHORT[out_dtype]}"
    return f"{kind}-{M}x{N}x{K}-{DTYPE_SHORT[dtype]}{out}"


def config_id(block_M, block_N, block_K, threads, loop_form, num_stages, num_cores, enable_offset, group_m, stage_output) -> str:
    parts = [f"bm{block_M}", f"bn{block_N}", f"bk{block_K}", f"t{threads}"]
    parts += [f"c{num_cores}"] if num_cores is not None else []
    parts += [f"g{group_m}"] if group_m is not None else []
    parts += ["so"] if stage_output else []
    parts.append(f"auto-s{num_stages}" if loop_form == "auto" else loop_form)
    parts += ["offset"] if enable_offset else []
    return "-".join(parts)


def problem_label(M, N, K, dtype, out_dtype, epilogue) -> str:
    """``8192x8192x8192 f16``; ``512x512x1024 bf16 -> f32 + relu`` with an out dtype and epilogue."""
    label = f"{M}x{N}x{K} {DTYPE_SHORT.get(dtype, dtype)}"
    if out_dtype and out_dtype != dtype:
        label += f" -> {DTYPE_SHORT.get(out_dtype, out_dtype)}"
    return label + (f" + {epilogue}" if epilogue else "")


def config_label(block_M, block_N, block_K, threads, num_cores, enable_offset, group_m, stage_output) -> str:
    """``128x256x64 t256`` (+ ``cores=4``, ``group_m=8``, ``offset``, ``staged out``): a stage report's row."""
    tile = f"{block_M}x{block_N}x{block_K} t{threads}"
    values = dict(num_cores=num_cores, group_m=group_m, enable_offset=enable_offset, stage_output=stage_output)
    return tile + "".join(" " + fmt.format(values[key]) for key, fmt in _TILE_EXTRAS.items() if values[key])


def loop_trips(K, block_K) -> int:
    return -(-K // block_K)


def validate(M, N, K, block_M, block_N, block_K, group_m):
    for dim, size, block in (("M", M, block_M), ("N", N, block_N), ("K", K, block_K)):
        if size % block:
            return pruned(f"{dim}={size} is not a multiple of block_{dim}={block}")
    if group_m is not None and (M // block_M) % group_m:
        return pruned(f"group_m={group_m} does not divide the {M // block_M} tile rows")
    return None


def mma_tiles(block_M, block_N) -> list[tuple[int, int]]:
    return [(block_M, block_N)]


def _depth(loop_form, num_stages) -> int:
    return {"manual": 2, "serial": 1}.get(loop_form, max(1, int(num_stages or 0)))


def footprint(dialect, dtype, accum_dtype, out_dtype, epilogue, block_M, block_N, block_K, loop_form, num_stages, num_cores,
              stage_output) -> dict[str, Any]:
    operand = (block_M + block_N) * block_K * DTYPE_BYTES[dtype]
    depth = _depth(loop_form, num_stages)
    if dialect == "cuda":
        staging = block_M * block_N * DTYPE_BYTES[out_dtype or dtype] if stage_output else 0
        # one tile per block: the staged output reuses the operands' space (the larger); persistent: their sum
        combine = (lambda a, b: a + b) if num_cores is not None else max
        words = [f"A_shared + B_shared {depth} x {operand} B"] + ([f"C_shared {staging} B"] if staging else [])
        return {"shared.dyn": {"bytes": combine(operand * depth, staging), "minimum": combine(operand, staging), "buffers": words}}
    if dialect == "ascend":
        accum = block_M * block_N * DTYPE_BYTES[accum_dtype]
        uses = {"shared.l1": {"bytes": operand * depth, "minimum": operand, "buffers": [f"A_l1 + B_l1 {depth} x {operand} B"]},
                "shared.l0c": {"bytes": accum, "buffers": [f"C_l0c {accum} B {accum_dtype}"]}}
        if epilogue is not None:
            half = (block_M // VECTOR_CORES) * block_N * DTYPE_BYTES[accum_dtype]
            uses["shared.ub"] = {"bytes": half, "variant": "simt", "buffers": [f"epilogue tile {half} B per vector core"]}
        return uses
    return {}


def flops(M, N, K) -> int:
    return 2 * M * N * K


def bytes_moved(M, N, K, dtype, out_dtype) -> int:
    """Compulsory DRAM traffic: read A and B once, write C once."""
    return (M * K + N * K) * DTYPE_BYTES[dtype] + M * N * DTYPE_BYTES[out_dtype or dtype]


def inputs(device, M, N, K, dtype):
    """Fresh N(0, 1) inputs (never zeros), drawn in fp32 and rounded to ``dtype``."""
    import torch

    wanted = getattr(torch, TORCH_NAMES.get(dtype, dtype))
    A = torch.randn((M, K), device=device, dtype=torch.float32).to(wanted)
    B = torch.randn((N, K), device=device, dtype=torch.float32).to(wanted)
    return [A, B]


def reference(A, B, epilogue):
    import torch

    ref = A.float() @ B.float().T
    return torch.relu(ref) if epilogue == "relu" else ref


@lru_cache(maxsize=None)
def _wide_mm(device: str, in_dtype: Any, out_dtype: Any) -> bool:
    """Whether this torch has ``mm(out_dtype=...)`` on ``device`` for a wider output (fp32
    accumulate and store, one GEMM): asked once, on an 8x8 problem."""
    import torch

    a = torch.ones((8, 8), device=device, dtype=in_dtype)
    try:
        torch.mm(a, a.T, out_dtype=out_dtype, out=torch.empty((8, 8), device=device, dtype=out_dtype))
    except (RuntimeError, TypeError, NotImplementedError):
        return False
    return True


def vendor(A, B, out, epilogue):
    """The vendor library's version of the kernel's work, written into ``out``: a wider output
    with ``mm(out_dtype=)`` where torch has it, else one cast; ReLU in place (none fuses it)."""
    import torch

    if out.dtype == A.dtype:
        torch.matmul(A, B.T, out=out)
    elif _wide_mm(str(A.device), A.dtype, out.dtype):
        torch.mm(A, B.T, out_dtype=out.dtype, out=out)
    else:
        out.copy_(A @ B.T)
    if epilogue == "relu":
        torch.relu_(out)


def vendor_label(A, out, epilogue) -> str:
    """Exactly what ``vendor`` launches here."""
    if out.dtype == A.dtype:
        label = "vendor GEMM torch.matmul(out=C)"
    elif _wide_mm(str(A.device), A.dtype, out.dtype):
        label = f"vendor GEMM torch.mm(out_dtype={out.dtype}, out=C)"
    else:
        label = f"vendor GEMM in {A.dtype} + 1 cast kernel (copy_ into {out.dtype} C): this torch has no mm out_dtype here"
    return label + (" + 1 elementwise kernel (in-place ReLU on C)" if epilogue == "relu" else "")


GEMM = dict(
    body={"cuda": gemm_cuda, "ascend": gemm_ascend},
    problem_id=problem_id, config_id=config_id, problem_label=problem_label, config_label=config_label, loop_trips=loop_trips,
    validate=validate, mma_tiles=mma_tiles, footprint=footprint, flops=flops, bytes_moved=bytes_moved,
    inputs=inputs, reference=reference, vendor=vendor, vendor_label=vendor_label,
)
