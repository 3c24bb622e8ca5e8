#!/usr/bin/env bash
# Flash attention on one H200, one device call (64 items in about 1 minute from cold caches): the shared
# (one-body) FA's stage sweep, the target-specific Hopper bodies (hopper, hopper_ws) and torch
# SDPA (flash, cuDNN, efficient) at S=4096 and 8192, non-causal (suites/flash_attention/test_fa_stages.py) and
# causal (suites/flash_attention/test_fa_causal.py: the shared body, the hopper_ws body and SDPA; the hopper body
# has no causal mask), then the table per problem (backends/tools/fa_report.py): best one-body and best
# target-specific FA against the fastest SDPA backend.
# Run from the repo root on the GPU host, tilelang's bundle in .gpu/site.tar.xz (results/README.md, "GPU runs"):
#   bash results/h200-flash-attention/h200_fa_parity.sh          (OUT: where the results go; default results/runs/fa-parity)
# EXTRA: more pytest options (e.g. --tlbench-isolation=inprocess); LIMIT_S: pytest's limit (500 s; a run
# stopped there is recovered from its journal into fa-parity.partial.json); COMMIT: the commit to record.
set -u
cd "$(dirname "$0")/../.."
RES=${OUT:-results/runs/fa-parity}
mkdir -p "$RES"
if [ ! -d .gpu/site/tilelang ] && [ -f .gpu/site.tar.xz ]; then
  mkdir -p .gpu/site && tar -xJf .gpu/site.tar.xz -C .gpu/site
fi
export PYTHONPATH=$PWD/.gpu/site:$PWD PYTHONUNBUFFERED=1
[ -n "${COMMIT-}" ] && export TLBENCH_COMMIT=$COMMIT TLBENCH_COMMIT_DIRTY=0
echo "== GPU before: $(nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,clocks_event_reasons.active --format=csv,noheader)"
start=$(date +%s)
timeout "${LIMIT_S:-500}" python3 -m pytest -p no:cacheprovider -q suites/flash_attention/test_fa_stages.py suites/flash_attention/test_fa_causal.py \
  -k "s4096 or s8192" --tlbench-scope=full --tlbench-backend=nvidia --tlbench-kind=device --benchmark-only \
  ${EXTRA-} --benchmark-json="$RES/fa-parity.json" > "$RES/fa-parity.log" 2>&1
rc=$?
echo "== pytest exit $rc after $(( $(date +%s) - start )) s; $(grep -E '[0-9]+ (passed|failed)' "$RES/fa-parity.log" | tail -1)"
grep -E "DRIFT|CAPPED" "$RES/fa-parity.log" | head -10
FILE=$RES/fa-parity.json
if [ ! -s "$FILE" ]; then  # stopped at LIMIT_S: the items measured so far, from the run's journal
  python3 -m tlbench recover "$RES/fa-parity.journal.jsonl" -o "$RES/fa-parity.partial.json" && FILE=$RES/fa-parity.partial.json
fi
python3 -m tlbench.backends.tools.fa_report "$FILE" --markdown "$RES/fa-parity.md" > "$RES/fa-report.txt" 2>&1
echo "== fa_report exit $?"
grep -E "^## |^best |^SDPA backends" "$RES/fa-parity.md"
exit $rc
