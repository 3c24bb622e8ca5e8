"""Option values checked where pytest parses them: a bad value is pytest's usage error.

Contract: ``positive_float`` / ``non_negative_float`` / ``positive_int`` / ``fraction`` are argparse
``type=`` callables (raise ``argparse.ArgumentTypeError``); ``check_devices(option, traits)`` raises
``pytest.UsageError`` for a ``--tlbench-devices`` list that is malformed or names a device no
backend sees.
"""

from __future__ import annotations

import argparse
import math
from typing import Any, Callable, Sequence

import pytest


def _number(text: str, kind: type) -> Any:
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {'an integer' if kind is int else 'a number'}") from None


def _checked(text: str, kind: type, ok: Callable[[Any], bool], words: str) -> Any:
    value = _number(text, kind)
    if not ok(value):
        raise argparse.ArgumentTypeError(f"{text!r}: {words}")
    return value


def positive_float(text: str) -> float:
    return _checked(text, float, lambda v: 0 < v < math.inf,
                    "must be a number of seconds greater than 0")


def non_negative_float(text: str) -> float:
    return _checked(text, float, lambda v: 0 <= v < math.inf,
                    "must be a number of seconds, 0 or more (0: no limit)")


def positive_int(text: str) -> int:
    return _checked(text, int, lambda v: v >= 1, "must be 1 or more")


def fraction(text: str) -> float:
    return _checked(text, float, lambda v: 0 < v < 1,
                    "must be a fraction between 0 and 1, e.g. 0.02")


def check_devices(option: str | None, traits: Sequence[Any]) -> None:
    if not option:
        return
    wanted = [d.strip() for d in option.split(",")]
    if not all(wanted):
        raise pytest.UsageError(f"--tlbench-devices={option}: an empty device id; give a comma list such as 0,1")
    if len(set(wanted)) != len(wanted):
        raise pytest.UsageError(f"--tlbench-devices={option}: a device is named twice")
    visible = [str(i) for t in traits for i in (t.device_ids() or ())]
    if not visible:
        return  # no backend can list devices here (a CPU box): device items skip with their backend's reason
    absent = [d for d in wanted if d not in visible]
    if absent:
        raise pytest.UsageError(f"--tlbench-devices={option}: no device {', '.join(absent)} here (visible: {', '.join(sorted(set(visible)))})")
