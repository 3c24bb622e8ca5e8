#!/usr/bin/env bash
# The main job (quick scope, README command 1 with the bundle) on GPU0 and cores 0-15,
# beside the full scope on GPU1 and cores 16-31, each from its own cold caches, traced.
set -u
mkdir -p .gpu/site && [ -d .gpu/site/tilelang ] || tar -xJf .gpu/site.tar.xz -C .gpu/site
# usage: bash results/h200x2-main-and-full.sh COMMIT TAG.  The calls ran .gpu/s6x3.sh (session 6, eb091ea, TAG r3),
# .gpu/s7x2.sh (70e6bbd) and .gpu/s7x3.sh (f89242f), which differ from this one only in the names of their scratch
# folder and archive.
TAG=$2
export PYTHONPATH=$PWD/.gpu/site:$(python3 -m harness.bootstrap --link $PWD/.gpu/src) PYTHONUNBUFFERED=1 TLBENCH_COMMIT=$1 TLBENCH_COMMIT_DIRTY=0
export PYTHONPYCACHEPREFIX=/tmp/pyc; unset PYTHONDONTWRITEBYTECODE
R=/tmp/$TAG; mkdir -p $R
secs() { date +%s.%N; }
pack() { tar czf $OUT/$TAG.tgz -C /tmp $TAG; }
P=(python3 -m pytest -p no:cacheprovider)
( export CUDA_VISIBLE_DEVICES=1 TILELANG_CACHE_DIR=/tmp/full-tl-cache TLBENCH_TRACE=$R/full.trace
  t0=$(secs); timeout 570 taskset -c 16-31 "${P[@]}" suites --benchmark-only --tlbench-backend=auto --tlbench-scope=full --tlbench-cache-dir=/tmp/full-tlbench-cache --benchmark-json=$R/h200-full.json > $R/full.log 2>&1; rc=$?
  echo "full scope (GPU1, cores 16-31, own cold caches): exit $rc, wall $(python3 -c "print(f'{$(secs) - $t0:.1f}')") s, $(tail -1 $R/full.log | cut -c1-90)" >> $R/summary.txt ) &
sleep 1
export CUDA_VISIBLE_DEVICES=0 TILELANG_CACHE_DIR=/tmp/quick-tl-cache TLBENCH_TRACE=$R/quick.trace
t0=$(secs); timeout 260 taskset -c 0-15 "${P[@]}" suites --benchmark-only --tlbench-backend=auto --tlbench-cache-dir=/tmp/quick-tlbench-cache --benchmark-json=$R/h200-quick.json > $R/quick.log 2>&1; rc=$?
echo "quick main job (GPU0, cores 0-15, own cold caches, beside the full scope): exit $rc, wall $(python3 -c "print(f'{$(secs) - $t0:.1f}')") s, $(tail -1 $R/quick.log | cut -c1-90)" >> $R/summary.txt
python3 -m tlbench.harness.core.trace $R/quick.trace | grep -v " prepared " > $R/quick.timeline; pack
wait
python3 -m tlbench.harness.core.trace $R/full.trace | grep -v " prepared " > $R/full.timeline; pack
sed -n '/= tlbench/,$p' $R/quick.log | tail -45 | cut -c1-170
grep -E "^FAILED" $R/full.log | cut -c1-200 | head -10
cat $R/summary.txt
