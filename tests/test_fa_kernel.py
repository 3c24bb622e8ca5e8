"""The flash-attention kernel of the built-in suites without lowering: FLOPs, ids, refusals
with reasons and the on-chip budget (as the backends judge the suites' cases), the suite
declaration, a tolerance that tells a correct tiled kernel from a wrong one, and the words
its records are read with."""

from dataclasses import asdict

import pytest

torch = pytest.importorskip("torch")

from tlbench.suites.flash_attention.build import fa_ascend  # noqa: E402  (suites/: tests/conftest.py puts it on sys.path)
from tlbench.suites.flash_attention.reference import allowed_error, make_inputs, reference  # noqa: E402
from tlbench.suites.flash_attention.sweep import FA, config as fa_config  # noqa: E402

from tlbench import kernel_sweep  # noqa: E402
from tlbench.backends.ascend import limits as ascend_limits  # noqa: E402
from tlbench.suites.flash_attention.records import FLASH_ATTENTION  # noqa: E402
from tlbench.suites.flash_attention.problem import FaConfig, FaProblem  # noqa: E402
from tlbench.backends.nvidia import limits as nvidia_limits  # noqa: E402
from tlbench.harness.core import budget  # noqa: E402

H200 = FaProblem(batch=2, heads=16, seq_q=8192, seq_k=8192, dim=128)


def suite_case(problem: FaProblem, config: FaConfig):
    """The case the suites make of (problem, config), through their own ``kernel_sweep`` arguments."""
    sweep = kernel_sweep("flash_attention", **FA, sizes=[asdict(problem)], configs=[asdict(config)], module=__name__)
    (case,) = sweep.cases("nvidia", "full")
    return case


# what each backend asks of a case: its rules and its on-chip scopes (the suite imports no backend)
def cuda_rejection(problem: FaProblem, config: FaConfig):
    return nvidia_limits.rejection(suite_case(problem, config), "sm_90a")


def ascend_rejection(problem: FaProblem, config: FaConfig):
    return ascend_limits.rejection(suite_case(problem, config))


def test_flops_are_four_b_h_sq_sk_d_and_causal_counts_the_attended_pairs_exactly():
    assert H200.flops == 4 * 32 * 8192 * 8192 * 128
    tiny = FaProblem(batch=1, heads=1, seq_q=4, seq_k=4, dim=8, causal=True)
    assert tiny.attended_pairs == 4 + 3 + 2 + 1
    assert tiny.flops == 4 * 8 * 10
    assert H200.bytes_moved == 4 * 32 * 8192 * 128 * 2  # Q, K, V read, O written, bf16


def test_ids_name_the_problem_and_the_variant():
    gqa = FaProblem(batch=1, heads=32, seq_q=4096, seq_k=4096, dim=128, kv_heads=8)
    assert gqa.problem_id == "fa-b1h32kv8-s4096-d128-bf16"
    assert FaConfig(128, 64, 3).config_id == "bm128-bn64-t128-auto-s3"
    assert FaConfig(128, 128, 2, threads=256, body="hopper").config_id == "bm128-bn128-t256-auto-s2-hopper"
    assert FaConfig(128, 176, 2, threads=384, body="hopper_ws").config_id == "bm128-bn176-t384-auto-s2-hopper_ws"


def test_the_ws_body_takes_a_partial_last_key_tile_and_refuses_what_it_cannot_schedule():
    ws = FaConfig(128, 176, 2, threads=384, body="hopper_ws")
    assert cuda_rejection(H200, ws) is None  # 8192 = 46 x 176 + 96: masked tail
    assert FLASH_ATTENTION.loop_trips(H200, ws) == 47
    assert suite_case(H200, ws).family.loop_trips(suite_case(H200, ws).problem, suite_case(H200, ws).config) == 47
    # Q + 2 stages of K and V at 176 rows: no O staging tile (O leaves through Q's)
    verdict = budget.check(suite_case(H200, ws), nvidia_limits.scopes("sm_90a"), "cuda")
    assert verdict.uses[0].needed == 128 * 128 * 2 + 4 * 176 * 128 * 2
    assert "threads must be 384" in cuda_rejection(H200, FaConfig(128, 128, 2, threads=256, body="hopper_ws")).reason
    assert "num_stages >= 2" in cuda_rejection(H200, FaConfig(128, 128, 1, threads=384, body="hopper_ws_ov")).reason
    causal = FaProblem(batch=2, heads=16, seq_q=8192, seq_k=8192, causal=True)
    assert cuda_rejection(causal, ws) is None  # the ws body masks the diagonal
    assert "hopper body has no causal mask" in cuda_rejection(causal, FaConfig(128, 128, 1, threads=256, body="hopper")).reason
    assert "target-specific" in ascend_rejection(H200, ws).reason
    # the shared body still refuses a partial key tile
    assert "not a multiple of block_N=176" in cuda_rejection(H200, FaConfig(128, 176, 2, threads=256)).reason


def test_fast_math_is_an_explicit_nvidia_choice_with_its_own_id_and_refused_on_ascend():
    ws = FaConfig(128, 192, 2, threads=384, body="hopper_ws")
    fm = FaConfig(128, 192, 2, threads=384, body="hopper_ws", fast_math=True)
    assert ws.config_id == "bm128-bn192-t384-auto-s2-hopper_ws"  # unchanged: ids are history keys
    assert fm.config_id == "bm128-bn192-t384-auto-s2-hopper_ws-fm"
    assert FaConfig(128, 128, 2, fast_math=True).config_id == "bm128-bn128-t128-auto-s2-fm"
    assert fm.to_dict()["fast_math"] is True and ws.to_dict()["fast_math"] is False  # the record's config shows it
    assert FLASH_ATTENTION.config_from_dict(fm.to_dict()) == fm
    old = {k: v for k, v in ws.to_dict().items() if k != "fast_math"}  # a record written before the field
    assert FLASH_ATTENTION.config_from_dict(old) == ws
    assert FLASH_ATTENTION.stage_point(fm).tile != FLASH_ATTENTION.stage_point(ws).tile
    assert cuda_rejection(H200, fm) is None
    assert cuda_rejection(H200, FaConfig(128, 128, 2, threads=256, fast_math=True)) is None
    refused = ascend_rejection(H200, FaConfig(128, 128, 2, fast_math=True))
    assert refused.kind == "divisibility" and "fast_math=True is an NVIDIA build choice" in refused.reason
    assert "use fast_math=False" in refused.reason
    with pytest.raises(ValueError, match="fast_math=True is an NVIDIA build choice"):
        fa_ascend(**asdict(H200), **asdict(FaConfig(128, 128, 2, fast_math=True)))
    case = suite_case(H200, fm)  # the compiler gets it as tilelang's pass config, on CUDA only
    assert case.family.kernel_traits(case.problem, case.config, "cuda")["pass_configs"] == {"tl.enable_fast_math": True}
    assert "tl.enable_fast_math" not in case.family.kernel_traits(case.problem, case.config, "ascend")["pass_configs"]


def test_bad_problems_say_what_to_change():
    with pytest.raises(ValueError, match="not a multiple of kv_heads"):
        FaProblem(batch=1, heads=6, seq_q=128, seq_k=128, kv_heads=4)
    with pytest.raises(ValueError, match="causal needs seq_q == seq_k"):
        FaProblem(batch=1, heads=1, seq_q=128, seq_k=256, causal=True)


def test_ascend_prunes_block_m_256_on_ub_and_block_m_64_on_the_vreg():
    ub = ascend_rejection(H200, FaConfig(256, 128, 2))
    assert ub.kind == "budget" and "shared.ub needs 297472 B, limit 253952 B" in ub.reason
    vreg = ascend_rejection(H200, FaConfig(64, 128, 2))
    assert vreg.kind == "divisibility" and "32 rows" in vreg.reason and "64-lane VReg" in vreg.reason
    assert ascend_rejection(H200, FaConfig(128, 128, 3)) is None


def test_nvidia_prunes_on_shared_memory_with_the_bytes_the_compiler_allocates():
    # 294912 B is what tilelang 0.1.15 allocates for 128x128, num_stages=4 on sm_90a
    over = cuda_rejection(H200, FaConfig(128, 128, 4))
    assert over.kind == "budget" and "shared.dyn needs 294912 B, limit 232448 B" in over.reason
    assert cuda_rejection(H200, FaConfig(128, 64, 4)) is None
    assert "target-specific" in ascend_rejection(H200, FaConfig(body="hopper")).reason


def test_the_suites_declaration_has_one_vendor_item_per_library_of_the_dialect():
    sweep = kernel_sweep("flash_attention", **FA, sizes=[asdict(H200)], configs=[fa_config()], module=__name__)
    assert {c.kernel for c in sweep.cases("nvidia", "full")} == {"flash_attention"}
    assert [c.case_id for c in sweep.cases("nvidia", "full")] == [f"{H200.problem_id}-{FaConfig().config_id}"]
    ids = [v.case_id for v in sweep.vendor_cases("nvidia", "full", "cuda")]
    assert ids == [f"{H200.problem_id}-sdpa_{b}" for b in ("flash", "cudnn", "efficient")]
    assert [v.library for v in sweep.vendor_cases("ascend", "full", "ascend")] == ["npu_fusion_attention"]
    assert [v.library for v in sweep.vendor_cases("mine", "full", "cuda")] == [v.library for v in sweep.vendor_cases("nvidia", "full", "cuda")]


def _tiled_attention(qkv, problem, block_n, rescale=True):
    """A tiled online-softmax forward in torch, P rounded to bf16 like the kernels do."""
    q, k, v = (x.float().view(problem.batch * problem.heads, -1, problem.dim) for x in qkv)
    m = torch.full(q.shape[:2], float("-inf"))
    l = torch.zeros(q.shape[:2])
    o = torch.zeros_like(q)
    for start in range(0, problem.seq_k, block_n):
        s = q @ k[:, start : start + block_n].transpose(1, 2) * problem.sm_scale
        if problem.causal:  # query i sees keys j <= i
            keys = torch.arange(start, min(start + block_n, problem.seq_k))
            s = s.masked_fill(keys[None, None, :] > torch.arange(problem.seq_q)[None, :, None], float("-inf"))
        m_new = torch.maximum(m, s.amax(-1))
        alpha = torch.exp(m - m_new) if rescale else torch.ones_like(m)
        p = torch.exp(s - m_new[..., None])
        l = l * alpha + p.sum(-1)
        o = o * alpha[..., None] + p.to(torch.bfloat16).float() @ v[:, start : start + block_n]
        m = m_new
    return (o / l[..., None]).reshape(-1, problem.dim).to(torch.bfloat16)


def judged(problem, qkv, out):
    """The suites' check of ``out``: their ``bound`` rule with the allowed errors it computes
    from the reference and the inputs, as the generic path judges a device item."""
    sizes = asdict(problem)
    ref = reference(*qkv, **sizes)
    return FA["check"].given(allowed_error(ref, *qkv, **sizes)).judge(out, ref)


def test_tolerance_passes_a_correct_tiled_kernel_and_fails_one_that_skips_the_rescale():
    problem = FaProblem(batch=1, heads=2, seq_q=256, seq_k=1024, dim=64)
    qkv = make_inputs(problem, seed=3, device="cpu")
    good = judged(problem, qkv, _tiled_attention(qkv, problem, 128))
    assert good.ok, good.detail
    bad = judged(problem, qkv, _tiled_attention(qkv, problem, 128, rescale=False))
    assert not bad.ok and bad.mismatched > 0
    unwritten = torch.full((problem.batch * problem.heads * problem.seq_q, problem.dim), float("nan"), dtype=torch.bfloat16)
    assert judged(problem, qkv, unwritten).mismatched == unwritten.numel()  # the NaN poison never passes


def test_a_correct_causal_kernel_passes_where_the_weighted_values_cancel():
    """Seed 28: in a first row of a causal problem the two or three weighted values cancel,
    |ref| is small, and rounding P to bf16 (what a correct kernel, torch's SDPA kernels
    included, does) errs by more than ATOL + RTOL*|ref| (the rule before, computed here): the
    P|V| term lets it pass; a kernel that skips the rescale still fails."""
    from tlbench.suites.flash_attention.reference import ATOL, RTOL

    problem = FaProblem(batch=1, heads=2, seq_q=1024, seq_k=1024, dim=128, causal=True)
    for seed in (28, 0, 1):
        qkv = make_inputs(problem, seed=seed, device="cpu")
        out = _tiled_attention(qkv, problem, 128)
        assert judged(problem, qkv, out).ok, (seed, judged(problem, qkv, out).detail)
        if seed == 28:
            ref = reference(*qkv, **asdict(problem))
            assert int(((out.float() - ref).abs() > ATOL + RTOL * ref.abs()).sum()) > 0
        assert not judged(problem, qkv, _tiled_attention(qkv, problem, 128, rescale=False)).ok


def test_the_stage_report_header_reads_the_family_problem_tile_and_kv_steps():
    assert FLASH_ATTENTION.problem_label(H200) == "attention B*H=32 (2x16) S=8192 D=128 bfloat16"
    assert FLASH_ATTENTION.loop_trips(H200, FaConfig(128, 64)) == 128
    assert FLASH_ATTENTION.loop_trips(FaProblem(1, 1, 1024, 1024, causal=True), FaConfig()) is None
    assert FLASH_ATTENTION.stage_point(FaConfig(128, 64, 3, threads=256)).tile == "128x64 t256"
    # the suites word their records the same way: a record reads alike whoever wrote it
    case = suite_case(H200, FaConfig(128, 64, 3, threads=256))
    assert case.family.problem_label(case.problem) == FLASH_ATTENTION.problem_label(H200)
    assert case.config.stage.tile == "128x64 t256" and case.config.stage.loop_id == "auto-s3"


def test_a_record_written_before_the_suites_moved_reads_as_the_suites_word_their_cases():
    """results/h200-flash-attention/fa-s8192.json.gz was written by the flash-attention family
    (records without ``described_as``): the harness's reader (the ``flash_attention`` entry
    point) gives each of its records the ids, header, tile and loop the suites give the same
    case now, so a stage report or a comparison mixing the two lines them up."""
    import gzip
    import json
    from pathlib import Path

    from tlbench.harness.core.described import described
    from tlbench.harness.core.record import records_of
    from tlbench.harness.core.record_reader import RecordReader

    path = Path(__file__).resolve().parents[1] / "results" / "h200-flash-attention" / "fa-s8192.json.gz"
    old = [r for r in records_of(json.loads(gzip.decompress(path.read_bytes()))) if r.get("config")]
    assert len(old) >= 20 and not any(described(r) for r in old)
    reader = RecordReader()
    for record in old:
        read = reader.read(record)
        assert read.family is FLASH_ATTENTION and isinstance(read.problem, FaProblem)
        case = suite_case(read.problem, read.config)
        assert case.case_id == record["case_id"] == f"{read.problem_id}-{read.config.config_id}"
        assert case.family.problem_label(case.problem) == FLASH_ATTENTION.problem_label(read.problem)
        assert case.config.stage.point() == read.stage
        assert case.family.loop_trips(case.problem, case.config) == FLASH_ATTENTION.loop_trips(read.problem, read.config)
