#!/usr/bin/env bash
# The CPU-box probes of the H200 worker stall (README.md there): the device worker's whole path with
# real tilelang builds and a fake device, 16 compile threads and 16 build children on a 2-core box.
# (The main thread's wakeup lag was read by backends/tools/gil_probe.py, retired after commit c00c31b.)
# usage: bash results/h200-parity/cpu_worker_probe/run.sh   (repo root, tlbench installed)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
export PYTHONPATH=$PWD/tests${PYTHONPATH:+:$PYTHONPATH}  # the test-only plugin (-p test_only.hybrid)
export TILELANG_CACHE_DIR=$WORK/cache TLBENCH_TRACE=$WORK/trace.txt
TLBENCH_BUILD_PROCESSES=16 HYB_CPUS=16 python3 -m pytest -p no:cacheprovider -q -p test_only.hybrid --tlbench-backend=hybrid \
  --tlbench-kind=device --benchmark-json="$WORK/out.json" "$HERE/suite_hybrid.py" 2>&1 | grep -v TileLang | tail -2
python3 -m tlbench.harness.core.trace "$WORK/trace.txt" | grep -E "timeout|worker spawn|prefetch received" | head -5
