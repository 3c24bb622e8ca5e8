"""The GEMM kernel family: problem and config types, search axes, and ``GEMM`` (the family).

Importing this package needs neither tilelang nor torch; suites declare
``GemmProblem(...)`` / ``GemmConfig(...)`` / ``Axes(...)`` / ``stage_configs(...)`` from here.
"""

from backends.kernels.gemm.axes import Axes, stage_configs
from backends.kernels.gemm.family import GEMM, GemmFamily
from backends.kernels.gemm.problem import GemmConfig, GemmProblem

__all__ = ["Axes", "GEMM", "GemmConfig", "GemmFamily", "GemmProblem", "stage_configs"]
