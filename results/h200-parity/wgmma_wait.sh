#!/usr/bin/env bash
# The WGMMA issue and wait lines of a tile-sweep GEMM's consumer loop, lowered for sm_90a (CPU box).
# The tool is the package module tlbench.backends.tools.wgmma_wait (its docstring is its reference); arguments go to it unchanged.
# usage (repo root): bash results/h200-parity/wgmma_wait.sh [BLOCK_M BLOCK_N BLOCK_K THREADS STAGES]
set -eu
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
exec python3 -m tlbench.backends.tools.wgmma_wait "$@"
