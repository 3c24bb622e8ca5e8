#!/usr/bin/env bash
# The tile sweep at fp16 8192^3 on one H200 (full scope: block_M x block_N, num_stages 2..4,
# rasterization, staged output, + cuBLAS), device items, with --tlbench-autotune writing the winner
# to OUT_DIR/best_configs.json (the committed results/best_configs.json is this file's 8192^3 entry).
# From the repo root:  bash results/h200-tile-sweep/run.sh COMMIT OUT_DIR
set -u
out=${2:?usage: bash results/h200-tile-sweep/run.sh COMMIT OUT_DIR}; mkdir -p "$out"
mkdir -p .gpu/site && [ -d .gpu/site/tilelang ] || tar -xJf .gpu/site.tar.xz -C .gpu/site
export PYTHONPATH=$PWD/.gpu/site:$PWD PYTHONUNBUFFERED=1 TLBENCH_COMMIT=$1 TLBENCH_COMMIT_DIRTY=0
python3 -m pytest -q suites/gemm/test_tiles.py -k 8192 --tlbench-scope=full --benchmark-only --tlbench-backend=nvidia \
    --tlbench-kind=device --tlbench-autotune="$out/best_configs.json" --benchmark-json="$out/tiles-8192.json" > "$out/tiles.log" 2>&1
tail -12 "$out/tiles.log"
