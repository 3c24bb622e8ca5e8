#!/usr/bin/env bash
# The main job (the quick scope: `pytest suites --benchmark-only --tlbench-backend=auto`) on GPU0
# and cores 0-15, beside the full scope (--tlbench-scope=full) on GPU1 and cores 16-31, each from its
# own cold tilelang and tlbench caches, traced (TLBENCH_TRACE), on a 2 x H200 host, from the repo root.
#
#   bash results/h200-quick-and-full-scope/run.sh COMMIT [TAG]
#
# Files go to /tmp/TAG (default quick-and-full) and are packed into $OUT/TAG.tgz when OUT is set (the
# device runner's output folder); the summary has both wall times, the full scope's failures and the
# main job's summary blocks.
set -u
mkdir -p .gpu/site && [ -d .gpu/site/tilelang ] || tar -xJf .gpu/site.tar.xz -C .gpu/site
TAG=${2:-quick-and-full}
export PYTHONPATH=$PWD/.gpu/site:$PWD PYTHONUNBUFFERED=1 TLBENCH_COMMIT=$1 TLBENCH_COMMIT_DIRTY=0
export PYTHONPYCACHEPREFIX=/tmp/pyc; unset PYTHONDONTWRITEBYTECODE
R=/tmp/$TAG; mkdir -p $R
secs() { date +%s.%N; }
pack() { if [ -n "${OUT:-}" ]; then tar czf "$OUT/$TAG.tgz" -C /tmp "$TAG"; fi; }
P=(python3 -m pytest -p no:cacheprovider)
( export CUDA_VISIBLE_DEVICES=1 TILELANG_CACHE_DIR=/tmp/full-tl-cache TLBENCH_TRACE=$R/full.trace
  t0=$(secs); timeout 570 taskset -c 16-31 "${P[@]}" suites --benchmark-only --tlbench-backend=auto --tlbench-scope=full --tlbench-cache-dir=/tmp/full-tlbench-cache --benchmark-json=$R/full.json > $R/full.log 2>&1; rc=$?
  echo "full scope (GPU1, cores 16-31, own cold caches): exit $rc, wall $(python3 -c "print(f'{$(secs) - $t0:.1f}')") s, $(tail -1 $R/full.log | cut -c1-90)" >> $R/summary.txt ) &
sleep 1
export CUDA_VISIBLE_DEVICES=0 TILELANG_CACHE_DIR=/tmp/quick-tl-cache TLBENCH_TRACE=$R/quick.trace
t0=$(secs); timeout 260 taskset -c 0-15 "${P[@]}" suites --benchmark-only --tlbench-backend=auto --tlbench-cache-dir=/tmp/quick-tlbench-cache --benchmark-json=$R/quick.json > $R/quick.log 2>&1; rc=$?
echo "quick main job (GPU0, cores 0-15, own cold caches, beside the full scope): exit $rc, wall $(python3 -c "print(f'{$(secs) - $t0:.1f}')") s, $(tail -1 $R/quick.log | cut -c1-90)" >> $R/summary.txt
python3 -m tlbench.harness.core.trace $R/quick.trace | grep -v " prepared " > $R/quick.timeline; pack
wait
python3 -m tlbench.harness.core.trace $R/full.trace | grep -v " prepared " > $R/full.timeline; pack
sed -n '/= tlbench/,$p' $R/quick.log | tail -45 | cut -c1-170
grep -E "^FAILED" $R/full.log | cut -c1-200 | head -10
cat $R/summary.txt
