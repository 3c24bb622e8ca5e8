"""The storage size of a tilelang dtype, from tvm's own ``DataType``: what a buffer occupies.

Contract: ``storage_bits(dtype)`` is the bits one element occupies in memory - tvm's
``DataType(dtype).bits`` times its lanes (fp8 e4m3/e5m2: 8, int8/uint8: 8, bool: 8, int4 and
fp4: 4, ``float16x4``: 64); a name tvm does not know is a ``ValueError`` naming it, never a
default.  ``buffer_bytes(shape, dtype)`` is the bytes of a buffer of that shape, sub-byte
elements packed (``ceil(elements * bits / 8)``: 128 int4 values are 64 bytes).  Both backends
size on-chip buffers with it; tvm is imported where a size is asked, never at import.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Sequence


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
