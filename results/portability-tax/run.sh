#!/usr/bin/env bash
# The portability tax on one GPU: the one body beside the hand kernel and the vendor, device items.
# Usage: bash results/portability-tax/run.sh OUT fa|gemm|ab|overlap|explore|turns   (from the repo root, the GPU set up as in results/README.md)
#   fa:   results/portability-tax/test_fa_tax.py at S=8192, non-causal and causal
#   overlap: the one FA body's 128x128 items beside cuDNN, then the same with gemms-in-flight.patch applied
#   explore: test_fa_explore.py (one-body tiles without warp specialization; the hand kernel with
#         rescale-early.patch applied) and test_gemm_explore.py (the one GEMM body persistent), S=8192 / 4096^3, 8192^3
#   turns: test_fa_tax.py at S=8192, then the same with warp-group-turns.patch applied
#   gemm: the one GEMM body's two best tiles of the tile sweep (suites/gemm/test_tiles.py) and the hand
#         warp-specialized GEMM's persistent sliced-epilogue configs (suites/gemm/test_gemm_ws.py), 4096^3 and 8192^3
set -u
OUT=$1; WHAT=${2:-fa}; mkdir -p "$OUT"
COMMON=(--tlbench-scope=full --benchmark-only --tlbench-backend=nvidia --tlbench-kind=device -p no:cacheprovider)
if [ "$WHAT" = ab ]; then
  for side in before after; do
    [ "$side" = after ] && patch -p1 -s < results/portability-tax/accumulate-in-place.patch
    python3 -m pytest -q results/portability-tax/test_fa_tax.py -p tlbench.harness.plugin -k "s8192 and (t256-auto or sdpa_cudnn)" \
      "${COMMON[@]}" --benchmark-json="$OUT/fa-ab-$side.json" > "$OUT/ab-$side.log" 2>&1
    echo "$side rc=$?"; grep -E "^  |^nvidia|portability" "$OUT/ab-$side.log"
  done
  patch -p1 -R -s < results/portability-tax/accumulate-in-place.patch
elif [ "$WHAT" = overlap ]; then
  python3 -m pytest -q results/portability-tax/test_fa_tax.py -p tlbench.harness.plugin "${COMMON[@]}" \
    -k "s8192 and (bm128-bn128-t256-auto or sdpa_cudnn)" --benchmark-json="$OUT/fa-before.json" > "$OUT/before.log" 2>&1
  patch -p1 -s < results/portability-tax/gemms-in-flight.patch
  python3 -m pytest -q results/portability-tax/test_fa_overlap.py -p tlbench.harness.plugin "${COMMON[@]}" \
    -k s8192 --benchmark-json="$OUT/fa-overlap.json" > "$OUT/overlap.log" 2>&1
  patch -p1 -R -s < results/portability-tax/gemms-in-flight.patch
elif [ "$WHAT" = explore ]; then
  patch -p1 -s < results/portability-tax/rescale-early.patch
  PYTHONPATH=$PYTHONPATH:$PWD/suites python3 -m pytest -q results/portability-tax/test_fa_explore.py -p tlbench.harness.plugin \
    -k s8192 "${COMMON[@]}" --benchmark-json="$OUT/fa-explore.json" > "$OUT/fa-explore.log" 2>&1
  patch -p1 -R -s < results/portability-tax/rescale-early.patch
  python3 -m pytest -q results/portability-tax/test_gemm_explore.py -p tlbench.harness.plugin \
    -k "4096 or 8192" "${COMMON[@]}" --benchmark-json="$OUT/gemm-explore.json" > "$OUT/gemm-explore.log" 2>&1
elif [ "$WHAT" = turns ]; then
  for side in before after; do
    [ "$side" = after ] && patch -p1 -s < results/portability-tax/warp-group-turns.patch
    PYTHONPATH=$PYTHONPATH:$PWD/suites python3 -m pytest -q results/portability-tax/test_fa_tax.py -p tlbench.harness.plugin \
      -k s8192 "${COMMON[@]}" --benchmark-json="$OUT/fa-turns-$side.json" > "$OUT/fa-turns-$side.log" 2>&1
  done
  patch -p1 -R -s < results/portability-tax/warp-group-turns.patch
elif [ "$WHAT" = fa ]; then
  PYTHONPATH=$PYTHONPATH:$PWD/suites python3 -m pytest -q results/portability-tax/test_fa_tax.py -p tlbench.harness.plugin \
    -k s8192 "${COMMON[@]}" --benchmark-json="$OUT/fa-tax.json" > "$OUT/fa-tax.log" 2>&1
else
  python3 -m pytest -q suites/gemm/test_tiles.py suites/gemm/test_gemm_ws.py "${COMMON[@]}" \
    -k "(4096 or 8192) and (bm128-bn256-bk64-t256-g16-so-auto-s4 or bm256-bn128-bk64-t256-g8-so-auto-s4 or store_slices4 or vendor)" \
    --benchmark-json="$OUT/gemm-tax.json" > "$OUT/gemm-tax.log" 2>&1
fi
rc=$?; case "$WHAT" in ab|overlap|explore|turns) ;; *) echo "rc=$rc"; tail -40 "$OUT/$WHAT-tax.log";; esac
rm -f "$OUT"/*.journal.jsonl; gzip -9 -n -f "$OUT"/*.json
