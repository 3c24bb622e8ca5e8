"""A ``kernel_sweep`` declaration's problems and configs, validated as they are read.

Contract: ``size_list(sizes, what)`` is a sizes argument as a list of dicts;
``configs_by_dialect(family, axes, configs, bodies)`` the configs per body dialect (``"*"``: one
set for every body), each checked; ``scope_configs`` reads ``smoke_configs`` / ``quick_configs``.
A bad declaration raises, naming what.
"""

from __future__ import annotations

from itertools import product
from typing import Any, Mapping, Sequence

from ..core import loop_form
from ..core.described import LOOP_FORM_KEY, STAGES_KEY, DescribedConfig, Params
from .family import ANY_DIALECT, GenericFamily
from .vendors import per_dialect_example


def size_list(sizes: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None, what: str) -> list[dict[str, Any]]:
    if sizes is None:
        return []
    listed = [sizes] if isinstance(sizes, Mapping) else list(sizes)
    for entry in listed:
        if not isinstance(entry, Mapping):
            raise TypeError(f"kernel_sweep: {what} must be a dict of keyword arguments or a list of them, got {entry!r}")
    return [dict(entry) for entry in listed]


def _config_list(family: GenericFamily, axes: Mapping[str, Sequence[Any]] | None,
                 configs: Sequence[Mapping[str, Any]] | None, where: str = "") -> list[DescribedConfig]:
    out: list[DescribedConfig] = []
    if axes:
        for name, values in axes.items():
            if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
                raise TypeError(f"kernel_sweep: axis {name!r}{where} needs a non-empty list of values, got {values!r}")
        out += [family.config(Params(zip(axes, values))) for values in product(*axes.values())]
    out += [family.config(Params(c)) for c in size_list(configs or [], "configs")]
    out = out or [family.config(Params())]
    seen: set[str] = set()
    for config in out:
        form = config.values.get(LOOP_FORM_KEY)
        if form is not None:
            stages = config.values.get(STAGES_KEY)
            try:
                loop_form.check(str(form), stages if isinstance(stages, int) else None)
            except ValueError as exc:
                raise ValueError(f"kernel_sweep: config {dict(config.values)}{where}: {exc}") from None
        if config.config_id in seen:
            raise ValueError(f"kernel_sweep: two configs{where} have the id {config.config_id!r}")
        seen.add(config.config_id)
    return out


def _per_dialect(value: Any, what: str) -> bool:
    """Whether ``axes`` / ``configs`` is given per body (``{"cuda": ..., "ascend": ...}``)."""
    if not isinstance(value, Mapping) or not value:
        return False
    nested = [isinstance(v, Mapping) if what == "axes" else isinstance(v, (list, tuple)) and all(isinstance(c, Mapping) for c in v)
              for v in value.values()]
    if what == "axes" and any(nested) and not all(nested):
        raise TypeError("kernel_sweep: axes is either one {axis: values} dict or one such dict per body dialect "
                        f"({per_dialect_example('{...}')}), not a mix")
    return all(nested)


def _stray_dialects(dialects: Sequence[str], bodies: Mapping[str, Any], what: str) -> None:
    named = [d for d in bodies if d != ANY_DIALECT]
    stray = [d for d in dict.fromkeys(dialects) if named and ANY_DIALECT not in bodies and d not in named and d != ANY_DIALECT]
    if stray:
        raise ValueError(f"kernel_sweep: {what} name dialect(s) {', '.join(stray)} that have no body "
                         f"(bodies: {', '.join(named)})")


def configs_by_dialect(family: GenericFamily, axes: Any, configs: Any, bodies: Mapping[str, Any]) -> dict[str, list[DescribedConfig]]:
    per_axes, per_configs = _per_dialect(axes, "axes"), isinstance(configs, Mapping)
    if not per_axes and not per_configs:
        return {ANY_DIALECT: _config_list(family, axes, configs)}
    dialects = [*((axes or {}) if per_axes else {}), *((configs or {}) if per_configs else {})]
    _stray_dialects(dialects, bodies, "axes/configs")
    named = [d for d in bodies if d != ANY_DIALECT]
    out: dict[str, list[DescribedConfig]] = {}
    for dialect in dict.fromkeys([*named, *dialects]):
        dialect_axes = (axes or {}).get(dialect) if per_axes else axes
        dialect_configs = (configs or {}).get(dialect) if per_configs else configs
        out[dialect] = _config_list(family, dialect_axes, dialect_configs, f" of {dialect}")
    return out


def scope_configs(family: GenericFamily, given: Any, scope: str, bodies: Mapping[str, Any]) -> dict[str, list[DescribedConfig]] | None:
    """``smoke_configs`` / ``quick_configs``: a list for every body, or one per dialect."""
    if given is None:
        return None
    if isinstance(given, Mapping):
        _stray_dialects(list(given), bodies, f"{scope}_configs")
        return {str(d): _config_list(family, None, list(cs), f" of {scope}_configs[{d!r}]") if cs else [] for d, cs in given.items()}
    return {ANY_DIALECT: _config_list(family, None, list(given), f" of {scope}_configs") if list(given) else []}
