"""Poisoning a kernel's outputs before its checked run, with what each dtype can hold.

Contract: ``poison(output)`` fills a family's output so an element the kernel never writes cannot
pass the check (floats NaN, bool the byte 0xFF, signed integers their minimum, unsigned their
maximum, packed 4-bit floats 0xFF bytes); ``poisoned(t)`` masks the elements still poisoned.
"""

from __future__ import annotations

from typing import Any

BOOL_POISON_BYTE = 0xFF


def _byte_view(t: Any) -> Any:
    import torch

    return t.view(torch.uint8) if t.element_size() == 1 else t.view(torch.uint8).view(-1)


def sentinel(dtype: Any) -> int | float | None:
    """The poison value of an integer or floating dtype (None: poisoned by bytes)."""
    import torch

    if dtype == torch.bool:
        return None
    if dtype.is_floating_point or dtype.is_complex:
        return float("nan")
    try:
        info = torch.iinfo(dtype)
    except TypeError:
        return None
    return info.min if info.min < 0 else info.max


def poison_tensor(t: Any) -> Any:
    value = sentinel(t.dtype)
    if value is None:
        _byte_view(t).fill_(BOOL_POISON_BYTE)
    else:
        t.fill_(value)
    return t


def poisoned(t: Any) -> Any:
    """Mask of the elements of ``t`` that still hold the poison."""
    import torch

    if t.dtype == torch.bool:
        return t.view(torch.uint8) > 1
    value = sentinel(t.dtype)
    if value is None:
        return (_byte_view(t) == BOOL_POISON_BYTE).reshape(t.shape) if t.element_size() == 1 else torch.zeros(t.shape, dtype=torch.bool)
    if isinstance(value, float):
        return torch.isnan(t.float()) if t.element_size() == 1 else torch.isnan(t)
    return t == value


def poison(output: Any) -> Any:
    method = getattr(output, "poison_", None)
    if callable(method):
        return method()
    if type(output).__module__.startswith("torch") and hasattr(output, "dtype"):
        return poison_tensor(output)
    return output.fill_(float("nan"))
