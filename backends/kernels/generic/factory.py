"""A user's kernel body turned into a PrimFunc, with what tilelang's jit wrapper says about it.

Contract: a body is a ``@tilelang.jit`` function (eager or lazy; under ``@tilelang.autotune``
its jit), a plain function returning a PrimFunc or a jit call (answered with its PrimFunc, so no
device compiler is needed), a PrimFunc, or a compiled ``JITKernel``.  ``built(factory, values)``:
the PrimFunc for ``values`` without ``tilelang_out_idx`` (tlbench allocates outputs outside the
timed call) and the ``JitOptions`` of its jit; a non-PrimFunc result raises ``TypeError``.
tilelang is imported only where a factory is called.
"""

from __future__ import annotations

import inspect
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, NamedTuple, Sequence

from tlbench.harness.sweep_api.callables import Takes

OUT_IDX_ATTR = "tilelang_out_idx"
_CAPTURING = threading.local()  # set while tlbench calls a plain factory: a jit call inside answers with its PrimFunc
_INSTALL = threading.Lock()


def _jit(factory: Any) -> Any | None:
    """The tilelang ``JITImpl`` behind ``factory``: itself, or the one a ``@tilelang.autotune``
    wraps (tlbench sweeps the axes itself); None for a plain function."""
    factory = getattr(factory, "jit_impl", factory)
    return factory if hasattr(factory, "get_tir") and hasattr(factory, "pass_configs") else None


def is_prim_func(value: Any) -> bool:
    return type(value).__name__ == "PrimFunc" and hasattr(value, "buffer_map")


def is_compiled_kernel(value: Any) -> bool:
    """A compiled tilelang kernel object (``JITKernel``): it carries the PrimFunc it was built from."""
    return _jit(value) is None and is_prim_func(getattr(value, "prim_func", None))


def is_body(value: Any) -> bool:
    """Whether ``value`` can be a kernel body (a factory, a PrimFunc or a compiled kernel)."""
    return callable(value) or is_prim_func(value) or is_compiled_kernel(value)


def _python_function(factory: Any) -> Callable[..., Any] | None:
    jit = _jit(factory)
    if jit is not None:
        inner = getattr(jit, "func", None)
        return getattr(inner, "orig_func", inner)
    if is_compiled_kernel(factory):
        factory = factory.prim_func
    return getattr(factory, "orig_func", None) if is_prim_func(factory) else factory


def source_file(factory: Any) -> Path | None:
    """The ``.py`` file whose source defines the factory's kernel body (None: an object that
    does not say where it came from)."""
    function = _python_function(factory)
    if function is None:
        return None
    try:
        path = inspect.getsourcefile(inspect.unwrap(function))
    except TypeError as exc:
        raise TypeError(f"cannot find the source file of kernel factory {factory!r}: {exc}") from None
    if not path:
        raise TypeError(f"kernel factory {factory!r} has no source file (define it in a .py module)")
    return Path(path).resolve()


def factory_name(factory: Any) -> str:
    function = _python_function(factory)
    if function is None:
        return type(factory).__name__
    return getattr(function, "__qualname__", getattr(function, "__name__", repr(factory)))


class JitOptions(NamedTuple):
    pass_configs: Mapping[str, Any]  # tilelang pass-config key -> value
    target: str | None  # None: the backend's own


def _options_of(jit: Any | None) -> JitOptions:
    target = getattr(jit, "target", None)
    return JitOptions(dict(getattr(jit, "pass_configs", None) or {}),
                      None if target in (None, "auto") else str(target))


def jit_options(factory: Any) -> JitOptions:
    """The pass configs and target the factory's own jit wrapper declares."""
    return _options_of(_jit(factory))


@dataclass(frozen=True)
class FactoryTakes:
    """``takes``: its signature (None: a PrimFunc or compiled kernel); ``tensors``: an eager jit's
    tensor parameters (tilelang fills them); ``eager``: extra names are ``T.const`` bindings."""

    takes: Takes | None
    tensors: frozenset[str] = frozenset()
    eager: bool = False
    called: bool = True

    def accepts(self, name: str, const_names: frozenset[str] | None = None) -> bool:
        if not self.called:
            return False
        if self.takes is None or self.takes.var_keyword:
            return True
        if name in self.takes.keyword and name not in self.tensors:
            return True
        return self.eager and (const_names is None or name in const_names)

    def required(self) -> list[str]:
        if self.takes is None or not self.called:
            return []
        return [n for n in self.takes.required if n not in self.tensors]


def factory_takes(factory: Any) -> FactoryTakes:
    if is_prim_func(factory) or is_compiled_kernel(factory):
        return FactoryTakes(None, called=False)
    jit = _jit(factory)
    function = _python_function(factory)
    takes = Takes.of(function)
    tensors = frozenset(getattr(getattr(jit, "func", None), "tensor_args", None) or ()) if jit is not None else frozenset()
    return FactoryTakes(takes, tensors, eager=bool(tensors))


def const_names(factory: Any) -> frozenset[str] | None:
    """The ``T.const`` names an eager jit's traced templates bind (None: not an eager jit, or
    not traced yet, or a tilelang that does not say)."""
    jit = _jit(factory)
    cache = getattr(getattr(jit, "func", None), "p1_cache", None)
    if not cache:
        return None
    names: set[str] = set()
    try:
        for template in list(cache.values()):
            names |= {str(entry[3]) for entry in (getattr(template, "matcher", None) or {}).values()}
    except (TypeError, IndexError, AttributeError):
        return None
    return frozenset(names)


def factory_kwargs(factory: Any, values: Mapping[str, Any]) -> dict[str, Any]:
    """The entries of ``values`` the factory receives: an eager jit all (``T.const`` bindings), any
    other function those its signature takes, a PrimFunc or compiled kernel none."""
    facts = factory_takes(factory)
    if not facts.called:
        return {}
    if facts.eager or facts.takes is None:
        return {k: v for k, v in values.items() if k not in facts.tensors}
    return facts.takes.by_keyword(values)


class _Captured(NamedTuple):
    """What a jit call inside a plain factory returned while tlbench was taking its PrimFunc."""

    func: Any
    jit: Any


def _install_capture() -> None:
    """Make a ``@tilelang.jit`` call answer with its PrimFunc while ``_CAPTURING.active`` is set
    in the calling thread (and behave exactly as before otherwise)."""
    from tilelang.jit import JITImpl

    with _INSTALL:
        if getattr(JITImpl, "_tlbench_capture", False):
            return
        original = JITImpl.__call__

        def __call__(self: Any, *args: Any, **kwargs: Any) -> Any:
            if getattr(_CAPTURING, "active", False):
                return _Captured(self.get_tir(*args, **kwargs), self)
            return original(self, *args, **kwargs)

        JITImpl.__call__ = __call__
        JITImpl._tlbench_capture = True


@dataclass(frozen=True)
class Built:
    func: Any  # the PrimFunc, outputs as parameters
    options: JitOptions  # of the jit that made it


def built(factory: Any, values: Mapping[str, Any]) -> Built:
    """The factory's PrimFunc for ``values`` (see the contract)."""
    jit = _jit(factory)
    options = _options_of(jit)
    if is_compiled_kernel(factory):
        func = factory.prim_func
    elif is_prim_func(factory):
        func = factory
    elif jit is not None:
        func = jit.get_tir(**factory_kwargs(factory, values))
    else:
        _install_capture()
        _CAPTURING.active = True
        try:
            func = factory(**factory_kwargs(factory, values))
        finally:
            _CAPTURING.active = False
        if isinstance(func, _Captured):
            options = _options_of(func.jit)
            func = func.func
        elif _jit(func) is not None:  # a plain function that returned a jit object (not a call of it)
            options = _options_of(_jit(func))
            func = _jit(func).get_tir()
        elif is_compiled_kernel(func):  # compiled inside the factory (tilelang.compile): its PrimFunc
            func = func.prim_func
    if not is_prim_func(func):
        raise TypeError(f"kernel factory {factory_name(factory)} returned {type(func).__name__}, not a PrimFunc: "
                        "decorate it with @tilelang.jit or return a @T.prim_func")
    if func.attrs is not None and OUT_IDX_ATTR in func.attrs:
        func = func.without_attr(OUT_IDX_ATTR)
    return Built(func, options)


def parameter_specs(func: Any, values: Mapping[str, Any] | None = None) -> list[tuple[str, tuple[int, ...], str]]:
    """(name, shape, dtype) of each parameter of a PrimFunc, in order, symbolic dimensions
    bound from ``values``; a dimension left symbolic raises, naming the parameter and the name."""
    from ...symbolic_shapes import concrete_shape

    return [(str(param.name), (), str(param.dtype)) if (buffer := func.buffer_map.get(param)) is None
            else (str(buffer.name), concrete_shape(buffer, values or {}, "parameter"), str(buffer.dtype))
            for param in func.params]


def bound_values(func: Any, made: Sequence[Any], sizes: Mapping[str, Any]) -> dict[str, int]:
    """Values of ``func``'s symbolic dimensions, read off the shapes of ``made`` then the ``sizes``
    of the same name; a shape and a size that disagree raise, naming the dimension and both."""
    from ...symbolic_shapes import bind_arguments

    if len(made) > len(func.params):
        raise ValueError(f"inputs() made {len(made)} arguments, the kernel takes {len(func.params)}")
    values = bind_arguments(func, made)
    for name, value in sizes.items():
        if isinstance(value, int) and not isinstance(value, bool) and values.setdefault(name, value) != value:
            raise ValueError(f"symbolic dimension {name} is {values[name]} in the tensors inputs() made, "
                             f"but sizes say {name}={value}")
    return values


def output_specs(func: Any, made: Sequence[Any], sizes: Mapping[str, Any]) -> list[tuple[str, tuple[int, ...], str]]:
    """(name, shape, dtype) of the parameters after the ``made`` leading arguments (the outputs
    tlbench allocates), symbolic dimensions bound by ``bound_values``."""
    from ...symbolic_shapes import concrete_shape

    values = bound_values(func, made, sizes)
    specs = []
    for param in func.params[len(made):]:
        buffer = func.buffer_map.get(param)
        if buffer is None:
            raise ValueError(f"kernel parameter {param.name} ({param.dtype}) is not a buffer: return it from inputs()")
        specs.append((str(buffer.name), concrete_shape(buffer, values, "output"), str(buffer.dtype)))
    return specs
