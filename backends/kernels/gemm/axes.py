"""GEMM search spaces: swept axes expanded into configs, and the seed's three loop forms.

Contract: ``Axes(...).configs()`` expands the product of the swept keys in a stable order
(``SWEPT_KEYS``), every config an ``auto`` loop; ``swept()`` names the keys with more than
one value.  ``stage_configs(tiles, num_stages)`` gives, per (block_M, block_N, block_K,
threads) tile, ``auto`` at each num_stages, then ``manual`` and ``serial``.  A sweep takes
either (``Sweep(axes=...)``, ``Sweep(configs=...)``).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Iterable, Sequence

from tlbench.backends.kernels.gemm.problem import GemmConfig

SWEPT_KEYS = ("block_M", "block_N", "block_K", "threads", "num_stages", "group_m", "stage_output", "enable_offset", "num_cores")


@dataclass(frozen=True)
class Axes:
    block_M: Sequence[int]
    block_N: Sequence[int]
    block_K: Sequence[int]
    num_stages: Sequence[int]
    threads: Sequence[int] = (128,)
    group_m: Sequence[int | None] = (None,)
    stage_output: Sequence[bool] = (False,)
    enable_offset: Sequence[bool] = (False,)
    num_cores: Sequence[int | None] = (None,)

    def swept(self) -> list[str]:
        return [k for k in SWEPT_KEYS if len(getattr(self, k)) > 1]

    def configs(self) -> list[GemmConfig]:
        values = [getattr(self, k) for k in SWEPT_KEYS]
        return [GemmConfig(loop_form="auto", **dict(zip(SWEPT_KEYS, combo))) for combo in product(*values)]


def stage_configs(
    tiles: Iterable[tuple[int, int, int, int]],
    num_stages: Iterable[int],
    manual: bool = True,
    serial: bool = True,
    **extra,
) -> list[GemmConfig]:
    """The seed's three loop forms for each (block_M, block_N, block_K, threads) tile."""
    stages = list(num_stages)
    configs: list[GemmConfig] = []
    for block_M, block_N, block_K, threads in tiles:
        tile = dict(block_M=block_M, block_N=block_N, block_K=block_K, threads=threads, **extra)
        configs += [GemmConfig(**tile, loop_form="auto", num_stages=s) for s in stages]
        if manual:
            configs.append(GemmConfig(**tile, loop_form="manual", num_stages=None))
        if serial:
            configs.append(GemmConfig(**tile, loop_form="serial", num_stages=None))
    return configs
