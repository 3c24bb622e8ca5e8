#!/usr/bin/env bash
# The Ascend FA model's cycles at the config of tilelang's published Ascend 950 MHA figure (CPU box).
# The tool is the package module tlbench.backends.tools.fa_calibration (its docstring is its reference); arguments go to it unchanged.
# usage (repo root): bash results/ascend-model/fa_calibration.sh [--json results/ascend-model/fa-calibration.json] [--enable-offset]
set -eu
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
exec python3 -m tlbench.backends.tools.fa_calibration "$@"
