#!/usr/bin/env bash
# The full tile sweep (suites/gemm/test_tiles.py --tlbench-scope=full, 175 kernels + cuBLAS) on one H200
# against the same sweep spread over two, on a 2 x H200 host, from the repo root.
#
#   bash results/h200-two-gpu-spread/run.sh COMMIT [PAIRS]      (environment: XDIST=1, IMAGE_PYTHON=1)
#
# One cold run spread over both GPUs first (fills tilelang's cache and the bytecode cache), then
# PAIRS (default 1) warm pairs: GPU0 alone, and both GPUs in one process (--tlbench-devices=0,1),
# the order alternating from pair to pair.  XDIST=1 adds the two-GPU run under pytest-xdist
# (-n 2); IMAGE_PYTHON=1 adds one pair with the image's Python as it is (PYTHONDONTWRITEBYTECODE
# set, torch without .pyc).  The other runs unset PYTHONDONTWRITEBYTECODE and keep bytecode in
# PYTHONPYCACHEPREFIX.  Every run is traced (TLBENCH_TRACE); the summary lists each run's wall
# time and pytest's count, best kernel / vendor at 8192^3 per file (best_vendor.py) and the
# speedup per pair.  Files go to $SCRATCH (default /tmp/two-gpu-spread), and are packed into
# $OUT/two-gpu-spread.tgz when OUT is set (the device runner's output folder).
# The committed files were made with PAIRS=1 XDIST=1 IMAGE_PYTHON=1 (one-process/),
# PAIRS=1 XDIST=1 (one-process-finer-split/) and PAIRS=3 IMAGE_PYTHON=1
# (one-process-no-torch-in-pytest/); README.md says which commit each ran.
set -u
COMMIT=${1:?usage: bash results/h200-two-gpu-spread/run.sh COMMIT [PAIRS]}
PAIRS=${2:-1}
HERE=$(dirname "$0")
mkdir -p .gpu/site && [ -d .gpu/site/tilelang ] || tar -xJf .gpu/site.tar.xz -C .gpu/site
export PYTHONPATH=$PWD/.gpu/site:$PWD PYTHONUNBUFFERED=1 TLBENCH_COMMIT=$COMMIT TLBENCH_COMMIT_DIRTY=0
R=${SCRATCH:-/tmp/two-gpu-spread}; mkdir -p "$R"
secs() { date +%s.%N; }
pack() { if [ -n "${OUT:-}" ]; then tar czf "$OUT/two-gpu-spread.tgz" -C "$(dirname "$R")" "$(basename "$R")"; fi; }
P=(python3 -m pytest -p no:cacheprovider -q suites/gemm/test_tiles.py --tlbench-scope=full --benchmark-only --tlbench-backend=nvidia)
PYC=(env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX=/tmp/pyc)
IMG=(env)
run() {  # name, env prefix..., -- pytest args...
  local name=$1; shift; local pre=(); while [ "$1" != "--" ]; do pre+=("$1"); shift; done; shift
  local t0; t0=$(secs)
  "${pre[@]}" TLBENCH_TRACE="$R/$name.trace" timeout 280 "${P[@]}" "$@" --benchmark-json="$R/$name.json" > "$R/$name.log" 2>&1; local rc=$?
  local w; w=$(python3 -c "print(f'{$(secs) - $t0:.1f}')")
  echo "$name $rc $w" >> "$R/walls.txt"
  echo "$name: exit $rc, wall $w s, $(tail -1 "$R/$name.log" | cut -c1-70)" >> "$R/summary.txt"
  python3 -m tlbench.harness.core.trace "$R/$name.trace" > "$R/$name.timeline" 2>&1; pack
}
run cold2 "${PYC[@]}" CUDA_VISIBLE_DEVICES=0,1 -- --tlbench-devices=0,1
for i in $(seq 1 "$PAIRS"); do
  if [ $((i % 2)) = 1 ]; then
    run "pyc-1gpu-$i" "${PYC[@]}" CUDA_VISIBLE_DEVICES=0 --
    run "pyc-2gpu-$i" "${PYC[@]}" CUDA_VISIBLE_DEVICES=0,1 -- --tlbench-devices=0,1
  else
    run "pyc-2gpu-$i" "${PYC[@]}" CUDA_VISIBLE_DEVICES=0,1 -- --tlbench-devices=0,1
    run "pyc-1gpu-$i" "${PYC[@]}" CUDA_VISIBLE_DEVICES=0 --
  fi
done
[ "${XDIST:-0}" = 1 ] && run pyc-xdist2 "${PYC[@]}" CUDA_VISIBLE_DEVICES=0,1 -- -n 2 --tlbench-devices=0,1
if [ "${IMAGE_PYTHON:-0}" = 1 ]; then
  run img-1gpu "${IMG[@]}" CUDA_VISIBLE_DEVICES=0 --
  run img-2gpu "${IMG[@]}" CUDA_VISIBLE_DEVICES=0,1 -- --tlbench-devices=0,1
fi
python3 "$HERE/best_vendor.py" "$R"/pyc-*.json $(ls "$R"/img-*.json 2>/dev/null) 2>&1 | cut -c1-300 >> "$R/summary.txt"
echo "== speedup per pair (1-GPU wall / 2-GPU wall)" >> "$R/summary.txt"
python3 - "$R/walls.txt" >> "$R/summary.txt" <<'PY'
import sys
walls = {name: float(wall) for name, _rc, wall in (line.split() for line in open(sys.argv[1]))}
pairs = sorted({name.split("-", 2)[2] for name in walls if name.startswith("pyc-1gpu-")}, key=int)
for tag, one, two in [(f"pyc-{i}", f"pyc-1gpu-{i}", f"pyc-2gpu-{i}") for i in pairs] + [("img", "img-1gpu", "img-2gpu")]:
    if one in walls and two in walls:
        print(f"{tag:6s} 1 GPU {walls[one]:6.1f} s   2 GPUs {walls[two]:6.1f} s   speedup {walls[one] / walls[two]:.2f}x")
PY
pack; cat "$R/summary.txt"
