"""Discrete-event model of a ``copy -> compute`` loop with ``num_stages`` buffers.

This is the teaching model of the pipelining chapter (seed ``000``, sections 1.2-1.4, 2.2 and 2.4), made reusable:
it predicts how much ``T.Pipelined(..., num_stages=N)`` can gain over a one-buffer loop, and predicts per
num_stages; harness/analysis/timeline_fit.py inverts it to read a latency/compute ratio off measured times.  Pure
standard library; no numpy, tilelang, torch or matplotlib.

Contract --------
* Units are abstract: every duration (``issue``, ``latency``, ``compute``) and every time in a ``Timeline`` is in
  "cycles".  Integers in, integers out; floats work too.
* ``simulate(iterations, issue, latency, compute, num_stages)`` is a greedy list schedule, iterations taken in
  order:

  - copy ``i`` is issued at the earliest time when (a) the copy issue unit is free again (at most one issue every
    ``issue`` cycles: ``copy_start[i] >= copy_start[i-1] + issue``) and (b) its buffer slot ``i % num_stages`` has
    been released, i.e. compute ``i - num_stages`` has finished (``copy_start[i] >= compute_end[i - num_stages]``);
  - its data arrives ``latency`` cycles after the issue (``copy_end = copy_start + latency``);
  - compute ``i`` starts once its data has arrived and compute ``i-1`` has finished, and takes ``compute`` cycles.

  ``num_stages`` is the number of buffers (the chapter's teaching reading of the knob);
  ``num_stages=1`` is the unpipelined loop whose every round costs ``latency + compute``.
* The derived numbers follow the seed's printed table (``issue_iv``, ``compute_iv``, ``compute_util``, speedup)
  exactly; see ``Timeline`` for their definitions.  For ``iterations=8, issue=1, latency=30, compute=20`` and
  ``num_stages`` 1..4 the makespans are 400 / 220 / 190 / 190 (x1.00 / x1.82 / x2.11 / x2.11, compute utilization 43
  % / 84 % / 100 % / 100 %); with 16 iterations 3 stages give x2.29.
* Everything returned is a frozen dataclass (``to_dict()`` gives a JSON-ready dict); the module holds no mutable
  state.

Run ``python3 -m tlbench.harness.analysis.timeline_model`` to print the seed's table (``--sweep`` for 1..8 stages).
"""

from __future__ import annotations

import argparse
import math
from dataclasses import asdict, dataclass, fields
from typing import Any, Iterable, Sequence


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
    """One simulated schedule and the numbers the seed's table prints for it.

    * ``makespan``: end of the last compute (the first copy is issued at 0).
    * ``speedup``: ``baseline_makespan / makespan`` where ``baseline_makespan`` is the 1-stage makespan for the same
      ``iterations, issue, latency, compute`` (seed 1.3: "x1.00" on the 1-stage row, 400/220 = x1.82).
    * ``issue_interval`` (seed ``issue_iv``) / ``compute_interval`` (seed ``compute_iv``): mean start-to-start
      interval of copies / computes over the whole run, ``(start[last] - start[first]) / (iterations - 1)`` (24.3 =
      (200 - 30) / 7 for 2 stages).
    * ``steady_interval``: the seed 2.2 "steady-state step": compute start-to-start interval in the steady state.
      Buffer slots rotate with period ``num_stages``, so it is averaged over the last whole number of
      ``num_stages``-iteration periods (2 stages alternate 20/30 -> 25.0).  For long runs it tends to
      ``steady_interval_bound``.
    * ``steady_interval_bound``: ``max(compute, issue, (latency + compute) / num_stages)`` (seed 2.2 / 2.4).
    * ``compute_utilization`` (seed ``compute_util``): busy fraction of the compute lane from its first start to its
      last end, ``iterations * compute / (makespan - compute_start[0])`` (160 / 370 = 43 % for 1 stage; seed 1.3:
      "the compute unit waits for data 57 % of the time").  The prologue (first copy's flight, when the compute unit
      cannot have work yet) is excluded.
    * ``compute_share_of_makespan``: ``iterations * compute / makespan`` (40 % for 1 stage), the stricter number
      that does count the prologue.
    * ``prologue_end``: first compute start; before it only copies are in flight. ``epilogue_start``: last data
      arrival; after it only computes remain.
    """

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

    def row(self) -> "SweepRow":
        return SweepRow(**{f.name: getattr(self, f.name) for f in fields(SweepRow)})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SweepRow:
    """One line of the seed's summary table (see ``Timeline`` for the definitions)."""

    num_stages: int
    makespan: Number
    speedup: float
    issue_interval: float
    compute_interval: float
    steady_interval: float
    steady_interval_bound: float
    compute_utilization: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def min_sufficient_depth(latency: Number, compute: Number) -> int:
    """Smallest ``num_stages`` whose steady state is compute-bound: ``1 + ceil(latency / compute)`` (seed 1.3; 30,
    20 -> 3).  A ratio within 1e-9 of an integer counts as that integer, so float noise (1.1 / 0.1 =
    11.000000000000002) does not add a stage."""
    _check_durations(0, latency, compute)
    ratio = latency / compute
    return 1 + max(0, math.ceil(ratio - 1e-9 * max(1.0, ratio)))


def steady_interval_bound(issue: Number, latency: Number, compute: Number, num_stages: int) -> float:
    """Steady-state cost of one iteration, ``max(compute, issue, (latency + compute) / num_stages)`` (seed 2.2,
    completed with ``issue`` as 2.4 says).  It is the maximum cycle mean of the schedule's constraint graph, so
    ``simulate``'s steady interval converges to it as ``iterations`` grows."""
    _check_durations(issue, latency, compute)
    _check_stages(num_stages)
    return float(max(compute, issue, (latency + compute) / num_stages))


def makespan_without_issue_limit(iterations: int, latency: Number, compute: Number, num_stages: int) -> Number:
    """Closed form of ``simulate(...).makespan`` for ``issue == 0``.

    Then ``compute_end[i] = max(compute_end[i - S] + latency + compute, compute_end[i - 1] + compute)`` (a max-plus
    recurrence), whose longest path takes ``k`` slot hops: ``max over k in {1, ceil(n / S)}`` of ``k * (latency +
    compute) + compute * (n - 1 - (k - 1) * S)`` (the expression is linear in ``k``, so an end point wins).
    """
    check_iterations(iterations)
    _check_durations(0, latency, compute)
    _check_stages(num_stages)
    n, s = iterations, num_stages

    def path(k: int) -> Number:
        return k * (latency + compute) + compute * (n - 1 - (k - 1) * s)

    return max(path(1), path(-(-n // s)))



def simulate(iterations: int, issue: Number, latency: Number, compute: Number, num_stages: int) -> Timeline:
    """Greedy list schedule of ``copy -> compute`` with ``num_stages`` buffers (module docstring has the rules)."""
    check_iterations(iterations)
    _check_durations(issue, latency, compute)
    _check_stages(num_stages)
    steps = _schedule(iterations, issue, latency, compute, num_stages)
    if num_stages == 1:
        baseline = steps[-1].compute_end
    else:
        baseline = _schedule(iterations, issue, latency, compute, 1)[-1].compute_end
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


def sweep(
    iterations: int, issue: Number, latency: Number, compute: Number, stages: Iterable[int] = DEFAULT_STAGES,
) -> list[SweepRow]:
    """One ``SweepRow`` per ``num_stages`` in ``stages`` (in the order given)."""
    return [simulate(iterations, issue, latency, compute, s).row() for s in stages]


def format_report(
    iterations: int, issue: Number, latency: Number, compute: Number, stages: Iterable[int] = DEFAULT_STAGES,
) -> str:
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
    print(
        format_report(
            args.iterations, _int_if_whole(args.issue), _int_if_whole(args.latency),
            _int_if_whole(args.compute), stages,
        )
    )
    return 0



def _schedule(
    iterations: int, issue: Number, latency: Number, compute: Number, num_stages: int
) -> tuple[IterationTimes, ...]:
    steps: list[IterationTimes] = []
    for i in range(iterations):
        issue_free = steps[i - 1].copy_start + issue if i > 0 else 0
        slot_free = steps[i - num_stages].compute_end if i >= num_stages else 0
        copy_start = max(issue_free, slot_free)
        copy_end = copy_start + latency
        previous_done = steps[i - 1].compute_end if i > 0 else 0
        compute_start = max(copy_end, previous_done)
        steps.append(IterationTimes(i, i % num_stages, copy_start, copy_end, compute_start, compute_start + compute))
    return tuple(steps)


def _mean_interval(starts: Sequence[Number], single: Number) -> float:
    if len(starts) < 2:
        return float(single)
    return (starts[-1] - starts[0]) / (len(starts) - 1)


def _steady_interval(starts: Sequence[Number], num_stages: int, single: Number) -> float:
    gaps = len(starts) - 1
    periods = gaps // num_stages
    if periods == 0:
        return _mean_interval(starts, single)
    span = periods * num_stages
    return (starts[-1] - starts[-1 - span]) / span


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
