#!/usr/bin/env bash
# The main job (README command 1) on one H200 from cold caches, traced, then an A/A of the
# whole main job with and without compile work beside device timing (--tlbench-overlap off /
# auto, two runs each, warm caches), from the repo root:
#
#   bash results/main-job-speed/h200.sh COMMIT
#
# AA_RUNS=N runs each mode N times (default 2); AA_OPTS="..." adds pytest options to every A/A
# run (a measurement policy to try, e.g. "--tlbench-rounds=6 --tlbench-batch=10"); COLD=0 skips
# the cold main job.
#
# Files go to /tmp/main-job-speed (packed into $OUT/main-job-speed.tgz when OUT is set). It prints
# the main job's wall time and the trace's phase lines, then each comparison's verdict counts: the
# device items of an overlapped run against a run that is not must be all SAME, as two runs of
# the same mode are.
set -u
mkdir -p .gpu/site && [ -d .gpu/site/tilelang ] || tar -xJf .gpu/site.tar.xz -C .gpu/site
export PYTHONPATH=$PWD/.gpu/site:$PWD PYTHONUNBUFFERED=1 TLBENCH_COMMIT=$1 TLBENCH_COMMIT_DIRTY=0
export PYTHONPYCACHEPREFIX=/tmp/pyc; unset PYTHONDONTWRITEBYTECODE
R=/tmp/main-job-speed; rm -rf $R; mkdir -p $R
secs() { date +%s.%N; }
P=(python3 -m pytest -p no:cacheprovider suites --benchmark-only --tlbench-backend=auto)
export TILELANG_CACHE_DIR=$R/tl-cache
AA_RUNS=${AA_RUNS:-2}; read -r -a AA_OPTS <<< "${AA_OPTS:-}"
if [ "${COLD:-1}" != 0 ]; then
t0=$(secs); TLBENCH_TRACE=$R/main.trace "${P[@]}" --tlbench-cache-dir=$R/tlbench-cache --benchmark-json=$R/main.json > $R/main.log 2>&1; rc=$?
echo "main job, cold caches: exit $rc, wall $(python3 -c "print(f'{$(secs) - $t0:.1f}')") s, $(tail -1 $R/main.log | cut -c1-100)" | tee $R/summary.txt
python3 -m tlbench.harness.core.trace $R/main.trace > $R/trace.txt
grep -E "configure|worker ready|collected|overlap|compile phase|phase start|chunk measured|sessionfinish|exit" $R/trace.txt | tee $R/main.phases
fi
for k in $(seq 1 $AA_RUNS); do
  for mode in off auto; do
    t0=$(secs); "${P[@]}" "${AA_OPTS[@]}" --tlbench-overlap=$mode --benchmark-json=$R/aa-$mode-$k.json > $R/aa-$mode-$k.log 2>&1
    echo "overlap $mode run $k: wall $(python3 -c "print(f'{$(secs) - $t0:.1f}')") s, $(tail -1 $R/aa-$mode-$k.log | cut -c1-100)" | tee -a $R/summary.txt
  done
done
pairs=()
for k in $(seq 1 $AA_RUNS); do
  pairs+=("off-$k auto-$k")
  [ $k -lt $AA_RUNS ] && pairs+=("off-$k off-$((k + 1))" "auto-$k auto-$((k + 1))")
done
for pair in "${pairs[@]}"; do
  set -- $pair
  python3 -m tlbench compare $R/aa-$1.json $R/aa-$2.json --markdown $R/compare-$1-$2.md > $R/compare-$1-$2.txt 2>&1
  echo "compare $1 $2: exit $?, $(grep -m1 -E "SAME|SLOWER|FASTER" $R/compare-$1-$2.txt | cut -c1-160)" | tee -a $R/summary.txt
  # the device items' own verdicts (the rows under each "| device" group)
  echo "  device items: $(awk '/\| device/{d=1} /\| compile/{d=0} d && /^  (NOISY|SAME|SLOWER|FASTER|FAILED|MISSING)/{print $1}' $R/compare-$1-$2.txt | sort | uniq -c | tr -s ' \n' ' ')" | tee -a $R/summary.txt
done
grep -h "overlap" $R/aa-auto-1.log | tail -2
if [ -n "${OUT:-}" ]; then tar czf "$OUT/main-job-speed.tgz" --exclude=tl-cache --exclude=tlbench-cache -C /tmp main-job-speed; fi
