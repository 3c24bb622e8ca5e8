"""Element sizes of the dtypes kernels use, by name, with no compiler or torch imported.

Contract: ``dtype_bits(name)``: bits per element from a fixed table of tilelang / tvm / torch spellings (floats,
fp8, fp6, fp4, ``int``/``uint`` widths, ``bool`` 8, vectors such as ``float16x4``); an unknown name raises
``ValueError``, never a default.  ``buffer_bytes(shape, dtype)`` packs sub-byte elements (rounded up).
``profile_name(name)``: the spelling device profiles key peaks by; ``is_floating(name)``.
"""

from __future__ import annotations

import math
import re
from typing import Sequence

_FLOAT_BITS = {
    "float16": 16, "half": 16, "bfloat16": 16, "float32": 32, "float": 32, "float64": 64, "double": 64,
    "float8_e4m3": 8, "float8_e4m3fn": 8, "float8_e4m3fnuz": 8, "float8_e4m3b11fnuz": 8, "float8_e5m2": 8,
    "float8_e5m2fnuz": 8, "float8_e8m0fnu": 8, "e4m3_float8": 8, "e5m2_float8": 8,
    "float6_e2m3fn": 6, "float6_e3m2fn": 6, "float4_e2m1fn": 4, "float4_e2m1fn_x2": 8}
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
