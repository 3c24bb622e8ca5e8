"""tilelang's own autotuner over the configs a tlbench results file timed, for the search's side-by-side.

Usage: python results/search-live/autotuner_side_by_side.py RUN.json M N K OUT.json
Reads the configs of the timed GEMM records of RUN.json for problem ``gemm-MxNxK-f16`` (json
only), builds each with the tile suite's own CUDA body (suites/gemm/body.py), and runs
``tilelang.autotuner.AutoTuner`` over them with its defaults (warmup 25, rep 100, its result
check at rtol = atol = 1e-2 against ``A @ B^T``; its result cache off so it tunes).  Writes the
wall seconds, the best latency it measured and its config, and the configs tried to OUT.json.
Needs a CUDA GPU; the tile suite's folder (suites/) on ``sys.path``.
"""

import gzip
import json
import os
import sys
import time

os.environ.setdefault("TILELANG_AUTO_TUNING_DISABLE_CACHE", "1")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "suites"))

from tlbench.suites.gemm.body import gemm_cuda  # noqa: E402

RUN, M, N, K, OUT = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
PROBLEM = f"gemm-{M}x{N}x{K}-f16"


def kernel(block_M, block_N, block_K, threads, loop_form, num_stages, num_cores, enable_offset, group_m, stage_output):
    return gemm_cuda(M=M, N=N, K=K, dtype="float16", accum_dtype="float32", block_M=block_M, block_N=block_N,
                     block_K=block_K, threads=threads, loop_form=loop_form, num_stages=num_stages, num_cores=num_cores,
                     enable_offset=enable_offset, group_m=group_m, stage_output=stage_output)


def reference(A, B):
    return (A.float() @ B.float().T).to(A.dtype)


def main() -> None:
    import tilelang
    from tilelang.autotuner import AutoTuner

    with (gzip.open(RUN, "rt") if RUN.endswith(".gz") else open(RUN)) as f:
        run = json.load(f)
    records = [b["extra_info"]["tlbench"] for b in run["benchmarks"]]
    configs = [dict(r["config"]) for r in records if r.get("config") and r["case_id"].startswith(PROBLEM + "-")]
    if not configs:
        raise SystemExit(f"no timed config of {PROBLEM} in {RUN}")
    start = time.perf_counter()
    tuner = (AutoTuner.from_kernel(kernel=kernel, configs=configs)
             .set_compile_args(out_idx=[-1], target="cuda")
             .set_profile_args(ref_prog=reference, rtol=1e-2, atol=1e-2, supply_type=tilelang.TensorSupplyType.Normal))
    result = tuner.run(warmup=25, rep=100)
    wall = time.perf_counter() - start
    out = {"problem": PROBLEM, "configs": len(configs), "wall_s": wall, "best_latency_ms": result.latency,
           "best_config": result.config, "tilelang": tilelang.__version__}
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, default=str)
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    main()
