#!/usr/bin/env bash
# Nothing lost when a kernel faults, hangs, or the run is killed: one H200, from the repo root,
#   bash results/h200-fault-isolation/run.sh
# TEST ONLY: uses --tlbench-nvidia-test-only-fault (tests/test_only/fault_injection.py, an option of
# the test plugin loaded with -p test_only.faults); no
# shipped suite sets it.  Run from the repo root after
#   export PYTHONPATH=$PWD/.gpu/site:$PWD:$PWD/tests PYTHONUNBUFFERED=1   (tests/: the test-only plugin)
# Writes everything under $OUT (default results/runs/robust) and prints what proves each item.
set -u
OUT=${OUT:-results/runs/robust}
mkdir -p "$OUT"
PYTEST=(python3 -m pytest -p no:cacheprovider -q --tlbench-backend=nvidia --tlbench-kind=device
        --tlbench-scope=smoke --tlbench-seed=14)
SWEEP=(suites/gemm/test_stages.py suites/gemm/test_core_pipelining.py)  # 22 device items at smoke scope
OOB=gemm-1024x1024x1024-f16-bm128-bn256-bk64-t256-auto-s3      # item 11 of 22: the middle
SPIN=gemm_relu-512x512x1024-bf16-of32-bm128-bn256-bk64-t256-auto-s2  # item 20 of 22: near the end
items() { local n; n=$(grep -c '"type":"item"' "$1" 2>/dev/null); echo "${n:-0}"; }
secs() { date +%s.%N; }

echo "== 1. faults: out-of-bounds kernel in the middle, spinning kernel near the end, 20 normal items"
"${PYTEST[@]}" "${SWEEP[@]}" --benchmark-json="$OUT/clean.json" > "$OUT/clean.log" 2>&1
echo "clean run exit: $?"
"${PYTEST[@]}" "${SWEEP[@]}" -p test_only.faults --tlbench-timeout=15 --tlbench-nvidia-test-only-fault="$OOB=oob,$SPIN=spin" \
    --benchmark-json="$OUT/faulty.json" > "$OUT/faulty.log" 2>&1
echo "faulty run exit: $? (pytest's own: 1 = tests failed)"
grep -E "FAILED \[|passed|failed" "$OUT/faulty.log" | tail -5
python3 -m tlbench compare "$OUT/clean.json" "$OUT/faulty.json" --markdown "$OUT/compare-faults.md" > "$OUT/compare-faults.log" 2>&1
echo "tlbench compare clean faulty exit: $? (1 = the two faulting items are regressions)"
grep -E "^\| (FAILED|SLOWER|FASTER|NOISY)" "$OUT/compare-faults.md"; tail -2 "$OUT/compare-faults.log"

echo "== 2. kill -9 at about 50 %, recover, resume"
J="$OUT/killed.journal.jsonl"; rm -f "$J" "$OUT/killed.json"
"${PYTEST[@]}" "${SWEEP[@]}" --tlbench-no-interleave --benchmark-json="$OUT/killed.json" > "$OUT/killed.log" 2>&1 &
PID=$!
while [ "$(items "$J")" -lt 11 ] && kill -0 "$PID" 2>/dev/null; do sleep 0.2; done
kill -9 "$PID"; wait "$PID"; echo "pytest exit after kill -9: $? (137 = SIGKILL)"
echo "journal: $(items "$J") items; result file: $(stat -c %s "$OUT/killed.json" 2>/dev/null || echo absent) bytes"
python3 -m tlbench recover "$J" -o "$OUT/recovered.json"; echo "tlbench recover exit: $?"
python3 -c "from pytest_benchmark.cli import main; main()" compare "$OUT/recovered.json" --columns=median,rounds > "$OUT/pb-compare.log" 2>&1
echo "pytest-benchmark compare exit: $?"; grep -c "test_" "$OUT/pb-compare.log" | sed 's/^/pytest-benchmark compare rows: /'
"${PYTEST[@]}" "${SWEEP[@]}" --tlbench-no-interleave --tlbench-resume="$J" --benchmark-json="$OUT/killed.json" > "$OUT/resumed.log" 2>&1
echo "resumed run exit: $?"; grep -E "resumed from|passed|failed" "$OUT/resumed.log" | tail -3
python3 - "$J" "$OUT/killed.json" <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
runs = [i for i, l in enumerate(lines) if l["type"] == "run"]
second = [l["item_id"] for l in lines[runs[-1]:] if l["type"] == "item"]
first = {l["item_id"] for l in lines[:runs[-1]] if l["type"] == "item"}
doc = json.load(open(sys.argv[2]))
print(f"measured by the resumed run: {len(second)} items, overlap with the killed run: {len(first & set(second))}; "
      f"final JSON: {len(doc['benchmarks'])} timed, {sum(1 for b in doc['benchmarks'] if b['extra_info']['tlbench'].get('resumed_from'))} reused")
EOF

echo "== 3. overhead: persistent worker vs in-process on the stage suite at 8192^3 (compile + device items)"
# inprocess, worker, inprocess, worker: the first run also warms tilelang's disk cache; compare the last pair
OVER=(python3 -m pytest -p no:cacheprovider -q suites/gemm/test_stages.py -k 8192 --tlbench-backend=nvidia --tlbench-seed=14)
for pass in 1 2; do
  for mode in inprocess worker; do
    t0=$(secs)
    "${OVER[@]}" --tlbench-isolation=$mode --benchmark-json="$OUT/overhead-$mode-$pass.json" > "$OUT/overhead-$mode-$pass.log" 2>&1
    rc=$?; t1=$(secs)
    echo "pass $pass $mode: exit $rc, wall $(python3 -c "print(f'{$t1 - $t0:.1f}')") s; $(grep -E 'setup \(' "$OUT/overhead-$mode-$pass.log")"
  done
done
python3 -m tlbench compare "$OUT/overhead-inprocess-2.json" "$OUT/overhead-worker-2.json" > "$OUT/compare-overhead.log" 2>&1
echo "tlbench compare inprocess worker exit: $?"; tail -1 "$OUT/compare-overhead.log"

echo "== 4. kill -9 mid-way through the interleaved device phase (default mode), then resume"
# Two problems at smoke scope: two chunks (one per backend x problem). The journal gets the
# first chunk's items at once when it ends; the kill lands in the second chunk.
J="$OUT/phase.journal.jsonl"; rm -f "$J" "$OUT/phase.json"
"${PYTEST[@]}" "${SWEEP[@]}" --benchmark-json="$OUT/phase.json" > "$OUT/phase-killed.log" 2>&1 &
PID=$!
while [ "$(items "$J")" -lt 1 ] && kill -0 "$PID" 2>/dev/null; do sleep 0.2; done
sleep 1; kill -9 "$PID"; wait "$PID"; echo "pytest exit after kill -9: $? (137 = SIGKILL)"
echo "journal: $(items "$J") items (the first chunk); result file: $(stat -c %s "$OUT/phase.json" 2>/dev/null || echo absent) bytes"
python3 -m tlbench recover "$J" -o "$OUT/phase-recovered.json"; echo "tlbench recover exit: $?"
"${PYTEST[@]}" "${SWEEP[@]}" --tlbench-resume="$J" --benchmark-json="$OUT/phase.json" > "$OUT/phase-resumed.log" 2>&1
echo "resumed run exit: $?"; grep -E "resumed from|passed|failed" "$OUT/phase-resumed.log" | tail -3
python3 - "$J" "$OUT/phase.json" <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
runs = [i for i, l in enumerate(lines) if l["type"] == "run"]
second = [l["item_id"] for l in lines[runs[-1]:] if l["type"] == "item"]
first = [l["item_id"] for l in lines[:runs[-1]] if l["type"] == "item"]
doc = json.load(open(sys.argv[2]))
print(f"killed run journaled {len(first)} items ({len(set(first))} distinct); the resumed run measured {len(second)}, "
      f"overlap {len(set(first) & set(second))}; final JSON: {len(doc['benchmarks'])} timed, "
      f"{sum(1 for b in doc['benchmarks'] if b['extra_info']['tlbench'].get('resumed_from'))} reused")
EOF
