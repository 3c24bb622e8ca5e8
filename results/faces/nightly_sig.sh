#!/bin/bash
# tlbench nightly stopped by a signal once its third suite has started, from the repo root with
# tlbench installed:
#   bash results/faces/nightly_sig.sh SIGNAL OUTDIR LOG
# SUITES: the suites (default the SIGINT run's three; the SIGTERM run took
# "suites/gemm/test_core_pipelining.py suites/gemm/test_stages.py suites/rmsnorm/test_rmsnorm.py"); DELAY: seconds
# after the third suite's start (default 3).
sig=$1; out=$2; log=$3
SUITES=${SUITES:-suites/gemm/test_stages.py suites/gemm/test_tiles.py suites/gemm/test_core_pipelining.py}
rm -rf "$out"
start=$(date +%s)
tlbench nightly $SUITES --backend nvidia --out-dir "$out" --pytest-args="--tlbench-kind=compile --tlbench-scope=smoke" > "$log" 2>&1 &
pid=$!
echo "tlbench nightly pid $pid" 
# wait for the third suite's "started" line
while kill -0 $pid 2>/dev/null; do
  n=$(grep -c "started" "$log")
  if [ "$n" -ge 3 ]; then break; fi
  sleep 1
done
sleep ${DELAY:-3}
echo "--- at $(( $(date +%s) - start )) s: processes before the signal:"
ps -eo pid,pgid,args | grep -E "pytest|tlbench|valgrind" | grep -v grep
desc() { for c in $(ps -o pid= --ppid $1); do echo $c; desc $c; done; }
tree="$pid $(desc $pid | tr '\n' ' ')"
echo "--- the nightly's process tree before the signal: $tree"
ps -o pid,pgid,etimes,args -p "$(echo $tree | tr ' ' ',')"
echo "--- kill -$sig $pid"
kill -$sig $pid
wait $pid; rc=$?
echo "--- exit status $rc after $(( $(date +%s) - start )) s"
sleep 1
echo "--- ps -eo pid,pgid,args | grep -E \"pytest|tlbench|valgrind\" | grep -v grep :"
ps -eo pid,pgid,args | grep -E "pytest|tlbench|valgrind" | grep -v grep
echo "--- of the nightly's tree, still alive:"
for p in $tree; do [ -e /proc/$p ] && ps -o pid,pgid,args -p $p; done
echo "--- processes whose cwd is under OUTDIR or this checkout (mine):"
for d in /proc/[0-9]*; do c=$(readlink $d/cwd 2>/dev/null); case "$c" in "$PWD"*|$out*) echo "${d#/proc/} $c $(tr '\0' ' ' < $d/cmdline | cut -c1-150)";; esac; done
echo "--- (end of ps; $(ps -eo pid,pgid,args | grep -E "pytest|tlbench|valgrind" | grep -v grep | wc -l) lines)"
