#!/usr/bin/env bash
# ncu cross-check of the best one-body FA (S=8192, 128x128 t256, 1 stage) and GEMM (8192^3, 128x256x64
# t256, panels of 16, staged output, 4 stages): the harness's kernel-only median, then Nsight Compute's
# gpu__time_duration of the same items' launches (launches 3..22 of each kernel), both printed.
# Usage: bash results/portability-tax/ncu.sh OUT   (from the repo root, the GPU set up as in results/README.md)
set -u; export OUT=$1; mkdir -p "$OUT"
FA_K="s8192 and not causal and bm128-bn128-t256-auto-s1 and not fm"
GEMM_K="8192 and bm128-bn256-bk64-t256-g16-so-auto-s4"
COMMON="--tlbench-scope=full --benchmark-only --tlbench-backend=nvidia --tlbench-kind=device -p no:cacheprovider -q"
echo "=== harness, the two items"
K="($FA_K) or ($GEMM_K)"
FILES="results/portability-tax/test_fa_tax.py suites/gemm/test_tiles.py -p tlbench.harness.plugin"
timeout 90 python3 -m pytest $FILES $COMMON -k "$K" --benchmark-json="$OUT"/ncu-harness.json 2>&1 | grep -E "best|passed|failed"
echo "=== ncu"
for pair in "fa|main_kernel|results/portability-tax/test_fa_tax.py|$FA_K" "gemm|gemm_kernel|suites/gemm/test_tiles.py|$GEMM_K"; do
  IFS='|' read -r name kernel file keyword <<< "$pair"
  timeout 70 ncu --clock-control none --metrics gpu__time_duration.sum -k regex:$kernel --launch-skip 2 --launch-count 20 --csv --log-file "$OUT"/ncu-$name.csv \
    python3 -m pytest $file -p tlbench.harness.plugin $COMMON -k "$keyword" > "$OUT"/ncu-$name-run.log 2>&1; echo "ncu $name rc=$?"
done
python3 - <<'PY'
import csv, os, statistics
out = os.environ["OUT"]
for name in ("fa", "gemm"):
    path = f"{out}/ncu-{name}.csv"
    if not os.path.exists(path): print(name, "no ncu csv"); print(open(f"{out}/ncu-{name}-run.log").read()[-1200:]); continue
    rows = [r for r in csv.DictReader(l for l in open(path) if l.startswith('"')) if r.get("Metric Name") == "gpu__time_duration.sum"]
    if not rows: print(name, "no rows:", open(path).read()[-1200:]); continue
    scale = {"ns": 1e-9, "nsecond": 1e-9, "us": 1e-6, "usecond": 1e-6, "ms": 1e-3, "msecond": 1e-3}
    vals = [float(r["Metric Value"].replace(",", "")) * scale[r["Metric Unit"]] for r in rows]
    print(name, f"ncu n={len(vals)} median {statistics.median(vals)*1e3:.4f} ms min {min(vals)*1e3:.4f} max {max(vals)*1e3:.4f}" if vals else "no rows")
PY
rm -f "$OUT"/*.journal.jsonl; gzip -9 -n -f "$OUT"/*.json "$OUT"/*.log
