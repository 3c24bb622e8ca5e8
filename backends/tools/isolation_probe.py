"""Does a kernel take longer when it starts from an idle GPU, as each kernel does under ncu?

``python -m tlbench.backends.tools.isolation_probe --suite SUITE.py --case ID [--case ID ...]``:
each case (timer_crosscheck's selection) timed by CUPTI back to back and with a 1 ms and 10 ms gap.
Contract: one table line per case, exit 0; kernels that do not split into the calls made: one
line, exit 1; bad selections: timer_crosscheck's one line, exit 2.
"""

import argparse
import statistics
import sys
import time

from ..gpu.flush_choice import split_at_flushes
from ..gpu.timing import profile_kernels
from .timer_crosscheck import timed_calls

CALLS = 40
MODES = {"back-to-back": None, "gap 1 ms": 1e-3, "gap 10 ms": 10e-3}


def call_us(fn, flush, gap_s: float | None) -> float:
    """The median over CALLS calls of the summed span of each call's own kernels."""
    import torch

    def calls():
        for _ in range(CALLS):
            flush()
            fn()
            if gap_s is not None:
                torch.cuda.synchronize()
                time.sleep(gap_s)

    flush_names = {name for name, _, _ in profile_kernels(flush)}
    events = sorted(profile_kernels(calls), key=lambda e: e[1])
    per_call, before = split_at_flushes(((name, end - start) for name, start, end in events if "memset" not in name.lower()),
                                        flush_names)
    if before is not None or len(per_call) != CALLS or any(c <= 0 for c in per_call):
        sys.exit(f"isolation_probe: the kernels did not split at the flush into {CALLS} calls with kernels")
    return statistics.median(per_call)


def main() -> None:
    import torch

    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--suite", action="append", required=True)
    cli.add_argument("--case", action="append")
    cli.add_argument("-k", default=None)
    args = cli.parse_args()
    args.seed, args.l2_flush, args.no_flush = 1, "write", False
    _, calls = timed_calls(args)
    names = list(MODES)
    print("case  " + "  ".join(f"{m} us" for m in names) + "  " + "  ".join(f"{m} / back-to-back" for m in names[1:]))
    for case_id, fn, flush in calls:
        for _ in range(10):
            flush()
            fn()
        torch.cuda.synchronize()
        medians = {mode: call_us(fn, flush, gap) for mode, gap in MODES.items()}
        base = medians["back-to-back"]
        print(f"{case_id}  " + "  ".join(f"{v:.2f}" for v in medians.values()) + "  "
              + "  ".join(f"{medians[m] / base:.4f}" for m in names[1:]), flush=True)


if __name__ == "__main__":
    main()
