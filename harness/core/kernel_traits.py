"""What a backend may ask of a case besides its body, answered by the family, with defaults.

Contract: a backend never reads a family's config fields; it asks here, and a family that declares
nothing gets the defaults (never an ``AttributeError``).  ``kernel_traits(case, dialect)``: the
family's ``kernel_traits(problem, config, dialect)`` (unknown names raise ``ValueError``) over the
config's attributes over the defaults.  ``kernel_hash(case, dialect)``: ``sha256:<hex>`` of the
body modules and the user modules they import, with ``fixed_arguments``; None for a vendor item.
``vendor_call`` (``NoVendorCall``), ``inputs_key``, ``input_dtypes``, ``make_inputs`` / ``check``
pass ``dialect=`` / ``config=`` / ``vendor=`` where the family's method takes them.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import sys
from dataclasses import dataclass, field, fields
from importlib.util import find_spec
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Mapping, Sequence

from .source_closure import source_closure

BodyModule = "str | os.PathLike[str] | ModuleType"


@dataclass(frozen=True)
class KernelTraits:
    loop_form: str | None = None  # "auto" (T.Pipelined), "manual", "serial"; None: not a pipelined family
    num_stages: int | None = None
    threads: int | None = None  # threads per block where the dialect takes them (None: the body decides)
    num_cores: int | None = None  # persistent blocks (None: one block per tile)
    enable_offset: bool = False  # Ascend's prologue/body/epilogue software pipeline
    pass_configs: Mapping[str, Any] = field(default_factory=dict)  # tilelang pass-config key -> value
    out_idx: tuple[int, ...] | None = None  # kernel parameters tilelang allocates and returns
    target: str | None = None  # the target the kernel asks for (None: the backend's)
    body_modules: tuple[Any, ...] = ()  # modules whose source defines the body (see kernel_hash)
    fixed_arguments: str = ""  # what else the body is built with that no case id says (a suite's constants), as text
    shape_values: Mapping[str, int] = field(default_factory=dict)  # symbolic dimension name -> value at this problem


_FIELDS = tuple(f.name for f in fields(KernelTraits))
_FROM_CONFIG = ("loop_form", "num_stages", "threads", "num_cores", "enable_offset")


class NoVendorCall(ValueError):
    pass


def _from_config(config: Any) -> dict[str, Any]:
    return {name: getattr(config, name) for name in _FROM_CONFIG if hasattr(config, name)}


def kernel_traits(case: Any, dialect: str) -> KernelTraits:
    """The case's traits for ``dialect``: the family's answer over its config's fields over defaults."""
    family = case.family
    values = _from_config(case.config)
    ask = getattr(family, "kernel_traits", None)
    if callable(ask):
        answer = ask(case.problem, case.config, dialect)
        given = {f: getattr(answer, f) for f in _FIELDS} if isinstance(answer, KernelTraits) else dict(answer or {})
        unknown = sorted(set(given) - set(_FIELDS))
        if unknown:
            raise ValueError(f"kernel family {family.name!r}: kernel_traits names unknown trait(s) {', '.join(unknown)}; "
                             f"known: {', '.join(_FIELDS)}")
        values.update(given)
    if not values.get("body_modules"):
        values["body_modules"] = _default_body_modules(case)
    values["body_modules"] = tuple(values["body_modules"])
    values["pass_configs"] = dict(values.get("pass_configs") or {})
    values["shape_values"] = dict(values.get("shape_values") or {})
    if (out := values.get("out_idx")) is not None:
        values["out_idx"] = (out,) if isinstance(out, int) else tuple(out)
    return KernelTraits(**values)


def _default_body_modules(case: Any) -> tuple[str, ...]:
    names = [type(case.family).__module__, type(case.problem).__module__, type(case.config).__module__]
    return tuple(dict.fromkeys(n for n in names if n and n != "builtins"))


def module_file(module: Any) -> Path:
    """The source file of a body module: a module object, a ``.py`` path, or a dotted name (found without importing
    it where it is not loaded)."""
    if isinstance(module, ModuleType):
        origin = getattr(module, "__file__", None)
    elif isinstance(module, os.PathLike) or str(module).endswith(".py") or os.sep in str(module):
        origin = os.fspath(module)
    else:
        loaded = sys.modules.get(str(module))
        origin = getattr(loaded, "__file__", None) if loaded is not None else None
        if origin is None:
            spec = find_spec(str(module))
            origin = spec.origin if spec is not None else None
    if not origin or not Path(origin).is_file():
        raise ModuleNotFoundError(f"no source file for kernel body module {module!r}: name an importable module or a .py path")
    return Path(origin).resolve()


_FILE_HASHES: dict[tuple[str, int, int], str] = {}


def file_hash(path: Path) -> str:
    """``sha256:<hex>`` of one file, re-read when its size or mtime changes."""
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _FILE_HASHES:
        _FILE_HASHES[key] = "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    return _FILE_HASHES[key]


def modules_hash(modules: Sequence[Any]) -> str:
    hashes = [file_hash(path) for path in source_closure([module_file(m) for m in modules])]
    if len(hashes) == 1:
        return hashes[0]
    return "sha256:" + hashlib.sha256("\n".join(hashes).encode()).hexdigest()


def kernel_hash(case: Any, dialect: str) -> str | None:
    if getattr(case, "config", None) is None:
        return None
    traits = kernel_traits(case, dialect)
    hashed = modules_hash(traits.body_modules)
    if not traits.fixed_arguments:
        return hashed
    return "sha256:" + hashlib.sha256(f"{hashed}\n{traits.fixed_arguments}".encode()).hexdigest()


def vendor_call(case: Any, inputs: Any, dialect: str, timed: bool) -> tuple[Callable[[], Any], str]:
    family = case.family
    call = getattr(family, "vendor_call", None)
    if not callable(call):
        raise NoVendorCall(f"kernel family {family.name!r} declares no vendor call: give it a "
                           f"vendor_call(case, inputs, dialect, timed) method, or drop vendor=True from the suite")
    run, label = call(case, inputs, dialect, timed)
    return run, label


def takes_keyword(method: Callable[..., Any], name: str) -> bool:
    """Whether ``method`` takes ``name`` as a keyword (or ``**kwargs``)."""
    try:
        params = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == name or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


def inputs_key(case: Any) -> Any:
    """What a case's inputs depend on (made once per key): its problem, or the family's ``inputs_key``."""
    config = getattr(case, "config", None)
    ask = getattr(case.problem.family, "inputs_key", None)
    return ask(case.problem, config) if callable(ask) and config is not None else case.problem


def input_dtypes(problem: Any, inputs: Any) -> tuple[str, ...] | None:
    ask = getattr(problem.family, "input_dtypes", None)
    names = ask(inputs) if callable(ask) else None
    return tuple(str(name) for name in names) if names is not None else None


def make_inputs(problem: Any, seed: int, device: Any, dialect: str, config: Any = None) -> Any:
    method = problem.family.make_inputs
    kwargs = {"dialect": dialect} if takes_keyword(method, "dialect") else {}
    if config is not None and takes_keyword(method, "config"):
        kwargs["config"] = config
    return method(problem, seed, device, **kwargs)


def check(inputs: Any, problem: Any, dialect: str, vendor: bool = False) -> Any:
    """``vendor``: the vendor item's call wrote the outputs."""
    method = problem.family.check
    kwargs = {"dialect": dialect} if takes_keyword(method, "dialect") else {}
    if takes_keyword(method, "vendor"):
        kwargs["vendor"] = vendor
    return method(inputs, problem, **kwargs)
