#!/usr/bin/env bash
# session 7, x2 call 1: the pytest process no longer imports torch/tilelang (the NVIDIA backend is
# described by its device worker) and workers end while results are written.  Cold spread run
# (tilelang cache + bytecode cache), then 3 warm pairs 1 GPU / one-process 2 GPUs (bytecode cache on;
# order alternates), then one pair with the image's Python as it is (no bytecode cache).
set -u
mkdir -p .gpu/site && [ -d .gpu/site/tilelang ] || tar -xJf .gpu/site.tar.xz -C .gpu/site
export PYTHONPATH=$PWD/.gpu/site:$(python3 -m harness.bootstrap --link $PWD/.gpu/src) PYTHONUNBUFFERED=1 TLBENCH_COMMIT=$1 TLBENCH_COMMIT_DIRTY=0
R=/tmp/r7; mkdir -p $R
secs() { date +%s.%N; }
pack() { tar czf $OUT/s7x1.tgz -C /tmp r7; }
P=(python3 -m pytest -p no:cacheprovider -q suites/test_tiles.py --tlbench-scope=full --benchmark-only --tlbench-backend=nvidia)
PYC=(env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX=/tmp/pyc)
IMG=(env)
run() {  # name, env prefix..., -- pytest args...
  local name=$1; shift; local pre=(); while [ "$1" != "--" ]; do pre+=("$1"); shift; done; shift
  local t0=$(secs)
  "${pre[@]}" TLBENCH_TRACE=$R/$name.trace timeout 200 "${P[@]}" "$@" --benchmark-json=$R/$name.json > $R/$name.log 2>&1; local rc=$?
  local w=$(python3 -c "print(f'{$(secs) - $t0:.1f}')")
  echo "$name $rc $w" >> $R/walls.txt
  echo "$name: exit $rc, wall $w s, $(tail -1 $R/$name.log | cut -c1-70)" >> $R/summary.txt
  python3 -m tlbench.harness.core.trace $R/$name.trace > $R/$name.timeline 2>&1; pack
}
run cold2 "${PYC[@]}" CUDA_VISIBLE_DEVICES=0,1 -- --tlbench-devices=0,1
for i in 1 2 3; do
  if [ $((i % 2)) = 1 ]; then
    run pyc-1gpu-$i "${PYC[@]}" CUDA_VISIBLE_DEVICES=0 --
    run pyc-2gpu-$i "${PYC[@]}" CUDA_VISIBLE_DEVICES=0,1 -- --tlbench-devices=0,1
  else
    run pyc-2gpu-$i "${PYC[@]}" CUDA_VISIBLE_DEVICES=0,1 -- --tlbench-devices=0,1
    run pyc-1gpu-$i "${PYC[@]}" CUDA_VISIBLE_DEVICES=0 --
  fi
done
run img-1gpu "${IMG[@]}" CUDA_VISIBLE_DEVICES=0 --
run img-2gpu "${IMG[@]}" CUDA_VISIBLE_DEVICES=0,1 -- --tlbench-devices=0,1
for f in $R/pyc-*.json $R/img-*.json; do python3 .gpu/best_vendor.py $f 2>&1 | cut -c1-230 >> $R/summary.txt; done
for f in pyc-1gpu-1 pyc-2gpu-1; do echo "== $f"; grep -vE " prepared |prefetch  backend|awaiting|chunk journaled" $R/$f.timeline | cut -c1-120 | tail -12; done
pack; cat $R/summary.txt
echo "== speedup per pair (1-GPU wall / 2-GPU wall)"
python3 - $R/walls.txt <<'PY'
import sys
w = {n: float(t) for n, rc, t in (l.split() for l in open(sys.argv[1]))}
for tag in ["pyc-%d" % i for i in (1, 2, 3)] + ["img"]:
    one, two = w.get(tag.replace("pyc-", "pyc-1gpu-") if tag != "img" else "img-1gpu"), w.get(tag.replace("pyc-", "pyc-2gpu-") if tag != "img" else "img-2gpu")
    if one and two:
        print(f"{tag:6s} 1 GPU {one:6.1f} s   2 GPUs {two:6.1f} s   speedup {one / two:.2f}x")
PY
