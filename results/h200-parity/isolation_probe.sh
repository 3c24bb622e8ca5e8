#!/usr/bin/env bash
# The fastest gemm_ws configs, cuBLAS and the launch floor (the cases gemm_ws_timers.sh times),
# each by CUPTI back to back and after an idle gap of 1 and 10 ms (isolation_probe.py), twice.
# usage: bash results/h200-parity/isolation_probe.sh   (repo root, tilelang's bundle in .gpu/)
set -u
mkdir -p .gpu/site && { [ -d .gpu/site/tilelang ] || tar -xJf .gpu/site.tar.xz -C .gpu/site; }
export PYTHONPATH=$PWD/.gpu/site:$PWD PYTHONUNBUFFERED=1
ws=gemm_ws-M%d-N%d-K%d-f16-block_M128-block_N256-block_K64-s4-consumers2-deferred1-group_m16-staged1-persistent132-lazy_store1-store_slices4
cases=(--case gemm_ws-M1024-N1024-K1024-f16-block_M64-block_N128-block_K64-s8-consumers1-deferred1-group_m8-staged1)
for n in 1024 2048 4096 8192; do
  [ "$n" = 1024 ] || cases+=(--case "$(printf "$ws" "$n" "$n" "$n")")
  cases+=(--case "gemm_ws-M$n-N$n-K$n-f16-vendor")
done
cases+=(--case copy_floor-N128-f32-threads128 --case copy_floor-N128-f32-vendor)
for run in 1 2; do
  echo "== run $run"
  python3 -m tlbench.backends.tools.isolation_probe --suite suites/gemm/test_gemm_ws.py --suite results/h200-parity/crosscheck_floor_suite.py \
    "${cases[@]}" 2>&1 | grep -vE "TileLang|Warning|warn\(" | tail -12
done
