#!/usr/bin/env bash
# Two shards of the stage suite's device items on the two GPUs of a 2 x H200 host, as two hosts
# would run them (two separate pytest processes, GPU0 + cores 0-15 and GPU1 + cores 16-31, each
# with its own caches and its own vendor copy), merged with `tlbench merge`; then the same run
# on one GPU (GPU0, cores 0-15).  Prints the walls, the merge, and best / vendor at 8192^3 of
# both files (each kernel against the vendor item of its own shard), and compares them.
# usage: bash results/h200-two-gpu-shards/run.sh COMMIT [TAG]   (repository root of a copy of COMMIT)
set -u
mkdir -p .gpu/site && [ -d .gpu/site/tilelang ] || tar -xJf .gpu/site.tar.xz -C .gpu/site
TAG=${2:-shards}
export PYTHONPATH=$PWD/.gpu/site:$PWD PYTHONUNBUFFERED=1 TLBENCH_COMMIT=$1 TLBENCH_COMMIT_DIRTY=0
R=/tmp/$TAG; mkdir -p $R
secs() { date +%s.%N; }
since() { python3 -c "print(f'{$(secs) - $1:.1f}')"; }
P=(python3 -m pytest suites/gemm/test_stages.py -p no:cacheprovider -q --benchmark-only --tlbench-backend=nvidia --tlbench-kind=device --tlbench-seed=1)
shard() {  # INDEX GPU CORES
  ( export CUDA_VISIBLE_DEVICES=$2 TILELANG_CACHE_DIR=/tmp/$TAG-tl-cache-$1 TLBENCH_CACHE_DIR=/tmp/$TAG-tlbench-cache-$1
    s0=$(secs); taskset -c $3 "${P[@]}" --tlbench-shard=$1/2 --benchmark-json=$R/shard-$1.json > $R/shard-$1.log 2>&1; rc=$?
    echo "shard $1/2 (GPU$2, cores $3): exit $rc, wall $(since $s0) s, $(tail -1 $R/shard-$1.log | cut -c1-100)" >> $R/summary.txt ) &
}
: > $R/summary.txt
t0=$(secs); shard 1 0 0-15; shard 2 1 16-31; wait
echo "2 shards at once: wall $(since $t0) s" >> $R/summary.txt
python3 -m tlbench.harness.cli merge $R/shard-1.json $R/shard-2.json -o $R/merged.json >> $R/summary.txt 2>&1
echo "merge exit $?" >> $R/summary.txt
( export CUDA_VISIBLE_DEVICES=0 TILELANG_CACHE_DIR=/tmp/$TAG-tl-cache-one TLBENCH_CACHE_DIR=/tmp/$TAG-tlbench-cache-one
  s0=$(secs); taskset -c 0-15 "${P[@]}" --benchmark-json=$R/one-gpu.json > $R/one-gpu.log 2>&1; rc=$?
  echo "one GPU (GPU0, cores 0-15): exit $rc, wall $(since $s0) s, $(tail -1 $R/one-gpu.log | cut -c1-100)" >> $R/summary.txt )
python3 - $R/one-gpu.json $R/merged.json >> $R/summary.txt <<'EOF'
import sys
from tlbench.harness.core.shard import placement
from tlbench.harness.results.files.store import load_results
for path in sys.argv[1:]:
    recs = [r for r in load_results(path).records if r["problem_id"] == "gemm-8192x8192x8192-f16"]
    kernels = [r for r in recs if r["config"] is not None]
    best = min(kernels, key=lambda r: r["summary"]["median"])
    vendor = [v for v in recs if v["config"] is None and placement(v) == placement(best)] or [v for v in recs if v["config"] is None]
    v = vendor[0]["summary"]["median"]
    print(f"{path}: 8192^3 best {best['case_id']} {best['summary']['median'] * 1e3:.3f} ms ({best.get('shard') or 'unsharded'}, "
          f"{best.get('device_uuid')}), vendor {v * 1e3:.3f} ms on the same placement: best/vendor = {v / best['summary']['median']:.3f}x")
EOF
python3 -m tlbench.harness.cli compare $R/one-gpu.json $R/merged.json > $R/compare.txt 2>&1
echo "tlbench compare one-gpu merged: exit $?" >> $R/summary.txt
tar czf ${OUT:-/tmp}/$TAG.tgz -C /tmp $TAG
cat $R/summary.txt
