"""``command_fraction(example)``: the argparse ``type=`` of a ``tlbench`` command's fraction option.

Contract: the returned callable parses a number with 0 <= value < 10 (a threshold may exceed
1) and raises ``argparse.ArgumentTypeError`` otherwise, its words giving ``example``
("'x' is not a number (a fraction: 0.05 is 5 %)", "'20' is not a fraction like 0.05").
Imports nothing beyond argparse, so the command's start-up stays light.
"""

from __future__ import annotations

import argparse
from typing import Callable


def command_fraction(example: float) -> Callable[[str], float]:
    words = f"{example:g} is {example * 100:g} %"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number (a fraction: {words})") from None
        if not 0 <= value < 10:
            raise argparse.ArgumentTypeError(f"{text!r} is not a fraction like {example:g}")
        return value

    return parse
