"""The GEMM kernel family: problem and config types, search axes, and ``GEMM`` (the family).

Importing this package needs neither tilelang nor torch; suites declare
``GemmProblem(...)`` / ``GemmConfig(...)`` / ``Axes(...)`` / ``stage_configs(...)`` from here.
"""

from tlbench.backends.kernels.gemm.axes import Axes, stage_configs
from tlbench.backends.kernels.gemm.family import GEMM, GemmFamily
from tlbench.backends.kernels.gemm.problem import GemmConfig, GemmProblem

__all__ = ["Axes", "GEMM", "GemmConfig", "GemmFamily", "GemmProblem", "stage_configs"]
