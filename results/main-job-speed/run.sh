#!/bin/bash
# README command 1 at two commits, side by side on one machine, each from a fresh clone and a
# fresh virtual environment set up the way the README says (python3 -m harness.bootstrap), the
# runs alternating (base, new, base, new), from the repo root:
#
#   bash results/main-job-speed/run.sh BASE_COMMIT [NEW_COMMIT]     (NEW default: HEAD)
#
# Work goes to /tmp/main-job-sbs (WORK to change it); each run's wall, user and system CPU
# (/usr/bin/time), the load at its start and pytest's last line go to WORK/sbs.log; each run's
# whole output to WORK/sbs-<which>-<k>.out. The first run of each tree starts with cold caches
# (tilelang's and tlbench's caches are per clone: TILELANG_CACHE_DIR and --tlbench-cache-dir).
set -u
BASE=$1; NEW=${2:-HEAD}; REPO=$PWD; W=${WORK:-/tmp/main-job-sbs}
rm -rf "$W"; mkdir -p "$W"
for which in base new; do
  commit=$BASE; [ $which = new ] && commit=$NEW
  git clone -q "$REPO" "$W/$which" && git -C "$W/$which" checkout -q "$commit"
  (cd "$W/$which" && python3 -m venv .venv && . .venv/bin/activate && python3 -m harness.bootstrap > "$W/bootstrap-$which.log" 2>&1) \
    || { echo "bootstrap of $which failed: $W/bootstrap-$which.log"; exit 2; }
  echo "$which: $(git -C "$W/$which" log --oneline -1)" | tee -a "$W/sbs.log"
done
for k in 1 2; do
  for which in base new; do
    cd "$W/$which" && . .venv/bin/activate
    echo "=== $which run $k start $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$W/sbs.log"
    TILELANG_CACHE_DIR=$W/$which/.tl-cache /usr/bin/time -f "$which run $k: wall %e s, user %U s, sys %S s" \
      python3 -m pytest suites --benchmark-only --tlbench-backend=auto --benchmark-json=results/latest.json \
      --tlbench-cache-dir=$W/$which/.tlbench-cache > "$W/sbs-$which-$k.out" 2>&1
    tail -1 "$W/sbs-$which-$k.out" >> "$W/sbs.log"
    grep -E "passed|failed" "$W/sbs-$which-$k.out" | tail -1 >> "$W/sbs.log"
    cp results/latest.json "$W/sbs-$which-$k.json"
    deactivate; cd "$REPO"
  done
done
grep -E "^(base|new)" "$W/sbs.log"
