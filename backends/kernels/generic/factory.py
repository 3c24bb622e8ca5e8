"""A user's kernel factory turned into a PrimFunc, with what tilelang's jit wrapper says about it.

Contract: a factory is a ``@tilelang.jit`` function (eager: ``T.const`` sizes and ``T.empty``
outputs; or lazy: it returns a ``@T.prim_func``; under ``@tilelang.autotune`` too: its jit is
used and tlbench sweeps the axes) or a plain function returning a PrimFunc.
``prim_func(factory, kwargs)`` calls it with the problem's sizes and the config's axes as
keyword arguments and returns the PrimFunc with every output a caller-allocated parameter
(tilelang's ``tilelang_out_idx`` attribute dropped: tlbench allocates outputs once, outside
the timed call, so a timed call is the kernel alone).  ``jit_options(factory)`` returns the
jit's ``pass_configs`` and ``target`` (empty / None for a plain function);
``source_file(factory)`` the file that defines the body (its hash keys every cache of a
built kernel).  tilelang is imported only where a factory is called.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, Callable, Mapping

OUT_IDX_ATTR = "tilelang_out_idx"


def _jit(factory: Any) -> Any | None:
    """The tilelang ``JITImpl`` behind ``factory``: itself, or the one a ``@tilelang.autotune``
    wraps (tlbench sweeps the axes itself); None for a plain function."""
    factory = getattr(factory, "jit_impl", factory)
    return factory if hasattr(factory, "get_tir") and hasattr(factory, "pass_configs") else None


def _python_function(factory: Any) -> Callable[..., Any]:
    jit = _jit(factory)
    if jit is None:
        return factory
    inner = getattr(jit, "func", None)
    return getattr(inner, "orig_func", inner)


def source_file(factory: Any) -> Path:
    """The ``.py`` file whose source defines the factory's kernel body."""
    try:
        path = inspect.getsourcefile(inspect.unwrap(_python_function(factory)))
    except TypeError as exc:
        raise TypeError(f"cannot find the source file of kernel factory {factory!r}: {exc}") from None
    if not path:
        raise TypeError(f"kernel factory {factory!r} has no source file (define it in a .py module)")
    return Path(path).resolve()


def factory_name(factory: Any) -> str:
    function = _python_function(factory)
    return getattr(function, "__qualname__", getattr(function, "__name__", repr(factory)))


def jit_options(factory: Any) -> dict[str, Any]:
    """``{"pass_configs": {...}, "target": ...}`` as the jit wrapper declares them."""
    jit = _jit(factory)
    if jit is None:
        return {"pass_configs": {}, "target": None}
    target = getattr(jit, "target", None)
    return {"pass_configs": dict(getattr(jit, "pass_configs", None) or {}),
            "target": None if target in (None, "auto") else str(target)}


def prim_func(factory: Any, kwargs: Mapping[str, Any]) -> Any:
    """The factory's PrimFunc for ``kwargs``, every output a parameter the caller allocates."""
    from tvm.tirx import PrimFunc

    jit = _jit(factory)
    func = jit.get_tir(**kwargs) if jit is not None else factory(**kwargs)
    if _jit(func) is not None:  # a plain function that returned a jit kernel
        func = func.get_tir()
    if not isinstance(func, PrimFunc):
        raise TypeError(f"kernel factory {factory_name(factory)} returned {type(func).__name__}, not a PrimFunc: "
                        "decorate it with @tilelang.jit or return a @T.prim_func")
    if func.attrs is not None and OUT_IDX_ATTR in func.attrs:
        func = func.without_attr(OUT_IDX_ATTR)
    return func


def parameter_specs(func: Any) -> list[tuple[str, tuple[int, ...], str]]:
    """(name, shape, dtype) of each buffer parameter of a PrimFunc, in order; a shape that is
    not a constant raises (give such a kernel its outputs through ``inputs``)."""
    specs = []
    for param in func.params:
        buffer = func.buffer_map.get(param)
        if buffer is None:
            specs.append((str(param.name), (), str(param.dtype)))
            continue
        try:
            shape = tuple(int(dim) for dim in buffer.shape)
        except TypeError:
            raise ValueError(f"parameter {buffer.name} has a symbolic shape {list(buffer.shape)}: "
                             "return it from inputs() so tlbench need not size it") from None
        specs.append((str(buffer.name), shape, str(buffer.dtype)))
    return specs
