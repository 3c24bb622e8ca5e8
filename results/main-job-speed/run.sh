#!/bin/bash
# README command 1, the previous head and this branch, alternately, each from its own copy of the
# tree and its own virtual environment:
#   git archive f0b8cdf | tar -x -C /tmp/speed/base   (and python3 -m venv .venv && python3 -m harness.bootstrap --dev there)
#   bash results/main-job-speed/run.sh      (the branch's checkout: /work/wt/speed)
# Each run's wall, user and system CPU (/usr/bin/time) and the load at its start go to /tmp/speed/sbs.log.
for k in 1 2; do
  for which in base new; do
    dir=/tmp/speed/base; [ $which = new ] && dir=/work/wt/speed
    cd $dir && . .venv/bin/activate
    echo "=== $which run $k start $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)" >> /tmp/speed/sbs.log
    /usr/bin/time -f "$which run $k: wall %e s, user %U s, sys %S s" python3 -m pytest suites --benchmark-only --tlbench-backend=auto --benchmark-json=/tmp/speed/sbs-$which-$k.json > /tmp/speed/sbs-$which-$k.out 2>&1
    tail -1 /tmp/speed/sbs-$which-$k.out >> /tmp/speed/sbs.log
    grep -E "passed|failed" /tmp/speed/sbs-$which-$k.out | tail -1 >> /tmp/speed/sbs.log
    echo "=== end $(date +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)" >> /tmp/speed/sbs.log
    deactivate
  done
done
