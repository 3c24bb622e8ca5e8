"""Backends: the code that knows tilelang, torch and the accelerators.

Importing this package makes ``import torch`` safe on a machine where ``torch_npu`` is
installed but CANN is not: torch >= 2.5 auto-loads device backends registered under the
``torch.backends`` entry point, and torch_npu's loader then fails the whole ``import torch``
(missing ``libhccl.so``).  ``TORCH_DEVICE_BACKEND_AUTOLOAD=0`` turns that auto-load off; the
Ascend backend imports torch_npu explicitly, where a failure becomes a skip reason.
A value the user set is respected.
"""

import os

os.environ.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "0")
