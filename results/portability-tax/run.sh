#!/usr/bin/env bash
# The portability tax at S=8192 (FA) on one GPU: results/portability-tax/test_fa_tax.py, device items.
# Usage: bash results/portability-tax/run.sh OUT   (from the repo root, the GPU set up as in results/README.md)
set -u
OUT=$1; mkdir -p "$OUT"
PYTHONPATH=$PYTHONPATH:$PWD/suites python3 -m pytest -q results/portability-tax/test_fa_tax.py -p tlbench.harness.plugin \
  -k s8192 --tlbench-scope=full --benchmark-only --tlbench-backend=nvidia --tlbench-kind=device -p no:cacheprovider \
  --benchmark-json="$OUT/fa-tax.json" > "$OUT/fa-tax.log" 2>&1
echo "rc=$?"; tail -40 "$OUT/fa-tax.log"
rm -f "$OUT"/*.journal.jsonl; gzip -9 -n -f "$OUT"/*.json
