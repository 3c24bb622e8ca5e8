#!/usr/bin/env bash
# One H200, one device call (about 5 minutes): calibrate the copy bandwidth, then RMSNorm at 4096
# rows x hidden 1024..16384 fp32 - the one-pass body's whole sweep, the two-pass body's blk_m2
# configs, torch's rms_norm - judged against the calibrated profile (--tlbench-profile); then the
# timer cross-check (events, CUPTI, CUDA graph, ncu --clock-control none) at 1024^3, 2048^3,
# 8192^3 and for the fastest one-pass RMSNorm at hidden 4096 and 16384, with the L2 flush and
# without it.  ncu --clock-control base is not run: it sets the GPU's clocks.
# Environment: LIMIT_S (the RMSNorm run's limit; 300: its 85 items need about that from cold caches),
# TIMER_LIMIT_S (each cross-check's; 150), FLUSH_MODES ("1 0": with the L2 flush, then without),
# EXTRA (more pytest options, as in gemm.sh; unset: none), TIMERS=0 (calibrate and RMSNorm only),
# CALIBRATED=FILE (a calibrated profile to use instead of calibrating), RMS_K (the RMSNorm -k).
# usage: bash results/h200-parity/bandwidth.sh COMMIT   (repo root of a copy of COMMIT, tilelang's bundle in .gpu/)
set -u
OUT=${OUT:-results/h200-parity}
mkdir -p .gpu/site "$OUT" && { [ -d .gpu/site/tilelang ] || tar -xJf .gpu/site.tar.xz -C .gpu/site; }
export PYTHONPATH=$PWD/.gpu/site:$PWD PYTHONUNBUFFERED=1 TLBENCH_COMMIT=${1:?commit} TLBENCH_COMMIT_DIRTY=0
if [ -n "${CALIBRATED-}" ]; then cp "$CALIBRATED" "$OUT/calibrated.json"; echo "== calibrated profile from $CALIBRATED"
else
  python3 -m tlbench calibrate --backend nvidia --seconds 20 -o "$OUT/calibrated.json" > "$OUT/calibrate.log" 2>&1
  echo "== calibrate exit $?: $(grep -i "bandwidth" "$OUT/calibrate.log" | head -1)"
fi
start=$(date +%s)
timeout "${LIMIT_S:-300}" python3 -m pytest -p no:cacheprovider -q --benchmark-only --tlbench-backend=nvidia \
  --tlbench-kind=device --tlbench-scope=full suites/rmsnorm/test_rmsnorm_onepass.py suites/rmsnorm/test_rmsnorm.py \
  -k "${RMS_K:-rmsnorm_onepass or blk_m2 or vendor}" --tlbench-profile="$OUT/calibrated.json" ${EXTRA-} \
  --benchmark-json="$OUT/rmsnorm.json" > "$OUT/rmsnorm.log" 2>&1
echo "== RMSNorm pytest exit $? after $(( $(date +%s) - start )) s: $(tail -1 "$OUT/rmsnorm.log")"
FILE=$OUT/rmsnorm.json
[ -s "$FILE" ] || { python3 -m tlbench recover "$OUT/rmsnorm.journal.jsonl" -o "$OUT/rmsnorm.partial.json" && FILE=$OUT/rmsnorm.partial.json; }
[ -s "$FILE" ] || { echo "== no RMSNorm item was measured (LIMIT_S=${LIMIT_S:-300} s): no table, no cross-check cases"; FILE=; }
BEST=$([ -n "$FILE" ] && python3 results/h200-parity/rmsnorm_best.py "$FILE")
echo "== cross-check RMSNorm cases: $BEST"
[ "${TIMERS:-1}" = 0 ] && FLUSH_MODES=skip
for flush in ${FLUSH_MODES:-1 0}; do
  [ "$flush" = skip ] && { echo "== timer cross-check not run (TIMERS=0)"; break; }
  OUT_T=$OUT/timers-flush$flush
  GEMM_K="1024x1024 or 2048x2048 or 8192x8192" RMSNORM_SUITE=suites/rmsnorm/test_rmsnorm_onepass.py RMSNORM_K="$BEST" \
    NCU_MODES=none LIMIT_S=${TIMER_LIMIT_S:-150} OUT=$OUT_T NO_FLUSH=$([ $flush = 0 ] && echo 1) bash results/h200-parity/h200_timers.sh > "$OUT_T.txt" 2>&1
  echo "== timers, L2 flush $flush: exit $?"; tail -16 "$OUT_T.txt"
done
[ -n "$FILE" ] && python3 results/h200-parity/table.py rmsnorm "$FILE"
