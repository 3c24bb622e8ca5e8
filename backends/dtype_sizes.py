"""The storage size of a tilelang dtype, from tvm's own ``DataType``: what a buffer occupies.

Contract: ``storage_bits(dtype)`` is the bits one element occupies in memory - tvm's
``DataType(dtype).bits`` times its lanes (fp8 e4m3/e5m2: 8, int8/uint8: 8, bool: 8, int4 and
fp4: 4, ``float16x4``: 64); a name tvm does not know is a ``ValueError`` naming it, never a
default.  ``buffer_bytes(shape, dtype)`` is the bytes of a buffer of that shape, sub-byte
elements packed (``ceil(elements * bits / 8)``: 128 int4 values are 64 bytes).  Both backends
size on-chip buffers with it; tvm is imported where a size is asked, never at import.
A tensor that holds a sub-byte dtype (int4, uint4, fp4, int2, ...) holds it *packed along its
last dimension*, as tilelang's kernels read it (an int8 tensor with two int4 values a byte,
low nibble first).  ``element_bits(dtype)`` is the bits of one value (harness/core/dtypes.py's
name table, else tvm's, so a known name needs no compiler); ``values_per_element(dtype,
element_bytes)`` how many values one storage element of ``element_bytes`` bytes holds (1 for a
dtype of a byte or more; int4 in int8: 2; fp4 in uint8: 2; int4 in int32: 8; a size that no
whole number of values fills is a ``ValueError``); ``storage_shape(shape, dtype,
element_bytes)`` the shape of such a tensor for a buffer of ``shape`` values (the last
dimension divided, rounded up: int4 ``(256, 256)`` in int8 is ``(256, 128)``).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Sequence

from ..harness.core.dtypes import dtype_bits


@lru_cache(maxsize=None)
def storage_bits(dtype: str) -> int:
    import tvm

    try:
        data_type = tvm.DataType(str(dtype))
    except Exception as exc:  # tvm raises ValueError (older: TVMError) for a name it does not parse
        raise ValueError(f"unknown dtype {str(dtype)!r}: tvm cannot size it ({exc})") from None
    bits = int(data_type.bits) * int(data_type.lanes)
    if bits <= 0:
        raise ValueError(f"dtype {str(dtype)!r} has no storage size ({bits} bits)")
    return bits


def buffer_bytes(shape: Sequence[int], dtype: str) -> int:
    """Bytes of a buffer of ``shape`` elements of ``dtype`` (sub-byte elements packed, rounded up)."""
    return math.ceil(math.prod(int(d) for d in shape) * storage_bits(dtype) / 8)


def element_bits(dtype: str) -> int:
    """Bits of one ``dtype`` value: harness/core/dtypes.py's table (no tvm needed), else tvm's."""
    try:
        return dtype_bits(str(dtype))
    except ValueError:
        return storage_bits(dtype)


def values_per_element(dtype: str, element_bytes: int) -> int:
    """Values of ``dtype`` one storage element of ``element_bytes`` bytes holds (packed when sub-byte)."""
    bits = element_bits(dtype)
    if bits >= 8:
        return 1
    if element_bytes <= 0 or (8 * element_bytes) % bits:
        raise ValueError(f"a {element_bytes}-byte element cannot hold {dtype} values ({bits} bits each) packed")
    return 8 * element_bytes // bits


def storage_shape(shape: Sequence[int], dtype: str, element_bytes: int) -> tuple[int, ...]:
    """The shape of a tensor of ``element_bytes``-byte elements holding ``shape`` values of ``dtype``."""
    dims = tuple(int(d) for d in shape)
    per = values_per_element(dtype, element_bytes)
    if per == 1 or not dims:
        return dims
    return (*dims[:-1], -(-dims[-1] // per))
