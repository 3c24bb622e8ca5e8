#!/usr/bin/env bash
# The conformance set's compile columns: every suite under suites/conformance, one at a time
# (a 2-core box is shared), both backends, the smoke sizes, one cold build and one timed round
# per item (pass or fail is the answer here, not the time).  One gzipped pytest-benchmark JSON
# per suite in results/conformance/cpu/ (the journal is left in a scratch folder), then the
# table rebuilt into results/conformance/README.md.
# The examples are the rewrites bundled in suites/conformance/tilelang_examples/; with
# TLBENCH_TILELANG_EXAMPLES naming a tilelang checkout they are tilelang's own files, and the
# runs go to .upstream/runs/ instead (an ignored folder: not committed, not read by the table).
# Run from anywhere: bash results/conformance/cpu.sh [SUITE_STEM...]
set -uo pipefail
cd "$(dirname "$0")/../.."
out=results/conformance/cpu
[ -n "${TLBENCH_TILELANG_EXAMPLES:-}" ] && out=.upstream/runs
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
[ "$out" = results/conformance/cpu ] || exit 0
shopt -s nullglob
runs=(results/conformance/cpu/*.json.gz results/conformance/h200*.json results/conformance/h200*.json.gz)
python3 results/conformance/table.py "${runs[@]}" --readme results/conformance/README.md
