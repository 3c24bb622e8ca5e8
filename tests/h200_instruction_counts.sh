#!/usr/bin/env bash
# GPU host: does the hardware instruction counter work there, and are its counts of compile items
# repeatable?  (The 2-core CPU box has no counter: perf_event_open gives ENOENT.)  Run from the
# repo root after
#   export PYTHONPATH=$PWD/.gpu/site:$PWD PYTEST_PLUGINS=tlbench.harness.plugin PYTHONUNBUFFERED=1
# Writes under $OUT (default results/runs/instructions) and prints what answers each question.
set -u
OUT=${OUT:-results/runs/instructions}
mkdir -p "$OUT"
echo "== 1. perf says: $(perf stat -e instructions:u true 2>&1 | grep -E 'instructions|not supported|denied' | head -1)"
echo "== 2. tlbench's own counter:"
python3 -c "from tlbench.harness.measure.instructions import hardware_reason as r; print(r() or 'hardware counter usable')"
python3 -m pytest -p no:cacheprovider -q tests/test_instructions.py -k hardware 2>&1 | tail -1
echo "== 3. two runs of the stage suite's compile items (default --tlbench-instructions hardware: every round counted)"
for run in a b; do
  python3 -m pytest -p no:cacheprovider -q suites/gemm/test_stages.py --tlbench-backend=nvidia --tlbench-kind=compile \
      --tlbench-scope=smoke --benchmark-only --benchmark-json="$OUT/counts-$run.json" > "$OUT/counts-$run.log" 2>&1
  echo "run $run exit $?"
done
python3 - "$OUT/counts-a.json" "$OUT/counts-b.json" <<'PY'
import json, statistics, sys
runs = [{b["extra_info"]["tlbench"]["case_id"]: b["extra_info"]["tlbench"].get("instructions", {}) for b in json.load(open(p))["benchmarks"]} for p in sys.argv[1:]]
for case, a in sorted(runs[0].items()):
    b = runs[1].get(case, {})
    if not a.get("lowering") or not b.get("lowering"):
        print(case, "no counts:", a.get("absent") or b.get("absent")); continue
    ma, mb = statistics.median(a["lowering"]), statistics.median(b["lowering"])
    spread = max(a["lowering"]) / min(a["lowering"]) - 1
    print(f"{case}: {ma:,.0f} -> {mb:,.0f} ({mb / ma - 1:+.3%}); within run a: {spread:.3%}; device compiler {a.get('device_compiler')}")
PY
python3 -m tlbench compare "$OUT/counts-a.json" "$OUT/counts-b.json" --markdown "$OUT/compare.md" > "$OUT/compare.log" 2>&1
echo "tlbench compare a b exit: $? (0 expected: an A/A pair)"; grep -c "\[instructions\]" "$OUT/compare.md"
