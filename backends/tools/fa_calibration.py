"""Model-vs-published fidelity of the Ascend FA model: our body at the config of tilelang's
published Ascend 950 MHA figure, its modeled cycles, and the clock they would imply.

Usage: ``python -m tlbench.backends.tools.fa_calibration [--json OUT.json] [--enable-offset]``

A MODEL against a PUBLISHED number (tilelang's examples/ascend/flash_attention/README.md; different
kernel text, no prologue or epilogue), not a measurement; no published clock is invented.
Contract: ``calibrate(enable_offset)`` returns the figure as a dict; ``main`` prints it as JSON
(and writes ``--json``), exit 0.  Recorded in results/ascend-model/README.md.
"""

from __future__ import annotations

import argparse
import json

from tlbench.suites.flash_attention.problem import FaConfig, FaProblem

PUBLISHED_US = 26.8
PUBLISHED_SOURCE = "tile-ai/tilelang examples/ascend/flash_attention/README.md (MHA S=4096 D=128 bf16, 128x128, num_stages=3, 32 blocks)"
PROBLEM = FaProblem(batch=1, heads=1, seq_q=4096, seq_k=4096, dim=128, dtype="bfloat16", out_dtype="float32")


def calibrate(enable_offset: bool = False) -> dict:
    from ..ascend import schedule  # noqa: F401  (Z3 recorders before any Ascend lowering)
    from ..ascend.schedule import lower_with_schedule
    from . import suites_dir

    suites_dir()  # the FA kernel lives beside its suites
    from tlbench.suites.flash_attention.body import build
    from tlbench.suites.flash_attention.dialect_ascend import ASCEND_FA_DIALECT
    from tilelang.ascend.target import _make_ascend_target

    config = FaConfig(128, 128, 3, enable_offset=enable_offset)
    _, facts = lower_with_schedule(build(PROBLEM, config, ASCEND_FA_DIALECT), _make_ascend_target())
    loop = facts.loops[0] if facts.loops else None
    cycles = facts.modeled_cycles_per_core
    return {
        "label": "model-vs-published fidelity figure (modeled cycles of our body vs a published time of another kernel); not a measurement",
        "problem": PROBLEM.problem_id, "config": config.config_id, "blocks": PROBLEM.seq_q // config.block_M,
        "kv_loop_ii_cycles_model": loop["ii"] if loop else None,
        "kv_loop_span_cycles_model": loop["span"] if loop else None, "buffer_versions": facts.buffer_versions,
        "modeled_cycles_per_core": cycles, "published_us": PUBLISHED_US, "published_source": PUBLISHED_SOURCE,
        "implied_clock_ghz": round(cycles / (PUBLISHED_US * 1e-6) / 1e9, 3) if cycles else None,
        "published_clock_ghz": None,
        "published_clock_note": "no published Ascend 950 AI Core clock found; none is assumed",
        "model_gaps": "KV loop only (no Q load / init / normalise / store); SIMD regions' latencies guessed by EstimateLatency",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", default=None, help="also write the figure here")
    parser.add_argument("--enable-offset", action="store_true", help="ask Z3 for a prologue/body/epilogue pipeline, as the published kernel does")
    args = parser.parse_args(argv)
    result = calibrate(args.enable_offset)
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        with open(args.json, "w") as fh:
            fh.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
