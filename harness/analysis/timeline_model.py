"""Discrete-event model of a ``copy -> compute`` loop with ``num_stages`` buffers.

Contract: ``simulate(iterations, issue, latency, compute, num_stages) -> Timeline`` is a greedy list
schedule in abstract cycles: copy ``i`` issues once the issue unit is free and its slot ``i %
num_stages`` is released; its data arrives ``latency`` later; compute ``i`` starts once its data
arrived and compute ``i-1`` finished. For ``iterations=8, issue=1, latency=30, compute=20`` and 1..4
stages the makespans are 400 / 220 / 190 / 190 (the seed chapter's table, which ``format_report``
prints byte for byte). Bad arguments raise ``ValueError``. Pure standard library; ``python3 -m
tlbench.harness.analysis.timeline_model`` prints the table (``--sweep``: 1..8 stages).
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from typing import Iterable, Sequence

Number = float  # ints are accepted everywhere a float is

DEFAULT_STAGES = (1, 2, 3, 4)


@dataclass(frozen=True)
class IterationTimes:
    """When iteration ``index`` copied (issue -> data arrival) and computed."""

    index: int
    slot: int  # buffer slot = index % num_stages
    copy_start: Number  # copy issued
    copy_end: Number  # data arrived = copy_start + latency
    compute_start: Number
    compute_end: Number


@dataclass(frozen=True)
class Timeline:
    """One simulated schedule and the numbers the seed's table prints for it.  ``*_interval``: mean
    start-to-start interval (``steady_interval``: over the last whole ``num_stages`` periods);
    ``compute_utilization``: busy fraction from the first compute start."""

    iterations: int
    issue: Number
    latency: Number
    compute: Number
    num_stages: int
    steps: tuple[IterationTimes, ...]
    makespan: Number
    baseline_makespan: Number
    speedup: float
    issue_interval: float
    compute_interval: float
    steady_interval: float
    steady_interval_bound: float
    compute_utilization: float
    compute_share_of_makespan: float
    prologue_end: Number
    epilogue_start: Number


def min_sufficient_depth(latency: Number, compute: Number) -> int:
    """``1 + ceil(latency / compute)``: the smallest depth whose steady state is compute-bound; a ratio within
    1e-9 of an integer counts as that integer (float noise adds no stage)."""
    _check_durations(0, latency, compute)
    ratio = latency / compute
    return 1 + max(0, math.ceil(ratio - 1e-9 * max(1.0, ratio)))


def steady_interval_bound(issue: Number, latency: Number, compute: Number, num_stages: int) -> float:
    """Steady-state cost of one iteration, ``max(compute, issue, (latency + compute) / num_stages)``."""
    _check_durations(issue, latency, compute)
    _check_stages(num_stages)
    return float(max(compute, issue, (latency + compute) / num_stages))


def makespan_without_issue_limit(iterations: int, latency: Number, compute: Number, num_stages: int) -> Number:
    """Closed form of ``simulate(...).makespan`` for ``issue == 0``: the longest path of the max-plus recurrence
    takes ``k`` slot hops, and being linear in ``k`` it is longest at ``k = 1`` or ``ceil(n / S)``."""
    check_iterations(iterations)
    _check_durations(0, latency, compute)
    _check_stages(num_stages)
    n, s = iterations, num_stages
    return max(k * (latency + compute) + compute * (n - 1 - (k - 1) * s) for k in (1, -(-n // s)))


def simulate(iterations: int, issue: Number, latency: Number, compute: Number, num_stages: int) -> Timeline:
    check_iterations(iterations)
    _check_durations(issue, latency, compute)
    _check_stages(num_stages)
    steps = _schedule(iterations, issue, latency, compute, num_stages)
    baseline = _schedule(iterations, issue, latency, compute, 1)[-1].compute_end if num_stages > 1 \
        else steps[-1].compute_end
    makespan = steps[-1].compute_end
    busy = iterations * compute
    compute_window = makespan - steps[0].compute_start
    return Timeline(
        iterations=iterations, issue=issue, latency=latency, compute=compute, num_stages=num_stages, steps=steps,
        makespan=makespan, baseline_makespan=baseline, speedup=baseline / makespan,
        issue_interval=_mean_interval([s.copy_start for s in steps], compute),
        compute_interval=_mean_interval([s.compute_start for s in steps], compute),
        steady_interval=_steady_interval([s.compute_start for s in steps], num_stages, compute),
        steady_interval_bound=steady_interval_bound(issue, latency, compute, num_stages),
        compute_utilization=busy / compute_window, compute_share_of_makespan=busy / makespan,
        prologue_end=steps[0].compute_start, epilogue_start=steps[-1].copy_end,
    )


def sweep(iterations: int, issue: Number, latency: Number, compute: Number,
          stages: Iterable[int] = DEFAULT_STAGES) -> list[Timeline]:
    return [simulate(iterations, issue, latency, compute, s) for s in stages]


def format_report(iterations: int, issue: Number, latency: Number, compute: Number,
                  stages: Iterable[int] = DEFAULT_STAGES) -> str:
    """The seed's printed output (section 1.3), byte for byte for the seed's inputs."""
    rows = sweep(iterations, issue, latency, compute, stages)
    lines = [
        "model: copy -> compute, greedy list schedule, abstract cycles",
        f"  iterations={iterations} issue={_num(issue)} latency={_num(latency)} "
        f"compute={_num(compute)}",
        f"  latency/compute = {latency / compute:.2f} -> smallest depth that reaches the "
        f"steady state = {min_sufficient_depth(latency, compute)}",
        "",
        "== summary ==",
    ]
    header = ("stages", "makespan  speedup  issue_iv  compute_iv")
    cells = [
        (
            str(r.num_stages),
            f"{_num(r.makespan):>5}  x{r.speedup:.2f}  issue_iv={r.issue_interval:5.1f}  "
            f"compute_iv={r.compute_interval:5.1f}  "
            f"compute_util={100 * r.compute_utilization:4.0f}%",
        )
        for r in rows
    ]
    widths = [max(len(c[k]) for c in [header, *cells]) for k in range(2)]
    rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"

    def line(cell: Sequence[str]) -> str:
        return "|" + "|".join(f" {c.ljust(w)} " for c, w in zip(cell, widths)) + "|"

    lines += [rule, line(header), rule, *(line(c) for c in cells), rule]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m tlbench.harness.analysis.timeline_model", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--iterations", type=int, default=8)
    parser.add_argument("--issue", type=float, default=1)
    parser.add_argument("--latency", type=float, default=30)
    parser.add_argument("--compute", type=float, default=20)
    parser.add_argument("--stages", type=int, nargs="+", default=list(DEFAULT_STAGES))
    parser.add_argument("--sweep", action="store_true", help="num_stages 1..8")
    args = parser.parse_args(argv)
    stages = range(1, 9) if args.sweep else args.stages
    print(format_report(args.iterations, _int_if_whole(args.issue), _int_if_whole(args.latency),
                        _int_if_whole(args.compute), stages))
    return 0


def _schedule(iterations: int, issue: Number, latency: Number, compute: Number,
              num_stages: int) -> tuple[IterationTimes, ...]:
    steps: list[IterationTimes] = []
    for i in range(iterations):
        issue_free = steps[i - 1].copy_start + issue if i > 0 else 0
        slot_free = steps[i - num_stages].compute_end if i >= num_stages else 0
        copy_start = max(issue_free, slot_free)
        copy_end = copy_start + latency
        compute_start = max(copy_end, steps[i - 1].compute_end if i > 0 else 0)
        steps.append(IterationTimes(i, i % num_stages, copy_start, copy_end, compute_start, compute_start + compute))
    return tuple(steps)


def _mean_interval(starts: Sequence[Number], single: Number) -> float:
    return (starts[-1] - starts[0]) / (len(starts) - 1) if len(starts) > 1 else float(single)


def _steady_interval(starts: Sequence[Number], num_stages: int, single: Number) -> float:
    span = (len(starts) - 1) // num_stages * num_stages
    return (starts[-1] - starts[-1 - span]) / span if span else _mean_interval(starts, single)


def _check_count(name: str, value: int, hint: str = "") -> None:
    if isinstance(value, bool) or int(value) != value or value < 1:
        raise ValueError(f"{name} must be an integer >= 1{hint}, got {value!r}")


def check_iterations(iterations: int) -> None:
    _check_count("iterations", iterations)


def _check_stages(num_stages: int) -> None:
    _check_count("num_stages", num_stages, " (1 = one buffer, no overlap)")


def _check_durations(issue: Number, latency: Number, compute: Number) -> None:
    for name, value in (("issue", issue), ("latency", latency)):
        if not (math.isfinite(value) and value >= 0):
            raise ValueError(f"{name} must be finite and >= 0, got {value!r}")
    if not (math.isfinite(compute) and compute > 0):
        raise ValueError(f"compute must be finite and > 0, got {compute!r}")


def _int_if_whole(value: float) -> Number:
    return int(value) if float(value).is_integer() else value


def _num(value: Number) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


if __name__ == "__main__":
    raise SystemExit(main())
