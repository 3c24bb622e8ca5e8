#!/usr/bin/env bash
# What tilelang's CUDA lowering did with each flash-attention body (no GPU).
# The tool is the package module tlbench.backends.tools.fa_schedule_facts (its docstring is its reference); arguments go to it unchanged.
# usage (repo root): bash results/h200-flash-attention/fa_schedule_facts.sh [--seq 8192] [--ptxas]
set -eu
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
exec python3 -m tlbench.backends.tools.fa_schedule_facts "$@"
