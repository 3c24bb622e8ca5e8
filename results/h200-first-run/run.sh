#!/usr/bin/env bash
# A user's kernels on their first GPU run (one H200, from the repo root; files under $OUT, else
# /tmp/h200-first-run):
#
#   bash results/h200-first-run/run.sh
#
# 1. suites/blocksparse/test_blocksparse_fp8.py at full scope: inputs that take the tile, an fp8 output
#    judged by steps(1), dense cuBLAS as a speed reference that is timed and never judged; then
#    `tlbench report` of its file.
# 2. suites/gemv/test_gemv.py at smoke scope.
# 3. tests/test_gpu_dynamic_memory_bound.py: a T.dynamic("M") kernel at two row counts, GB/s
#    with no NVML, a two-kernel vendor call.
# 4. the conformance set's device items (suites/conformance, full scope, 1 s per item), then
#    its table (results/conformance/table.py).
# Each step has a time limit (the whole under 560 s); summary.txt has one line per step.
# CONFORMANCE: the conformance suites to run (default: all of suites/conformance), e.g.
# "suites/conformance/test_topk.py"; the table then reads every file given in TABLE_FROM too.
# Files go to /tmp/h200-first-run, packed into $OUT/h200-first-run.tgz when OUT is set.
set -u
mkdir -p .gpu/site && { [ -d .gpu/site/tilelang ] || tar -xJf .gpu/site.tar.xz -C .gpu/site; }
export PYTHONPATH=$PWD/.gpu/site:$PWD PYTHONUNBUFFERED=1
O=/tmp/h200-first-run; rm -rf "$O"; mkdir -p "$O"
END=$(( $(date +%s) + ${BUDGET_S:-560} ))
P=(python3 -m pytest -p no:cacheprovider --benchmark-only --tlbench-backend=nvidia --tlbench-kind=device -rfs)
step() {  # step NAME LIMIT_S command...
  local name=$1 limit=$2; shift 2
  local left=$(( END - $(date +%s) )); (( limit > left )) && limit=$left
  (( limit < 10 )) && { echo "$name: not run (no time left)" | tee -a "$O/summary.txt"; return; }
  local t0=$(date +%s)
  timeout -k 10 "$limit" "$@" > "$O/$name.log" 2>&1; local rc=$?
  echo "$name: exit $rc, $(( $(date +%s) - t0 )) s (limit $limit), $(grep -E '(passed|failed|skipped|error)' "$O/$name.log" | tail -1 | cut -c1-140)" | tee -a "$O/summary.txt"
}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader | tee "$O/gpu.txt"
step blocksparse_fp8 170 "${P[@]}" suites/blocksparse/test_blocksparse_fp8.py --tlbench-scope=full --benchmark-json="$O/blocksparse_fp8.json"
python3 -m tlbench report "$O/blocksparse_fp8.json" > "$O/blocksparse_fp8.report.txt" 2>&1; echo "report exit $?" >> "$O/summary.txt"
step gemv 70 "${P[@]}" suites/gemv/test_gemv.py --tlbench-scope=smoke --benchmark-json="$O/gemv.json"
step dynamic 150 python3 -m pytest -p no:cacheprovider tests/test_gpu_dynamic_memory_bound.py -v -s
step conformance 400 "${P[@]}" ${CONFORMANCE:-suites/conformance} --tlbench-scope=full --tlbench-max-seconds=1 --benchmark-json="$O/conformance-h200.json" --tlbench-journal="$O/conformance.journal.jsonl"
python3 results/conformance/table.py results/conformance/cpu/*.json.gz ${TABLE_FROM:-} "$O/conformance-h200.json" > "$O/conformance-table.md" 2>&1
echo; cat "$O/summary.txt"; echo; cat "$O/blocksparse_fp8.report.txt" | head -40; echo; cat "$O/conformance-table.md"
if [ -n "${OUT:-}" ]; then tar czf "$OUT/h200-first-run.tgz" -C /tmp h200-first-run; fi
