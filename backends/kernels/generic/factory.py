"""A user's kernel factory turned into a PrimFunc, with what tilelang's jit wrapper says about it.

Contract: a factory is a ``@tilelang.jit`` function (eager: ``T.const`` sizes and ``T.empty``
outputs; or lazy: it returns a ``@T.prim_func``; under ``@tilelang.autotune`` too: its jit is
used and tlbench sweeps the axes) or a plain function returning a PrimFunc, a jit, or a
compiled kernel (tilelang's upstream Ascend examples compile inside: the PrimFunc of that
compile is taken instead, backends/kernels/generic/jit_capture.py).
``prim_func(factory, kwargs, optional)`` calls it with ``factory_kwargs``: every keyword of
``kwargs`` (the problem's sizes, the config's axes, the constants), less the ``optional`` names
(the sizes) the factory does not take - a dimension the body leaves ``T.dynamic`` is not a
parameter of the factory.  A factory takes a name when its signature names it or has
``**kwargs``; an eager ``@tilelang.jit`` function takes every name (tilelang matches them to
its ``T.const`` names).  It returns the PrimFunc with every output a caller-allocated parameter
(tilelang's ``tilelang_out_idx`` attribute dropped: tlbench allocates outputs once, outside
the timed call, so a timed call is the kernel alone); the kernel stays as written, symbolic
dimensions included (one binary for every value, as the user ships it).
``bound_values(func, made, sizes)``: the values of the kernel's symbolic dimensions, read off
the shapes of ``made`` (what ``inputs()`` returned), then from the sizes of the same name
(backends/symbolic_shapes.py); ``output_specs(func, made, sizes)``: (name, shape, dtype) of
each parameter after ``made``, bound so; ``parameter_specs(func, values)`` every parameter's.  ``jit_options(factory)``
returns the jit's ``pass_configs`` and ``target`` (empty / None for a plain function);
``source_file(factory)`` the file that defines the body (its hash keys every cache of a
built kernel).  tilelang is imported only where a factory is called.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from tlbench.backends.kernels.generic.jit_capture import call_capturing

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


def _takes_every_keyword(factory: Any, named: Mapping[str, Any]) -> bool:
    """Does the factory take keywords its signature does not name?  ``**kwargs`` does; so does
    an eager ``@tilelang.jit`` function (its ``T.const`` names are not parameters).  ``named``
    are the keywords the signature takes (a jit of unknown mode is asked with those)."""
    function = _python_function(factory)
    try:
        params = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return True  # no signature to read: pass everything, the factory's own error names the name
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return True
    jit = _jit(factory)
    if jit is None:
        return False
    mode = getattr(jit, "mode", "auto")
    if mode in ("lazy", "eager"):
        return mode == "eager"
    jit_func = getattr(jit, "func", None)
    if not hasattr(jit_func, "_is_lazy_style"):
        return False  # a jit of a PrimFunc or a plain callable: lazy
    if getattr(jit_func, "tensor_args", None):
        return True  # tensors declared in the signature: the builder (eager) pattern
    try:
        return not jit_func._is_lazy_style(**named)  # tilelang's own test, with the names the function takes
    except TypeError:
        return True


def factory_kwargs(factory: Any, kwargs: Mapping[str, Any], optional: Any = ()) -> dict[str, Any]:
    """The keywords the factory is called with: ``kwargs`` less each ``optional`` name it does not take."""
    optional = set(optional)
    try:
        params = inspect.signature(_python_function(factory)).parameters
    except (TypeError, ValueError):
        return dict(kwargs)
    named = {k: v for k, v in kwargs.items() if k in params}
    if not optional - set(named) or _takes_every_keyword(factory, named):
        return dict(kwargs)
    return {k: v for k, v in kwargs.items() if k in params or k not in optional}


def prim_func(factory: Any, kwargs: Mapping[str, Any], optional: Any = ()) -> Any:
    """The factory's PrimFunc for ``kwargs`` (less the ``optional`` names it does not take),
    every output a parameter the caller allocates."""
    from tvm.tirx import PrimFunc

    jit = _jit(factory)
    given = factory_kwargs(factory, kwargs, optional)
    if jit is not None:
        func = jit.get_tir(**given)
    else:  # a plain function; one that compiles a jit inside answers with that jit's PrimFunc
        func = call_capturing(lambda: factory(**given))
    if _jit(func) is not None:  # a plain function that returned a jit kernel
        func = func.get_tir()
    elif not isinstance(func, PrimFunc) and isinstance(getattr(func, "prim_func", None), PrimFunc):
        func = func.prim_func  # a compiled JITKernel (tilelang's cache answered the compile)
    if not isinstance(func, PrimFunc):
        raise TypeError(f"kernel factory {factory_name(factory)} returned {type(func).__name__}, not a PrimFunc: "
                        "decorate it with @tilelang.jit or return a @T.prim_func")
    if func.attrs is not None and OUT_IDX_ATTR in func.attrs:
        func = func.without_attr(OUT_IDX_ATTR)
    return func


def parameter_specs(func: Any, values: Mapping[str, Any] | None = None) -> list[tuple[str, tuple[int, ...], str]]:
    """(name, shape, dtype) of each parameter of a PrimFunc, in order, symbolic dimensions
    bound from ``values``; a dimension left symbolic raises, naming the parameter and the name."""
    from tlbench.backends.symbolic_shapes import concrete_shape

    specs = []
    for param in func.params:
        buffer = func.buffer_map.get(param)
        if buffer is None:
            specs.append((str(param.name), (), str(param.dtype)))
            continue
        specs.append((str(buffer.name), concrete_shape(buffer, values or {}, "parameter"), str(buffer.dtype)))
    return specs


def bound_values(func: Any, made: Sequence[Any], sizes: Mapping[str, Any]) -> dict[str, int]:
    """Values of ``func``'s symbolic dimensions: read off the shapes of ``made`` (the leading
    arguments ``inputs()`` returned), then the ``sizes`` of the same name; an input's shape and
    a size that disagree raise, naming the dimension and both values."""
    from tlbench.backends.symbolic_shapes import bind_arguments

    if len(made) > len(func.params):
        raise ValueError(f"inputs() made {len(made)} arguments, the kernel takes {len(func.params)}")
    values = bind_arguments(func, made)
    for name, value in sizes.items():
        if name in values and isinstance(value, int) and not isinstance(value, bool) and values[name] != value:
            raise ValueError(f"symbolic dimension {name} is {values[name]} in the tensors inputs() made, "
                             f"but sizes say {name}={value}")
        if isinstance(value, int) and not isinstance(value, bool):
            values.setdefault(name, value)
    return values


def output_specs(func: Any, made: Sequence[Any], sizes: Mapping[str, Any]) -> list[tuple[str, tuple[int, ...], str]]:
    """(name, shape, dtype) of the parameters after the ``made`` leading arguments (the outputs
    tlbench allocates), symbolic dimensions bound by ``bound_values``."""
    from tlbench.backends.symbolic_shapes import concrete_shape

    values = bound_values(func, made, sizes)
    specs = []
    for param in func.params[len(made):]:
        buffer = func.buffer_map.get(param)
        if buffer is None:
            raise ValueError(f"kernel parameter {param.name} ({param.dtype}) is not a buffer: return it from inputs()")
        specs.append((str(buffer.name), concrete_shape(buffer, values, "output"), str(buffer.dtype)))
    return specs
