"""Golden test of the GEMM and flash-attention case-id schemes: ids are history keys and must never change.

Pinned three ways: literal ids for each optional part of the scheme, made both by the built-in
suites' declaration (suites/gemm/sweep.py through ``kernel_sweep``: what a run writes) and
by the reader of older GEMM records (backends/kernels/gemm: what a report reads back); every id
in the committed H200 results and the compare fixtures rebuilt byte for byte from the record's
own problem and config; and the family's parser splitting each one back into the problem id,
label and config id the record was made of.
"""

import gzip
import json
from pathlib import Path

import pytest

from builtin_gemm import config, gemm_case, gemm_vendor, problem
from tlbench.suites.gemm.problem import GemmConfig, GemmProblem
from tlbench.suites.gemm.records import GEMM
from tlbench.harness.core.cases import Case, VendorCase
from tlbench.harness.core.record import BenchItem
from tlbench.harness.core.registry import BackendRegistry

ROOT = Path(__file__).resolve().parents[1]
REGISTRY = BackendRegistry.from_entry_points()  # each backend's dialect, for its vendor items
COMMITTED = sorted([*ROOT.glob("results/**/*.json"), *ROOT.glob("results/**/*.json.gz"), *ROOT.glob("tests/fixtures/compare/*.json")])
COMMITTED = [p for p in COMMITTED if p.name != "best_configs.json" and p.relative_to(ROOT).parts[:2] != ("results", "runs")]

# (problem, config, label, id): problem and config as the suites write them (keyword arguments of
# kernel_gemm_sweep.problem / .config, which are also GemmProblem's and GemmConfig's fields)
GOLDEN = [
    (dict(M=8192, N=8192, K=8192, dtype="float16"), dict(block_M=128, block_N=256, block_K=64, threads=256, loop_form="auto", num_stages=3),
     None, "gemm-8192x8192x8192-f16-bm128-bn256-bk64-t256-auto-s3"),
    (dict(M=1024, N=1024, K=1024), dict(block_M=128, block_N=128, block_K=32, threads=128, loop_form="manual", num_stages=None),
     None, "gemm-1024x1024x1024-f16-bm128-bn128-bk32-t128-manual"),
    (dict(M=1024, N=1024, K=1024), dict(block_M=128, block_N=128, block_K=32, threads=128, loop_form="serial", num_stages=None),
     None, "gemm-1024x1024x1024-f16-bm128-bn128-bk32-t128-serial"),
    (dict(M=512, N=512, K=1024, dtype="bfloat16", out_dtype="float32", epilogue="relu"),
     dict(block_M=128, block_N=128, block_K=128, threads=128, loop_form="auto", num_stages=2, num_cores=4, enable_offset=True),
     None, "gemm_relu-512x512x1024-bf16-of32-bm128-bn128-bk128-t128-c4-auto-s2-offset"),
    (dict(M=4096, N=4096, K=4096),
     dict(block_M=256, block_N=128, block_K=64, threads=256, loop_form="auto", num_stages=4, num_cores=132, group_m=8, stage_output=True),
     "best", "gemm-4096x4096x4096-f16-best-bm256-bn128-bk64-t256-c132-g8-so-auto-s4"),
    (dict(M=64, N=64, K=64, dtype="float32", out_dtype="float32"), dict(block_M=64, block_N=64, block_K=16, threads=128, loop_form="auto", num_stages=0),
     None, "gemm-64x64x64-f32-bm64-bn64-bk16-t128-auto-s0"),
]


@pytest.mark.parametrize("sizes, axes, label, expected", GOLDEN, ids=[g[3] for g in GOLDEN])
def test_case_id_is_byte_identical(sizes, axes, label, expected):
    suite = gemm_case(problem(**sizes), config(**axes), label=label)
    recorded = Case(GemmProblem(**sizes), GemmConfig(**axes), label=label)
    assert suite.case_id == expected and recorded.case_id == expected
    parts = GEMM.parse_case_id(expected)
    assert (parts.problem_id, parts.label, parts.config_id) == (suite.problem.problem_id, label, suite.config.config_id)


def test_the_suites_and_the_record_reader_word_a_gemm_alike():
    """What a run writes into a record's ``described_as`` and what the reader of older records
    says of the same problem and config: the problem's label and the stage point."""
    sizes = dict(M=512, N=512, K=1024, dtype="bfloat16", out_dtype="float32", epilogue="relu")
    axes = dict(block_M=128, block_N=128, block_K=128, threads=128, loop_form="auto", num_stages=2, num_cores=4,
                enable_offset=True, group_m=2, stage_output=True)
    suite = gemm_case(problem(**sizes), config(**axes))
    assert suite.family.problem_label(suite.problem) == GEMM.problem_label(GemmProblem(**sizes)) == "512x512x1024 bf16 -> f32 + relu"
    assert suite.family.stage_point(suite.config) == GEMM.stage_point(GemmConfig(**axes))
    assert GEMM.stage_point(GemmConfig(**axes)).tile == "128x128x128 t128 cores=4 group_m=2 offset staged out"
    assert suite.family.loop_trips(suite.problem, suite.config) == GEMM.loop_trips(GemmProblem(**sizes), GemmConfig(**axes)) == 8


FA_GOLDEN = [
    ("fa-b2h16-s8192-d128-bf16-bm128-bn128-t256-auto-s2", dict(block_M=128, block_N=128, num_stages=2, threads=256)),
    ("fa-b2h16-s8192-d128-bf16-bm128-bn192-t384-auto-s2-hopper_ws", dict(block_N=192, threads=384, body="hopper_ws")),
    ("fa-b2h16-s8192-d128-bf16-bm128-bn192-t384-auto-s2-hopper_ws-fm", dict(block_N=192, threads=384, body="hopper_ws", fast_math=True)),
    ("fa-b2h16-s8192-d128-bf16-bm128-bn176-t384-auto-s2-hopper_ws-fm", dict(block_N=176, threads=384, body="hopper_ws", fast_math=True)),
    ("fa-b2h16-s8192-d128-bf16-bm128-bn128-t128-c4-auto-s2-offset", dict(num_cores=4, enable_offset=True)),
]


@pytest.mark.parametrize("expected, config", FA_GOLDEN, ids=[g[0] for g in FA_GOLDEN])
def test_fa_case_id_is_byte_identical_and_fast_math_only_adds_a_suffix(expected, config):
    from tlbench.suites.flash_attention.records import FLASH_ATTENTION
    from tlbench.suites.flash_attention.problem import FaConfig, FaProblem

    case = Case(FaProblem(batch=2, heads=16, seq_q=8192, seq_k=8192, dim=128), FaConfig(**config))
    assert case.case_id == expected
    parts = FLASH_ATTENTION.parse_case_id(expected)
    assert (parts.problem_id, parts.label, parts.config_id) == (case.problem.problem_id, None, case.config.config_id)


def test_vendor_and_item_ids():
    assert gemm_vendor(problem(8192, 8192, 8192, "float16")).case_id == "gemm-8192x8192x8192-f16-vendor"
    assert VendorCase(GemmProblem(8192, 8192, 8192, "float16")).case_id == "gemm-8192x8192x8192-f16-vendor"
    assert GEMM.parse_case_id("gemm-8192x8192x8192-f16-vendor").config_id == "vendor"
    item = BenchItem("nvidia", "compile", gemm_case(problem(**GOLDEN[0][0]), config(**GOLDEN[0][1])))
    assert item.item_id == "compile-nvidia-gemm-8192x8192x8192-f16-bm128-bn256-bk64-t256-auto-s3"


def test_a_foreign_id_is_refused_with_the_scheme():
    with pytest.raises(ValueError, match="not a GEMM case id"):
        GEMM.parse_case_id("attn-1x2x3-bm1")


def _records(path: Path) -> list[dict]:
    raw = path.read_bytes()
    doc = json.loads(gzip.decompress(raw) if path.suffix == ".gz" else raw)
    if not isinstance(doc, dict) or "benchmarks" not in doc:  # a tool's table (e.g. the timer cross-check), not a run
        return []
    top = doc.get("tlbench") or {}
    timed = [(b.get("extra_info") or {}).get("tlbench") for b in doc.get("benchmarks", [])]
    return [r for r in [*timed, *top.get("failed", []), *top.get("skipped", [])] if r]


def test_committed_files_are_there():
    assert len(COMMITTED) >= 8 and sum(len(_records(p)) for p in COMMITTED) > 500


def _family(rec: dict):
    from tlbench.suites.flash_attention.records import FLASH_ATTENTION
    from tlbench.harness.core.described import described, family_for_record

    if described(rec):  # a generic-path kernel: its ids come from its names and values, or the words it recorded
        return family_for_record(rec)
    return {None: GEMM, GEMM.name: GEMM, FLASH_ATTENTION.name: FLASH_ATTENTION}[rec.get("family")]


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_committed_id_is_rebuilt_from_its_record(path):
    for rec in _records(path):
        family = _family(rec)
        problem = family.problem_from_dict(rec["problem"])
        if rec.get("family_described"):  # no id grammar: the id is rebuilt from the record's values alone
            assert rec["case_id"].startswith(problem.problem_id + "-"), path.name
        else:
            parts = family.parse_case_id(rec["case_id"])
            assert parts.problem_id == problem.problem_id and parts.label == rec.get("label"), path.name
        if rec.get("config") is None:
            if family is GEMM:  # flash attention names its vendor items by library (sdpa_cudnn ...)
                assert VendorCase(problem).case_id == rec["case_id"], path.name
            continue
        rebuilt = Case(problem, family.config_from_dict(rec["config"]), label=rec.get("label")).case_id
        assert rebuilt == rec["case_id"], path.name


FA_LITERAL = [
    (dict(batch=2, heads=16, seq_q=4096, seq_k=4096, dim=128, causal=True), dict(block_N=64, num_stages=3, threads=256),
     "fa-b2h16-s4096-d128-bf16-causal-bm128-bn64-t256-auto-s3"),
    (dict(batch=1, heads=8, seq_q=1024, seq_k=2048, kv_heads=2, out_dtype="float32"), dict(loop_form="manual", num_stages=None),
     "fa-b1h8kv2-sq1024sk2048-d128-bf16-of32-bm128-bn128-t128-manual"),
    (dict(batch=1, heads=2, seq_q=1024, seq_k=1024), dict(loop_form="serial", num_stages=None, body="hopper"),
     "fa-b1h2-s1024-d128-bf16-bm128-bn128-t128-serial-hopper"),
]


@pytest.mark.parametrize("problem, config, expected", FA_LITERAL, ids=[g[2] for g in FA_LITERAL])
def test_fa_case_id_literals(problem, config, expected):
    from tlbench.suites.flash_attention.problem import FaConfig, FaProblem
    from tlbench.suites.flash_attention.records import FLASH_ATTENTION

    case = Case(FaProblem(**problem), FaConfig(**config))
    assert case.case_id == expected
    parts = FLASH_ATTENTION.parse_case_id(expected)
    assert (parts.problem_id, parts.config_id) == (case.problem.problem_id, case.config.config_id)


def test_fa_vendor_ids_name_their_library():
    from tlbench.suites.flash_attention.sweep import FA, config, problem

    from tlbench import kernel_sweep
    from tlbench.suites.flash_attention.records import FLASH_ATTENTION

    sweep = kernel_sweep("flash_attention", **FA, sizes=[problem(batch=2, heads=16, seq=8192)], configs=[config()], module=__name__)
    ids = [v.case_id for backend in ("nvidia", "ascend") for v in sweep.vendor_cases(backend, "full", REGISTRY.dialect(backend))]
    assert ids == ["fa-b2h16-s8192-d128-bf16-sdpa_flash", "fa-b2h16-s8192-d128-bf16-sdpa_cudnn",
                   "fa-b2h16-s8192-d128-bf16-sdpa_efficient", "fa-b2h16-s8192-d128-bf16-npu_fusion_attention"]
    assert all(FLASH_ATTENTION.parse_case_id(i).config_id == i.rsplit("-", 1)[1] for i in ids)  # the reader splits them back


SUITE_IDS = ROOT / "tests" / "fixtures" / "suite_case_ids.json"


def _suite_sweep(name: str):
    import importlib.util

    (path,) = (ROOT / "suites").glob(f"*/{name}")  # suites/<family>/<name>
    spec = importlib.util.spec_from_file_location(f"_golden_{Path(name).stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SWEEP


def test_every_built_in_suite_id_is_the_pinned_one():
    """Every case and vendor id of every built-in suite, per backend and scope, is still made
    byte for byte as when tests/fixtures/suite_case_ids.json was written (GEMM and flash
    attention alike).  A suite may add cases; one that deliberately drops a case updates the file."""
    from tlbench.harness.results.export.best_configs import load_best

    pinned = json.loads(SUITE_IDS.read_text())
    assert len(pinned) >= 20 and any(k.startswith("test_fa_") for k in pinned) and any(k.startswith("test_tiles") for k in pinned)
    now = {}
    for name in sorted({key.split()[0] for key in pinned} | {p.name for p in (ROOT / "suites").glob("*/test_*.py") if p.parent.name != "conformance"}):
        sweep = _suite_sweep(name)
        for backend in ("nvidia", "ascend"):
            for scope in ("quick", "smoke", "full"):
                ids = [c.case_id for c in sweep.cases(backend, scope, None, lambda p, b, pr, d: load_best(ROOT / p, b, pr, d))]
                ids += [v.case_id for v in sweep.vendor_cases(backend, scope, REGISTRY.dialect(backend))]
                if ids:
                    now[f"{name} {backend} {scope}"] = ids
    lost = {key: sorted(set(ids) - set(now.get(key, ()))) for key, ids in pinned.items()}
    assert {k: v for k, v in lost.items() if v} == {}
