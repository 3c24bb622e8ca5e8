#!/usr/bin/env bash
# The stage sweep at fp16 8192^3 on one H200 (device items, both tiles, num_stages 0..4, manual,
# serial, cuBLAS on the same inputs), twice in separate processes, then `tlbench compare` of the
# two.  From the repo root:  bash results/h200-gemm-stages/run.sh COMMIT OUT_DIR
set -u
out=${2:?usage: bash results/h200-gemm-stages/run.sh COMMIT OUT_DIR}; mkdir -p "$out"
mkdir -p .gpu/site && [ -d .gpu/site/tilelang ] || tar -xJf .gpu/site.tar.xz -C .gpu/site
export PYTHONPATH=$PWD/.gpu/site:$PWD PYTHONUNBUFFERED=1 TLBENCH_COMMIT=$1 TLBENCH_COMMIT_DIRTY=0
R=(--benchmark-only --tlbench-backend=nvidia --tlbench-kind=device)
python3 -m pytest -q suites/gemm/test_stages.py -k 8192 "${R[@]}" --benchmark-json="$out/stages.json" > "$out/stages.log" 2>&1; tail -3 "$out/stages.log"
python3 -m pytest -q suites/gemm/test_stages.py -k 8192 "${R[@]}" --benchmark-json="$out/stages-second-process.json" > "$out/stages2.log" 2>&1; tail -3 "$out/stages2.log"
python3 -m tlbench compare "$out/stages.json" "$out/stages-second-process.json" --markdown "$out/compare.md"; echo "tlbench compare exit $?"
python3 -m tlbench report "$out/stages.json" --stages
