"""The storage size of a tilelang dtype, from tvm's own ``DataType``: what a buffer occupies.

Contract: ``storage_bits(dtype)`` (bits x lanes; an unknown name is a ``ValueError``);
``buffer_bytes(shape, dtype)`` packs sub-byte elements (rounded up).  A sub-byte tensor is packed
along its last dimension, low nibble first (``values_per_element``, ``storage_shape``).  tvm is
imported where a size is asked.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Sequence

from tlbench.harness.core.dtypes import dtype_bits


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
