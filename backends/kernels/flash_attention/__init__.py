"""The flash-attention forward family, one package: problem and config types (problem.py), the
refusals (validation.py), the family (family.py: ``FLASH_ATTENTION``), its sweep (sweep.py), the
one body for every target (body.py) with its dialect pieces (dialect_cuda.py, dialect_ascend.py),
the target-specific NVIDIA bodies (hopper.py, hopper_ws.py), the SDPA reference (reference.py)
and the vendor items (vendor.py).

Importing this package needs neither tilelang nor torch; suites declare ``FaProblem(...)`` /
``FaConfig(...)`` / ``fa_stage_configs(...)`` / ``FaSweep(...)`` from here.
"""

from tlbench.backends.kernels.flash_attention.family import FLASH_ATTENTION, FlashAttentionFamily
from tlbench.backends.kernels.flash_attention.problem import FaConfig, FaProblem, FaVendorCase, fa_stage_configs
from tlbench.backends.kernels.flash_attention.sweep import FaSweep

__all__ = ["FLASH_ATTENTION", "FaConfig", "FaProblem", "FaSweep", "FaVendorCase", "FlashAttentionFamily", "fa_stage_configs"]
