#!/usr/bin/env bash
# GEMM + ReLU in one kernel (bf16 -> fp32, the core-pipelining suite) on one H200, device items,
# against torch's matmul + relu on the same inputs.  From the repo root:
#   bash results/h200-gemm-relu/run.sh COMMIT OUT_DIR
set -u
out=${2:?usage: bash results/h200-gemm-relu/run.sh COMMIT OUT_DIR}; mkdir -p "$out"
mkdir -p .gpu/site && [ -d .gpu/site/tilelang ] || tar -xJf .gpu/site.tar.xz -C .gpu/site
export PYTHONPATH=$PWD/.gpu/site:$PWD PYTHONUNBUFFERED=1 TLBENCH_COMMIT=$1 TLBENCH_COMMIT_DIRTY=0
python3 -m pytest -q suites/gemm/test_core_pipelining.py --benchmark-only --tlbench-backend=nvidia --tlbench-kind=device \
    --benchmark-json="$out/gemm-relu-2048.json" > "$out/gemm-relu.log" 2>&1; tail -12 "$out/gemm-relu.log"
