#!/usr/bin/env bash
# Does the hand warp-specialized GEMM's lead over cuBLAS hold under every timer and under ncu?
# One H200, one device call (about 2-3 minutes): the fastest gemm_ws configs of the committed runs
# (1024^3: 64x128x64 one consumer s8; 2048^3-8192^3: 128x256 persistent s4 sliced; 8192^3 also s3
# whole-tile) and cuBLAS at each size, timed by the harness with events, CUPTI and a CUDA graph,
# and by ncu --clock-control none (backends/tools/timer_crosscheck.py), beside the launch floor
# (a one-block copy and torch's copy: each timer's fixed cost) and with the SM clock each side
# ran at (NVML after each CUPTI batch; ncu's sm__cycles_elapsed.avg.per_second).  Prints the table last.
# usage: OUT=DIR bash results/h200-parity/gemm_ws_timers.sh COMMIT   (repo root, tilelang's bundle in .gpu/)
set -u
OUT=${OUT:-results/runs/gemm-ws-timers}
mkdir -p .gpu/site "$OUT" && { [ -d .gpu/site/tilelang ] || tar -xJf .gpu/site.tar.xz -C .gpu/site; }
export PYTHONPATH=$PWD/.gpu/site:$PWD PYTHONUNBUFFERED=1 TLBENCH_COMMIT=${1:?commit}
cases=()
for n in 1024 2048 4096 8192; do cases+=(--case "gemm_ws-M$n-N$n-K$n-f16-vendor"); done
cases+=(--case gemm_ws-M1024-N1024-K1024-f16-block_M64-block_N128-block_K64-s8-consumers1-deferred1-group_m8-staged1)
for n in 2048 4096 8192; do
  cases+=(--case "gemm_ws-M$n-N$n-K$n-f16-block_M128-block_N256-block_K64-s4-consumers2-deferred1-group_m16-staged1-persistent132-lazy_store1-store_slices4")
done
cases+=(--case gemm_ws-M8192-N8192-K8192-f16-block_M128-block_N256-block_K64-s3-consumers2-deferred1-group_m16-staged1-persistent132-lazy_store1)
cases+=(--case copy_floor-N128-f32-threads128 --case copy_floor-N128-f32-vendor)
echo "== GPU before: $(nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader)"
start=$(date +%s)
timeout "${LIMIT_S:-400}" python3 -m tlbench.backends.tools.timer_crosscheck run --suite suites/gemm/test_gemm_ws.py \
  --suite results/h200-parity/crosscheck_floor_suite.py "${cases[@]}" \
  --ncu "${NCU_MODES-none}" --count "${COUNT:-10}" --out-dir "$OUT" > "$OUT/crosscheck.log" 2>&1
rc=$?
echo "== timer_crosscheck exit $rc after $(( $(date +%s) - start )) s"
grep -E "error|Error|exited" "$OUT/crosscheck.log" | grep -v "^==PROF==" | tail -5
python3 -m tlbench.backends.tools.timer_crosscheck table "$OUT"
exit $rc
