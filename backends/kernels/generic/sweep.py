"""``kernel_sweep``: a suite's whole declaration of one kernel, as the ``Sweep`` the plugin expands.

Contract: ``kernel_sweep(name, body, sizes=..., axes=..., inputs=..., reference=...)`` returns a
``harness.core.sweep.Sweep`` whose problems are ``sizes`` (one dict, or a list of dicts: the
keyword arguments that fix the problem, e.g. ``T.const`` names) and whose configs are the
cross product of ``axes`` (name -> values, in declaration order) followed by any explicit
``configs`` (dicts).  Every size and axis reaches the factory as a keyword argument.  The
family is registered by the suite itself: records describe themselves
(harness/core/described.py), so no entry point is needed for any reader.
- ``body``: a factory, or ``{dialect: factory}`` (``"cuda"``, ``"ascend"``; ``"*"`` for any
  other); a backend whose dialect has none skips with that reason.  Any callable argument may
  be a ``"module:attribute"`` string instead, imported where first used.
- ``inputs(device=..., **sizes)``: the kernel's leading arguments (the rest, its outputs,
  are allocated from the kernel's signature); ``reference(*inputs)``: the expected output(s).
- optional: ``flops`` / ``bytes_moved`` (``**sizes -> int``: TFLOP/s, GB/s and the roofline),
  ``vendor(*inputs)`` (a vendor item per problem, checked like a kernel; ``vendor_label``),
  ``footprint(dialect=..., **sizes, **axes) -> {scope: bytes}`` (the on-chip budget checked
  before compiling; without it, the compiled kernel's buffers are checked after lowering),
  ``validate(dialect=..., **sizes, **axes) -> reason or None`` (a config the body cannot
  build is skipped with that reason before compiling),
  ``rtol`` / ``atol``, ``pass_configs`` (on top of the jit's), ``smoke`` / ``quick`` (sizes for those
  scopes; ``quick=()`` keeps the suite out of the quick scope), ``kinds``, ``backends``,
  ``description``.
Ids: ``<name>-<size tokens>-<axis tokens>`` (harness/core/described.py), e.g.
``rmsnorm-M8192-N8192-blk_m1-blk_k512-s2``; they depend on names and values only.
"""

from __future__ import annotations

import re
import sys
from itertools import product
from typing import Any, Callable, Mapping, Sequence

from tlbench.harness.core.described import DescribedConfig, Params
from tlbench.harness.core.sweep import Sweep

from tlbench.backends.kernels.generic.family import ANY_DIALECT, GenericFamily

NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def _size_list(sizes: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None, what: str) -> list[dict[str, Any]]:
    if sizes is None:
        return []
    listed = [sizes] if isinstance(sizes, Mapping) else list(sizes)
    for entry in listed:
        if not isinstance(entry, Mapping):
            raise TypeError(f"kernel_sweep: {what} must be a dict of keyword arguments or a list of them, got {entry!r}")
    return [dict(entry) for entry in listed]


def _configs(axes: Mapping[str, Sequence[Any]] | None, configs: Sequence[Mapping[str, Any]] | None) -> list[DescribedConfig]:
    out: list[DescribedConfig] = []
    if axes:
        for name, values in axes.items():
            if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
                raise TypeError(f"kernel_sweep: axis {name!r} needs a non-empty list of values, got {values!r}")
        names = list(axes)
        out += [DescribedConfig(Params(zip(names, values))) for values in product(*(axes[n] for n in names))]
    out += [DescribedConfig(Params(c)) for c in _size_list(configs or [], "configs")]
    if not out:
        out = [DescribedConfig(Params())]
    seen: set[str] = set()
    for config in out:
        if config.config_id in seen:
            raise ValueError(f"kernel_sweep: two configs have the id {config.config_id!r}")
        seen.add(config.config_id)
    return out


def kernel_sweep(
    name: str,
    body: Any,
    *,
    sizes: Mapping[str, Any] | Sequence[Mapping[str, Any]],
    inputs: Callable[..., Sequence[Any]] | str,
    reference: Callable[..., Any] | str | None = None,
    axes: Mapping[str, Sequence[Any]] | None = None,
    configs: Sequence[Mapping[str, Any]] | None = None,
    flops: Callable[..., int] | None = None,
    bytes_moved: Callable[..., int] | None = None,
    vendor: Callable[..., Any] | str | None = None,
    vendor_label: str | None = None,
    footprint: Callable[..., Mapping[str, Any] | None] | None = None,
    validate: Callable[..., str | None] | str | None = None,
    rtol: float = 1e-2,
    atol: float = 1e-2,
    pass_configs: Mapping[str, Any] | None = None,
    smoke: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
    quick: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
    kinds: Sequence[str] = ("compile", "device"),
    backends: Sequence[str] | None = None,
    description: str = "",
    module: str | None = None,
) -> Sweep:
    if not isinstance(name, str) or not NAME.match(name):
        raise ValueError(f"kernel_sweep: name {name!r} must be a letter then letters, digits or _ (it starts every case id)")
    bodies = dict(body) if isinstance(body, Mapping) else {ANY_DIALECT: body}
    if not bodies or not all(callable(b) or isinstance(b, str) for b in bodies.values()):
        raise TypeError("kernel_sweep: body must be a kernel factory (a @tilelang.jit function or a function returning "
                        "a PrimFunc) or a {dialect: factory} dict")
    problems_sizes = _size_list(sizes, "sizes")
    if not problems_sizes:
        raise ValueError("kernel_sweep: sizes names no problem")
    config_list = _configs(axes, configs)
    overlap = sorted(set().union(*map(set, problems_sizes)) & set().union(*(set(c.values) for c in config_list)))
    if overlap:
        raise ValueError(f"kernel_sweep: {', '.join(overlap)} is both a size and an axis")
    caller = sys._getframe(1).f_globals
    module_name = module or caller.get("__name__", "")
    family = GenericFamily(
        name=name, bodies=bodies, inputs=inputs, reference=reference, vendor=vendor, vendor_label=vendor_label,
        flops_of=flops, bytes_of=bytes_moved, footprint_of=footprint, refusal_of=validate, rtol=rtol, atol=atol,
        pass_configs=dict(pass_configs or {}), module=module_name,
        module_file=str(getattr(sys.modules.get(module_name), "__file__", None) or caller.get("__file__", "")),
        configs=tuple(config_list),
    )
    problems = [family.problem(s) for s in problems_sizes]
    smoke_problems = [family.problem(s) for s in _size_list(smoke, "smoke")]
    quick_problems = None if quick is None else [family.problem(s) for s in _size_list(quick, "quick")]
    family.problem_ids = tuple(p.problem_id for p in [*problems, *smoke_problems, *(quick_problems or [])])
    return Sweep(
        name=name,
        problems=problems,
        configs=config_list,
        smoke_problems=smoke_problems,
        quick_problems=quick_problems,
        vendor=vendor is not None,
        description=description or f"{name}: {len(config_list)} config(s) over {len(problems)} problem(s)",
        kinds=tuple(kinds),
        backends=backends,
    )
