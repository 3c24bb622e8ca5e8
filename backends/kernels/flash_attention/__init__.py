"""The flash-attention forward family, one package: problem and config types (problem.py), the
refusals (validation.py), the family (family.py: ``FLASH_ATTENTION``), the one body for every
target (body.py) with its dialect pieces (dialect_cuda.py, dialect_ascend.py), the
target-specific NVIDIA bodies (hopper.py, hopper_ws.py), the SDPA reference (reference.py) and
the vendor items (vendor.py).

Importing this package needs neither tilelang nor torch.  The built-in suites declare their
kernel through ``kernel_sweep`` (suites/kernel_fa_sweep.py), whose factories build these bodies.
"""

from tlbench.backends.kernels.flash_attention.family import FLASH_ATTENTION, FlashAttentionFamily
from tlbench.backends.kernels.flash_attention.problem import FaConfig, FaProblem, FaVendorCase

__all__ = ["FLASH_ATTENTION", "FaConfig", "FaProblem", "FaVendorCase", "FlashAttentionFamily"]
