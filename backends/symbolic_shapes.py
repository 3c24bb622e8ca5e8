"""Symbolic dimensions of a tilelang kernel (``T.dynamic("M")``), bound to values.

Contract: a kernel is compiled as written; where tlbench needs a number the expression is
evaluated with the names bound (``evaluate``: an int where constant, else the simplified text).
``bind_arguments`` reads ``{name: value}`` off the caller's tensors (a mismatch is a
``ValueError``); ``concrete_shape`` raises naming what stays symbolic; ``specialize`` replaces
bound shapes *and strides* (tvm's ``specialize`` refuses them without).  tvm is imported where
an expression is evaluated.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def free_names(expr: Any) -> list[str]:
    """The names of the variables in ``expr`` (sorted, each once); [] for an int."""
    if _is_int(expr):
        return []
    from tvm import tirx

    names: set[str] = set()

    def visit(node: Any) -> None:
        if isinstance(node, tirx.Var):
            names.add(str(node.name))

    tirx.stmt_functor.post_order_visit(tirx.Evaluate(expr), visit)
    return sorted(names)


def evaluate(expr: Any, values: Mapping[str, int] | None = None) -> int | str:
    """``expr`` with the named variables bound: an int where it is then constant, else its text."""
    if _is_int(expr):
        return int(expr)
    import tvm
    from tvm import tirx

    if isinstance(expr, tirx.IntImm):
        return int(expr.value)
    values = {k: v for k, v in (values or {}).items() if _is_int(v)}
    if values:
        found: dict[Any, Any] = {}

        def visit(node: Any) -> None:
            if isinstance(node, tirx.Var) and str(node.name) in values:
                found[node] = tirx.IntImm(node.dtype, values[str(node.name)])

        tirx.stmt_functor.post_order_visit(tirx.Evaluate(expr), visit)
        if found:
            expr = tirx.stmt_functor.substitute(expr, found)
    simplified = tvm.arith.Analyzer().simplify(expr)
    return int(simplified.value) if isinstance(simplified, tirx.IntImm) else str(simplified)


def bind_arguments(func: Any, args: Sequence[Any]) -> dict[str, int]:
    """The symbolic dimensions of ``func``'s leading buffer parameters, read off ``args``."""
    from tvm import tirx

    bound: dict[str, int] = {}
    for param, arg in zip(func.params, args):
        buffer = func.buffer_map.get(param)
        shape = getattr(arg, "shape", None)
        if buffer is None or shape is None:
            continue
        given = tuple(int(d) for d in shape)
        if len(given) != len(buffer.shape):
            raise ValueError(f"parameter {buffer.name} has {len(buffer.shape)} dimension(s) {_text(buffer.shape)}; "
                             f"inputs() gave a tensor of shape {list(given)}")
        per = _packed(buffer, arg)
        last = len(given) - 1
        for axis, (dim, value) in enumerate(zip(buffer.shape, given)):
            packed = per > 1 and axis == last
            if isinstance(dim, tirx.Var):
                name = str(dim.name)
                value = value * per if packed else value
                if bound.setdefault(name, value) != value:
                    raise ValueError(f"symbolic dimension {name} is {bound[name]} by an earlier input and {value} by "
                                     f"parameter {buffer.name} (dimension {axis}): inputs() must agree")
            else:
                expected = evaluate(dim, bound)
                if not _is_int(expected):
                    continue
                stored = -(-expected // per) if packed else expected
                if stored != value:
                    how = (f" ({expected} {buffer.dtype} values, {per} to an element of the tensor: {stored} elements)"
                           if packed else "")
                    raise ValueError(f"parameter {buffer.name} dimension {axis} is {expected}{how}; inputs() gave {value} "
                                     f"(shape {list(given)} for {_text(buffer.shape)})")
    return bound


def _packed(buffer: Any, arg: Any) -> int:
    """How many of ``buffer``'s values one element of ``arg`` holds along the last dimension
    (1 unless the buffer's dtype is narrower than a byte; an element of unknown size is a byte)."""
    from .dtype_sizes import element_bits, values_per_element

    dtype = str(buffer.dtype)
    if element_bits(dtype) >= 8:
        return 1
    size = getattr(arg, "element_size", None)
    element_bytes = size() if callable(size) else getattr(getattr(arg, "dtype", None), "itemsize", None) or 1
    return values_per_element(dtype, int(element_bytes))


def concrete_shape(buffer: Any, values: Mapping[str, int], what: str) -> tuple[int, ...]:
    """``buffer``'s shape with ``values`` bound; a dimension that stays symbolic raises."""
    shape = []
    for axis, dim in enumerate(buffer.shape):
        value = evaluate(dim, values)
        if not _is_int(value):
            unbound = ", ".join(n for n in free_names(dim) if n not in values)
            raise ValueError(f"{what} {buffer.name} has a symbolic shape {_text(buffer.shape)} and {unbound} has no value "
                             f"(dimension {axis} is {value}): name {unbound} in sizes, or return {buffer.name} from inputs()")
        shape.append(value)
    return tuple(shape)


def launch_dims(device_func: Any, tag: str, values: Mapping[str, int] | None = None) -> list[int | str]:
    attrs = device_func.attrs
    extent = attrs["thread_extent"] if attrs is not None and "thread_extent" in attrs else {}
    return [evaluate(extent[f"{tag}.{axis}"], values) if f"{tag}.{axis}" in extent else (0 if axis == "x" else 1)
            for axis in "xyz"]


def product(dims: Sequence[int | str]) -> int | str:
    if all(_is_int(d) for d in dims):
        return math.prod(int(d) for d in dims)
    factors = [d for d in dims if d != 1]
    if len(factors) == 1:
        return str(factors[0])
    return " * ".join(f"({d})" if isinstance(d, str) else str(d) for d in factors)


def symbolic_names(func: Any) -> list[str]:
    return sorted({name for buffer in func.buffer_map.values() for dim in buffer.shape
                   for name in free_names(dim)})


def specialize(func: Any, values: Mapping[str, int]) -> Any:
    from tvm import tirx

    replaced = {}
    for param in func.params:
        buffer = func.buffer_map.get(param)
        if buffer is None or not any(n in values for dim in buffer.shape for n in free_names(dim)):
            continue
        shape = [evaluate(d, values) for d in buffer.shape]
        strides = [evaluate(d, values) for d in buffer.strides]
        if not all(_is_int(d) for d in [*shape, *strides]):
            continue  # another name of it has no value: leave the buffer symbolic
        replaced[param] = tirx.decl_buffer(shape, buffer.dtype, buffer.name, strides=strides,
                                           elem_offset=buffer.elem_offset, scope=str(buffer.scope()),
                                           data_alignment=buffer.data_alignment, offset_factor=buffer.offset_factor)
    return func.specialize(replaced) if replaced else func


def _text(shape: Sequence[Any]) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"
