#!/usr/bin/env bash
# Do the timers agree?  One H200, one device call (about 5-7 minutes): fp16 GEMM 1024^3, 2048^3,
# 4096^3, 8192^3 (the 128x256x64 s3 tile, the recorded best per size, cuBLAS) and the RMSNorm
# suite's cases, each timed by the harness with CUDA events, CUPTI and a CUDA graph, and by ncu
# with --clock-control none and base (backends/tools/timer_crosscheck.py).  Prints one table last.
#
# Run from the repo root on the GPU host, tilelang's bundle in .gpu/site.tar.xz (results/README.md, "GPU runs"):
#   bash results/h200-parity/h200_timers.sh
# Environment: OUT (where the results go; default results/runs/timers), GEMM_K (a -k expression
# for the GEMM cases; default gemm: all 11), RMSNORM_SUITE (default suites/rmsnorm/test_rmsnorm.py; left
# out when absent), RMSNORM_K (a -k expression for its cases; default rmsnorm), COUNT (calls per
# case under ncu; 10), NCU_MODES (none,base; "none" leaves out ncu's base-clock run, "" all of ncu),
# LIMIT_S (the tool's time limit; 510), NO_FLUSH=1 (time without the L2 flush: the timers skip it
# and ncu runs with --cache-control none, to see what the flush and ncu's own cache control add).
# L2_FLUSH=read (the timers' flush reads its buffer instead of overwriting it: no dirty lines left
# for the timed kernel to write back; --tlbench-nvidia-l2-flush).
# ncu --clock-control base is ncu's default: it sets the GPU to its base clock while it profiles
# each kernel and restores it afterwards.
set -u
cd "$(dirname "$0")/../.."
RES=${OUT:-results/runs/timers}
WORK=$(mktemp -d /tmp/tlbench-timers.XXXXXX)
mkdir -p "$RES"
if [ ! -d .gpu/site/tilelang ] && [ -f .gpu/site.tar.xz ]; then
  mkdir -p .gpu/site && tar -xJf .gpu/site.tar.xz -C .gpu/site
fi
export PYTHONPATH=$PWD/.gpu/site:$PWD PYTHONUNBUFFERED=1

SUITES=(--suite results/h200-parity/crosscheck_gemm_suite.py)
K="${GEMM_K:-gemm}"
RMS_SUITE=${RMSNORM_SUITE:-suites/rmsnorm/test_rmsnorm.py}
if [ -f "$RMS_SUITE" ]; then
  SUITES+=(--suite "$RMS_SUITE"); K="($K) or (${RMSNORM_K:-rmsnorm})"
else
  echo "no RMSNorm suite at $RMS_SUITE: GEMMs only (set RMSNORM_SUITE and RMSNORM_K)"
fi
echo "== GPU before: $(nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv,noheader)"
echo "== $(ncu --version 2>&1 | tail -1); commit ${TLBENCH_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo '?')}; L2 flush ${L2_FLUSH:-write}"
start=$(date +%s)
timeout "${LIMIT_S:-510}" python3 -m tlbench.backends.tools.timer_crosscheck run "${SUITES[@]}" -k "$K" \
  --count "${COUNT:-10}" --ncu "${NCU_MODES-none,base}" ${NO_FLUSH:+--no-flush} --l2-flush "${L2_FLUSH:-write}" --out-dir "$WORK" > "$RES/crosscheck.log" 2>&1
rc=$?
echo "== timer_crosscheck exit $rc after $(( $(date +%s) - start )) s (124: stopped at LIMIT_S; the table below is re-made from what was measured)"
grep -E "^(events|cupti|graph) +[^ ]+: " "$RES/crosscheck.log" | grep -v ": clean " | head -20  # items not clean
echo "== GPU after: $(nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv,noheader)"
grep -E "error|Error|exited" "$RES/crosscheck.log" | grep -v "^==PROF==" | tail -5
python3 -m tlbench.backends.tools.timer_crosscheck table "$WORK" > "$WORK/table.txt" 2>&1
cp "$WORK"/harness.json "$WORK"/crosscheck.md "$WORK"/crosscheck.json "$RES"/ 2>/dev/null
tar -czf "$RES/timers-work.tgz" -C "$WORK" . 2>/dev/null
cat "$WORK/table.txt"
exit $rc
