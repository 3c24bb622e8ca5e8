#!/usr/bin/env bash
# Cold lowerings in a fresh process after each warm-up (one process per call).
# The tool is the package module tlbench.backends.tools.warm_up_probe (its docstring is its reference); arguments go to it unchanged.
# usage (repo root): bash results/main-job-speed/warm_up_probe.sh ascend|nvidia none|own|fa [ENDING]
set -eu
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
exec python3 -m tlbench.backends.tools.warm_up_probe "$@"
