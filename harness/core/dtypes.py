"""Element sizes of the dtypes kernels use, by name, with no compiler or torch imported.

Contract: ``dtype_bits(name)`` is the bits one element of ``name`` occupies in memory, read from the name by a fixed
table of the spellings tilelang, tvm and torch use: ``float16`` / ``half`` / ``torch.float16``; ``bfloat16``;
``float32`` / ``float``; ``float64``; fp8 (``float8_e4m3``, ``float8_e4m3fn``, ``float8_e4m3fnuz``, ``float8_e5m2``,
``float8_e5m2fnuz``, ``float8_e8m0fnu``, tilelang's older ``e4m3_float8`` / ``e5m2_float8``): 8; fp6: 6; fp4
(``float4_e2m1fn``): 4; ``int``/``uint`` of 1, 2, 4, 8, 16, 32, 64 bits; ``bool``: 8 (one byte each, as tvm and
torch store it); a vector type ``float16x4``: the lanes times the element. A name not in the table is a
``ValueError`` naming it - never a default size. ``buffer_bytes(shape, dtype)`` is the bytes of a buffer of that
shape: sub-byte elements are packed (``ceil(elements * bits / 8)``: 128 int4 values are 64 bytes).  A backend that
has its compiler at hand sizes buffers with the compiler's own data type instead (backends/dtype_sizes.py); both
agree on every name here.  ``profile_name(name)`` is the spelling device profiles key their peaks by
(``torch.float16`` / ``half`` -> ``float16``, ``float`` -> ``float32``, ``float8_e4m3fn`` / ``e4m3_float8`` ->
``float8_e4m3``, ``e5m2_float8`` -> ``float8_e5m2``; any other name as it is, ``torch.`` taken off);
``is_floating(name)`` whether it names a floating dtype.
"""

from __future__ import annotations

import math
import re
from typing import Sequence

_FLOAT_BITS = {
    "float16": 16, "half": 16, "bfloat16": 16, "float32": 32, "float": 32, "float64": 64, "double": 64,
    "float8_e4m3": 8, "float8_e4m3fn": 8, "float8_e4m3fnuz": 8, "float8_e4m3b11fnuz": 8, "float8_e5m2": 8,
    "float8_e5m2fnuz": 8, "float8_e8m0fnu": 8, "e4m3_float8": 8, "e5m2_float8": 8,
    "float6_e2m3fn": 6, "float6_e3m2fn": 6, "float4_e2m1fn": 4, "float4_e2m1fn_x2": 8,
}
_INT_WIDTHS = (1, 2, 4, 8, 16, 32, 64)
_NAMED = {
    **_FLOAT_BITS, "bool": 8, "int": 32, **{f"int{w}": w for w in _INT_WIDTHS}, **{f"uint{w}": w for w in _INT_WIDTHS},
}
_VECTOR = re.compile(r"^(?P<base>.+?)x(?P<lanes>[1-9][0-9]*)$")


def dtype_bits(name: str) -> int:
    """Bits one element of ``name`` occupies (``torch.`` prefix allowed); unknown names raise."""
    text = str(name).strip()
    key = text[len("torch."):] if text.startswith("torch.") else text
    if key in _NAMED:
        return _NAMED[key]
    vector = _VECTOR.match(key)
    if vector and vector["base"] in _NAMED:
        return _NAMED[vector["base"]] * int(vector["lanes"])
    raise ValueError(f"unknown dtype {text!r}: no element size for it (known: float16, bfloat16, float32, float64, "
                     "float8_e4m3fn, float8_e5m2, float8_e8m0fnu, float6_*, float4_e2m1fn, int1..int64, uint1..uint64, "
                     "bool, and vectors such as float16x4)")


_PROFILE_SPELLING = {"half": "float16", "float": "float32", "double": "float64", "float8_e4m3fn": "float8_e4m3",
                     "e4m3_float8": "float8_e4m3", "e5m2_float8": "float8_e5m2"}


def profile_name(name: str) -> str:
    """``name`` as device profiles spell it (harness/core/device_profile.py)."""
    key = str(name).strip().removeprefix("torch.")
    return _PROFILE_SPELLING.get(key, key)


def is_floating(name: str) -> bool:
    return str(name).strip().removeprefix("torch.") in _FLOAT_BITS


def buffer_bytes(shape: Sequence[int], dtype: str) -> int:
    """Bytes of a buffer of ``shape`` elements of ``dtype`` (sub-byte elements packed, rounded up)."""
    return math.ceil(math.prod(int(d) for d in shape) * dtype_bits(dtype) / 8)
