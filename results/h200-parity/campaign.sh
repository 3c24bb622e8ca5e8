#!/usr/bin/env bash
# One H200 call (about 9-10 minutes) with kernel builds on threads only, as that campaign ran (TLBENCH_BUILD_PROCESSES=0;
# the default build children have worked on the H200 since the kernel-hash fix, README.md): the one-pass RMSNorm over
# hidden sizes against torch and the calibrated copy, stream-K at four sizes under the default
# worker isolation and the timer cross-check with the L2 flush.  Each step's files are packed into $OUT as it ends.
# (The campaign also ran the build-children probe, backends/tools/pool_probe.py, retired after commit c00c31b.)
# usage: OUT=DIR bash results/h200-parity/campaign.sh COMMIT   (repo root, tilelang's bundle in .gpu/)
set -u
C=${1:?commit}; R=/tmp/r; mkdir -p $R/rms $R/sk $R/probe
export PYTHONPYCACHEPREFIX=/tmp/pyc TLBENCH_BUILD_PROCESSES=0
pack() { tar -czf "$OUT/$1.tgz" -C $R "$1"; }
TIMERS=0 CALIBRATED=results/h200-parity/calibrated.json OUT=$R/rms LIMIT_S=${RMS_LIMIT_S:-150} \
  RMS_K="rmsnorm_onepass and staged1 and (threads256 or threads1024) or (rmsnorm_onepass and vendor)" \
  bash results/h200-parity/bandwidth.sh $C 2>&1 | tail -14; pack rms
TLBENCH_TRACE=$R/sk/trace.txt EXTRA= OUT=$R/sk LIMIT_S=${SK_LIMIT_S:-120} K="gemm_streamk and (block_K64 or vendor)" \
  bash results/h200-parity/gemm.sh $C 2>&1 | tail -8; pack sk
FILE=$R/rms/rmsnorm.json; [ -s $FILE ] || FILE=$R/rms/rmsnorm.partial.json
BEST=$(python3 results/h200-parity/rmsnorm_best.py "$FILE")
echo "== cross-check RMSNorm cases: $BEST"
GEMM_K="1024x1024 or 2048x2048 or 8192x8192" RMSNORM_SUITE=suites/rmsnorm/test_rmsnorm_onepass.py RMSNORM_K="$BEST" NCU_MODES=none \
  LIMIT_S=${TIMER_LIMIT_S:-170} OUT=$R/timers bash results/h200-parity/h200_timers.sh 2>&1 | tail -18; pack timers
