#!/usr/bin/env bash
# One H200, one device call (about 9 minutes): fp16 GEMM at 1024^3, 2048^3, 4096^3 and 8192^3 - the
# tile sweep's 128-thread tiles (128x128, and the small 64x128, 128x64, 64x64 that fill 132 SMs
# at 1024^3), its 128x256 g16 staged-output tiles, the recorded best per problem, cuBLAS - beside
# the split-K (block_K 64) and stream-K suites with their own cuBLAS items, in one pytest run;
# autotune writes the fastest correct config per problem.  Prints the per-shape table last.
# EXTRA: more pytest options (unset or empty: none, the default worker isolation; before the kernel-hash
# fix it timed no item on the H200 and runs passed EXTRA="--tlbench-isolation=inprocess --tlbench-timeout=60").
# SUITES: the suites to run (default: the tile sweep, split-K, stream-K); K: their -k filter.
# usage: bash results/h200-parity/gemm.sh COMMIT   (repo root of a copy of COMMIT, tilelang's bundle in .gpu/)
set -u
OUT=${OUT:-results/h200-parity}
mkdir -p .gpu/site "$OUT" && { [ -d .gpu/site/tilelang ] || tar -xJf .gpu/site.tar.xz -C .gpu/site; }
export PYTHONPATH=$PWD/.gpu/site:$PWD PYTHONUNBUFFERED=1 TLBENCH_COMMIT=${1:?commit} TLBENCH_COMMIT_DIRTY=0
K=${K:-"best or t128 or (bm128-bn256 and g16 and so) or vendor or (gemm_splitk and block_K64) or gemm_streamk"}
start=$(date +%s)
timeout "${LIMIT_S:-520}" python3 -m pytest -p no:cacheprovider -q --benchmark-only --tlbench-backend=nvidia \
  --tlbench-kind=device --tlbench-scope=full ${SUITES:-suites/gemm/test_tiles.py suites/gemm/test_gemm_splitk.py suites/gemm/test_gemm_streamk.py} \
  -k "$K" ${EXTRA-} --tlbench-autotune="$OUT/best_configs.json" --benchmark-json="$OUT/gemm.json" > "$OUT/gemm.log" 2>&1
echo "== pytest exit $? after $(( $(date +%s) - start )) s: $(tail -1 "$OUT/gemm.log")"
FILE=$OUT/gemm.json
if [ ! -s "$FILE" ]; then  # stopped at the limit: the items measured so far, from the journal
  python3 -m tlbench recover "$OUT/gemm.journal.jsonl" -o "$OUT/gemm.partial.json" && FILE=$OUT/gemm.partial.json
fi
grep -E "^(nvidia|  best)" "$OUT/gemm.log" | head -40
if [ -s "$FILE" ]; then python3 results/h200-parity/table.py gemm "$FILE"; else echo "== no item was measured: no table"; fi
