#!/usr/bin/env bash
# The fastest correct config per problem of one (partial) run, recorded in a best-configs file.
# The tool is the package module tlbench.harness.tools.best_from_run (its docstring is its reference); arguments go to it unchanged.
# usage (repo root): bash results/h200-parity/best_from_run.sh RUN.json[.gz] results/best_configs.json
set -eu
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
exec python3 -m tlbench.harness.tools.best_from_run "$@"
