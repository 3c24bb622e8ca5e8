"""Backends: the code that knows tilelang, torch and the accelerators.

Importing this package sets no environment variable.  Where ``torch_npu`` is installed and torch
is not yet imported, it imports torch once under ``TORCH_DEVICE_BACKEND_AUTOLOAD=0``, then restores
the variable: torch_npu's auto-loaded backend fails ``import torch`` on a machine without CANN.
The Ascend backend imports torch_npu explicitly, where a failure becomes a skip reason.
"""

import importlib.util
import os
import sys

AUTOLOAD = "TORCH_DEVICE_BACKEND_AUTOLOAD"


def _torch_npu_installed() -> bool:
    try:
        return importlib.util.find_spec("torch_npu") is not None
    except (ImportError, ValueError):
        return False


def _import_torch_without_autoload() -> None:
    if "torch" in sys.modules or not _torch_npu_installed():
        return
    before = os.environ.get(AUTOLOAD)
    os.environ[AUTOLOAD] = "0" if before is None else before
    try:
        import torch  # noqa: F401  (imported once, without the device-backend auto-load)
    except ImportError:
        pass  # no torch at all: whoever needs it says so
    finally:
        if before is None:
            os.environ.pop(AUTOLOAD, None)


_import_torch_without_autoload()
