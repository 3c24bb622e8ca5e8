#!/usr/bin/env bash
# session 6, x2 call 4: the warm 1-GPU / one-process 2-GPU / xdist 2-GPU tile sweeps again, bytecode cache on, after a cold spread run.
# the bytecode cache), then warm on 1 GPU, warm spread over 2 GPUs in one process, and (for comparison)
# warm under pytest-xdist -n 2; the warm 1/2-GPU pair again with the image's Python as it is (no bytecode).
set -u
mkdir -p .gpu/site && [ -d .gpu/site/tilelang ] || tar -xJf .gpu/site.tar.xz -C .gpu/site
export PYTHONPATH=$PWD/.gpu/site:$(python3 -m harness.bootstrap --link $PWD/.gpu/src) PYTHONUNBUFFERED=1 TLBENCH_COMMIT=$1 TLBENCH_COMMIT_DIRTY=0
R=/tmp/r4; mkdir -p $R
secs() { date +%s.%N; }
pack() { tar czf $OUT/s6x4.tgz -C /tmp r4; }
P=(python3 -m pytest -p no:cacheprovider -q suites/test_tiles.py --tlbench-scope=full --benchmark-only --tlbench-backend=nvidia)
PYC=(env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX=/tmp/pyc)
run() {  # name, env prefix..., -- pytest args...
  local name=$1; shift; local pre=(); while [ "$1" != "--" ]; do pre+=("$1"); shift; done; shift
  local t0=$(secs)
  "${pre[@]}" TLBENCH_TRACE=$R/$name.trace timeout 280 "${P[@]}" "$@" --benchmark-json=$R/$name.json > $R/$name.log 2>&1; local rc=$?
  echo "$name: exit $rc, wall $(python3 -c "print(f'{$(secs) - $t0:.1f}')") s, $(tail -1 $R/$name.log | cut -c1-70)" >> $R/summary.txt
  python3 -m tlbench.harness.core.trace $R/$name.trace > $R/$name.timeline 2>&1; pack
}
run cold2 "${PYC[@]}" CUDA_VISIBLE_DEVICES=0,1 -- --tlbench-devices=0,1
run pyc-1gpu "${PYC[@]}" CUDA_VISIBLE_DEVICES=0 --
run pyc-2gpu "${PYC[@]}" CUDA_VISIBLE_DEVICES=0,1 -- --tlbench-devices=0,1
run pyc-xdist2 "${PYC[@]}" CUDA_VISIBLE_DEVICES=0,1 -- -n 2 --tlbench-devices=0,1
for f in pyc-1gpu pyc-2gpu pyc-xdist2; do python3 .gpu/best_vendor.py $R/$f.json 2>&1 | cut -c1-200 >> $R/summary.txt; done
for f in pyc-1gpu pyc-2gpu pyc-xdist2; do echo "== $f"; grep -vE " prepared |prefetch  backend|awaiting|chunk journaled" $R/$f.timeline | cut -c1-120 | tail -16; done
pack; cat $R/summary.txt
