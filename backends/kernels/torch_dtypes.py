"""torch dtypes by the dtype names problems carry (``float16``, ``bfloat16``, ``float32``): shared
by the families' references.  Imports torch: only reference modules import this one."""

from __future__ import annotations

import torch

_TORCH_DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}


def torch_dtype(name: str) -> torch.dtype:
    try:
        return _TORCH_DTYPES[name]
    except KeyError:
        raise ValueError(f"dtype {name!r} has no torch reference; known: {', '.join(_TORCH_DTYPES)}") from None
