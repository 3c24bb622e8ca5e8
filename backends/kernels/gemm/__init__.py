"""GEMM records written before the built-in suites were declared with ``kernel_sweep``: read back only.

Records of family ``gemm`` without ``family_described`` (results/**, tests/fixtures/**) name
their problem and config as ``GemmProblem`` / ``GemmConfig`` fields; ``GEMM`` (the
``tlbench.families`` entry point ``gemm``) reads them: ids, labels, the stage point.  Nothing
here builds or runs a kernel: the GEMM the suites run is suites/kernel_gemm.py, declared in
suites/kernel_gemm_sweep.py, and its records describe themselves.  No tilelang, no torch.
"""

from tlbench.backends.kernels.gemm.family import GEMM, GemmRecords
from tlbench.backends.kernels.gemm.problem import GemmConfig, GemmProblem

__all__ = ["GEMM", "GemmConfig", "GemmProblem", "GemmRecords"]
