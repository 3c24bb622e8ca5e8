"""Which flash-attention body a config builds, per dialect: the suite's two factories.

Contract: ``fa_cuda(**values)`` / ``fa_ascend(**values)`` return the ``PrimFunc`` ``main(Q, K,
V, O)`` of the config's ``body``; on Ascend a hopper body or ``fast_math`` raises ``ValueError``
(validation.py's words).  tilelang is imported when called.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from .validation import dialect_refusal

from .problem import WS_BODIES, FaConfig, FaProblem

_PROBLEM_KEYS = tuple(f.name for f in fields(FaProblem))
_CONFIG_KEYS = tuple(f.name for f in fields(FaConfig))


def fa_problem(values: dict[str, Any]) -> FaProblem:
    """The ``FaProblem`` of a case's named values (the sizes among them)."""
    return FaProblem(**{k: values[k] for k in _PROBLEM_KEYS if k in values})


def fa_config(values: dict[str, Any]) -> FaConfig:
    """The ``FaConfig`` of a case's named values (the axes among them)."""
    return FaConfig(**{k: values[k] for k in _CONFIG_KEYS if k in values})


def fa_cuda(**values: Any) -> Any:
    problem, config = fa_problem(values), fa_config(values)
    if config.body == "hopper":
        from .hopper import build_hopper_fa

        return build_hopper_fa(problem, config)
    if config.body in WS_BODIES:
        from .hopper_ws import build_hopper_ws_fa

        return build_hopper_ws_fa(problem, config, overlap=True, pingpong=config.body == "hopper_ws")
    from .body import build
    from .dialect_cuda import CUDA_FA_DIALECT

    return build(problem, config, CUDA_FA_DIALECT)


def fa_ascend(**values: Any) -> Any:
    problem, config = fa_problem(values), fa_config(values)
    reason = dialect_refusal(problem, config, "ascend") if config.body != "shared" or config.fast_math else None
    if reason:
        raise ValueError(reason)
    from .body import build
    from .dialect_ascend import ASCEND_FA_DIALECT

    return build(problem, config, ASCEND_FA_DIALECT)
