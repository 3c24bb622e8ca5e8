#!/usr/bin/env bash
# The conformance set's compile columns: every suite under suites/conformance, one at a time
# (a 2-core box is shared), both backends, the smoke sizes, one cold build and one timed round
# per item (pass or fail is the answer here, not the time).  One gzipped pytest-benchmark JSON
# per suite in results/conformance/cpu/ (the journal is left in a scratch folder), then the
# table rebuilt into results/conformance/README.md.
# The examples are tilelang's own files, read from the checkout TLBENCH_TILELANG_EXAMPLES names
# (without it every suite skips, and the script says so and stops).
# Run from anywhere: TLBENCH_TILELANG_EXAMPLES=~/tilelang bash results/conformance/cpu.sh [SUITE_STEM...]
set -uo pipefail
cd "$(dirname "$0")/../.."
out=results/conformance/cpu
if [ -z "${TLBENCH_TILELANG_EXAMPLES:-}" ]; then
  echo "cpu.sh: set TLBENCH_TILELANG_EXAMPLES to a tilelang checkout (git clone https://github.com/tile-ai/tilelang)" >&2
  exit 2
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$out"
stems=("$@")
if [ ${#stems[@]} -eq 0 ]; then
  for f in suites/conformance/test_*.py; do s=$(basename "$f" .py); stems+=("${s#test_}"); done
fi
for s in "${stems[@]}"; do
  start=$(date +%s)
  python3 -m pytest "suites/conformance/test_$s.py" --benchmark-only --tlbench-backend=nvidia,ascend \
    --tlbench-kind=compile --tlbench-scope=smoke --tlbench-compile-rounds=1 \
    --benchmark-json="$scratch/$s.json" -p no:cacheprovider -q | tail -1
  [ -f "$scratch/$s.json" ] && gzip -n -c "$scratch/$s.json" > "$out/$s.json.gz"
  echo "  $s: $(( $(date +%s) - start )) s wall, load $(cut -d' ' -f1-3 /proc/loadavg)"
done
shopt -s nullglob
runs=(results/conformance/cpu/*.json.gz results/conformance/h200*.json results/conformance/h200*.json.gz)
python3 results/conformance/table.py "${runs[@]}" --readme results/conformance/README.md
