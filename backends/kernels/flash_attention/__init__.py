"""What reading flash-attention records needs: the problem and config values every record
carries (problem.py: ``FaProblem``, ``FaConfig``) and their words (family.py: ``FLASH_ATTENTION``,
which also reads records written before the built-in suites were declared through
``kernel_sweep``).  The kernel itself - its bodies, reference, vendor items, refusals and
footprint - lives beside its suites (suites/kernel_fa_*.py).  Importing this package needs
neither tilelang nor torch.
"""

from tlbench.backends.kernels.flash_attention.family import FLASH_ATTENTION, FlashAttentionRecords
from tlbench.backends.kernels.flash_attention.problem import FaConfig, FaProblem

__all__ = ["FLASH_ATTENTION", "FaConfig", "FaProblem", "FlashAttentionRecords"]
