"""How long step detection takes per history series, and which breakpoints it finds.

Usage: ``python3 -m tlbench.backends.tools.step_speed [--runs 400] [--repeat 7] [--steps-file PATH]``.
Builds deterministic series of ``--runs`` medians (noise only; one step; three steps with an
outlier; a drifting one), times ``detect_steps`` on each (best and median of ``--repeat``
calls, wall clock, and the best in CPU time of this process, which other processes on a
shared machine disturb less than the wall clock) and prints the breakpoints, so two versions
of harness/results/history/steps.py (``--steps-file`` loads another copy, e.g. one taken with
``git show REV:harness/results/history/steps.py``) can be compared on the same series.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import sys
import time


def series(runs: int) -> dict[str, list[float]]:
    rng = random.Random(20240611)

    def noisy(level: float, n: int, sd: float = 0.01) -> list[float]:
        return [level * (1 + rng.gauss(0, sd)) for _ in range(n)]

    third = runs // 3
    three = noisy(1.0, third) + noisy(1.12, third) + noisy(0.97, runs - 2 * third)
    three[third // 2] = 1.5  # one outlier run
    return {
        "noise only": noisy(1.0, runs),
        "one step (+10 %)": noisy(1.0, runs - runs // 4) + noisy(1.1, runs // 4),
        "three levels + outlier": three,
        "slow drift": [v * (1 + 0.0002 * i) for i, v in enumerate(noisy(1.0, runs))],
    }


def load_detect(path: str | None):
    if path is None:
        from tlbench.harness.results.history.steps import detect_steps

        return detect_steps
    spec = importlib.util.spec_from_file_location("steps_under_test", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module.detect_steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--steps-file", default=None, help="another steps.py to time (default: the installed one)")
    args = parser.parse_args(argv)
    detect = load_detect(args.steps_file)
    for name, values in series(args.runs).items():
        times, cpu = [], []
        for _ in range(args.repeat):
            start, start_cpu = time.perf_counter(), time.process_time()
            steps = detect(values, 0.05)
            times.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        found = ", ".join(f"{s.index} ({s.change:+.1%})" for s in steps) or "none"
        print(f"{name:24s} {args.runs} runs: best {min(times) * 1e3:8.1f} ms, median {statistics.median(times) * 1e3:8.1f} ms,"
              f" CPU best {min(cpu) * 1e3:8.1f} ms;"
              f" steps at {found}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
