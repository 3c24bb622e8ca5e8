"""The flash-attention family without lowering: FLOPs, ids, refusals with reasons, the suite
declaration, and a tolerance that tells a correct tiled kernel from a wrong one."""

import pytest

torch = pytest.importorskip("torch")

from tlbench.backends.kernels.flash_attention import family as fa_family  # noqa: E402
from tlbench.backends.kernels.flash_attention.reference import check_fa_output, make_fa_inputs  # noqa: E402
from tlbench.backends.kernels.flash_attention.problem import FaConfig, FaProblem  # noqa: E402
from tlbench.backends.ascend import limits as ascend_limits  # noqa: E402
from tlbench.backends.nvidia import limits as nvidia_limits  # noqa: E402

H200 = FaProblem(batch=2, heads=16, seq_q=8192, seq_k=8192, dim=128)
# what a backend hands the family: its dialect and its on-chip scopes (the family imports no backend)
CUDA = ("cuda", nvidia_limits.scopes("sm_90a"))
ASCEND = ("ascend", ascend_limits.scopes())


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
    from tlbench.backends.kernels.flash_attention.family import FLASH_ATTENTION

    ws = FaConfig(128, 176, 2, threads=384, body="hopper_ws")
    assert fa_family.rejection(H200, ws, *CUDA) is None  # 8192 = 46 x 176 + 96: masked tail
    assert FLASH_ATTENTION.loop_trips(H200, ws) == 47
    # Q + 2 stages of K and V at 176 rows: no O staging tile (O leaves through Q's)
    assert fa_family.budget(H200, ws, *CUDA).uses[0].needed == 128 * 128 * 2 + 4 * 176 * 128 * 2
    assert "threads must be 384" in fa_family.rejection(H200, FaConfig(128, 128, 2, threads=256, body="hopper_ws"), *CUDA).reason
    assert "num_stages >= 2" in fa_family.rejection(H200, FaConfig(128, 128, 1, threads=384, body="hopper_ws_ov"), *CUDA).reason
    causal = FaProblem(batch=2, heads=16, seq_q=8192, seq_k=8192, causal=True)
    assert fa_family.rejection(causal, ws, *CUDA) is None  # the ws body masks the diagonal
    assert "hopper body has no causal mask" in fa_family.rejection(causal, FaConfig(128, 128, 1, threads=256, body="hopper"), *CUDA).reason
    assert "target-specific" in fa_family.rejection(H200, ws, *ASCEND).reason
    # the shared body still refuses a partial key tile
    assert "not a multiple of block_N=176" in fa_family.rejection(H200, FaConfig(128, 176, 2, threads=256), *CUDA).reason


def test_fast_math_is_an_explicit_nvidia_choice_with_its_own_id_and_refused_on_ascend():
    from tlbench.backends.kernels.flash_attention.family import FLASH_ATTENTION

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
    assert fa_family.rejection(H200, fm, *CUDA) is None
    assert fa_family.rejection(H200, FaConfig(128, 128, 2, threads=256, fast_math=True), *CUDA) is None
    refused = fa_family.rejection(H200, FaConfig(128, 128, 2, fast_math=True), *ASCEND)
    assert refused.kind == "divisibility" and "fast_math=True is an NVIDIA build choice" in refused.reason
    assert "use fast_math=False" in refused.reason
    with pytest.raises(ValueError, match="fast_math=True is an NVIDIA build choice"):
        FLASH_ATTENTION.build(H200, FaConfig(128, 128, 2, fast_math=True), "ascend")


def test_bad_problems_say_what_to_change():
    with pytest.raises(ValueError, match="not a multiple of kv_heads"):
        FaProblem(batch=1, heads=6, seq_q=128, seq_k=128, kv_heads=4)
    with pytest.raises(ValueError, match="causal needs seq_q == seq_k"):
        FaProblem(batch=1, heads=1, seq_q=128, seq_k=256, causal=True)


def test_ascend_prunes_block_m_256_on_ub_and_block_m_64_on_the_vreg():
    ub = fa_family.rejection(H200, FaConfig(256, 128, 2), *ASCEND)
    assert ub.kind == "budget" and "shared.ub needs 297472 B, limit 253952 B" in ub.reason
    vreg = fa_family.rejection(H200, FaConfig(64, 128, 2), *ASCEND)
    assert vreg.kind == "divisibility" and "32 rows" in vreg.reason and "64-lane VReg" in vreg.reason
    assert fa_family.rejection(H200, FaConfig(128, 128, 3), *ASCEND) is None


def test_nvidia_prunes_on_shared_memory_with_the_bytes_the_compiler_allocates():
    # 294912 B is what tilelang 0.1.15 allocates for 128x128, num_stages=4 on sm_90a
    over = fa_family.rejection(H200, FaConfig(128, 128, 4), *CUDA)
    assert over.kind == "budget" and "shared.dyn needs 294912 B, limit 232448 B" in over.reason
    assert fa_family.rejection(H200, FaConfig(128, 64, 4), *CUDA) is None
    assert "target-specific" in fa_family.rejection(H200, FaConfig(body="hopper"), *ASCEND).reason


def test_the_suites_declaration_has_one_vendor_item_per_library_of_the_dialect():
    from dataclasses import asdict

    from kernel_fa_sweep import FA, config  # suites/kernel_fa_sweep.py (tests/conftest.py puts suites/ on sys.path)

    from tlbench import kernel_sweep

    sweep = kernel_sweep("flash_attention", **FA, sizes=[asdict(H200)], configs=[config()], module=__name__)
    assert {c.kernel for c in sweep.cases("nvidia", "full")} == {"flash_attention"}
    assert [c.case_id for c in sweep.cases("nvidia", "full")] == [f"{H200.problem_id}-{FaConfig().config_id}"]
    ids = [v.case_id for v in sweep.vendor_cases("nvidia", "full", "cuda")]
    assert ids == [f"{H200.problem_id}-sdpa_{b}" for b in ("flash", "cudnn", "efficient")]
    assert [v.library for v in sweep.vendor_cases("ascend", "full", "ascend")] == ["npu_fusion_attention"]
    assert [v.library for v in sweep.vendor_cases("mine", "full", "cuda")] == [v.library for v in sweep.vendor_cases("nvidia", "full", "cuda")]


def _tiled_attention(inputs, problem, block_n, rescale=True):
    """A tiled online-softmax forward in torch, P rounded to bf16 like the kernels do."""
    q = inputs["Q"].float().view(problem.batch * problem.heads, problem.seq_q, problem.dim)
    k = inputs["K"].float().view(problem.batch * problem.heads, problem.seq_k, problem.dim)
    v = inputs["V"].float().view(problem.batch * problem.heads, problem.seq_k, problem.dim)
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


def test_tolerance_passes_a_correct_tiled_kernel_and_fails_one_that_skips_the_rescale():
    problem = FaProblem(batch=1, heads=2, seq_q=256, seq_k=1024, dim=64)
    inputs = make_fa_inputs(problem, seed=3, device="cpu")
    inputs["O"].copy_(_tiled_attention(inputs, problem, 128))
    good = check_fa_output(inputs, problem)
    assert good.ok, good.detail
    inputs["O"].copy_(_tiled_attention(inputs, problem, 128, rescale=False))
    bad = check_fa_output(inputs, problem)
    assert not bad.ok and bad.mismatched > 0
    inputs["O"].fill_(float("nan"))
    assert "not finite" in check_fa_output(inputs, problem).detail


def test_a_correct_causal_kernel_passes_where_the_weighted_values_cancel():
    """Seed 28: in a first row of a causal problem the two or three weighted values cancel,
    |ref| is small, and rounding P to bf16 (what a correct kernel, torch's SDPA kernels
    included, does) errs by more than ATOL + RTOL*|ref| (the rule before, computed here): the
    P|V| term lets it pass; a kernel that skips the rescale still fails."""
    from tlbench.backends.kernels.flash_attention.reference import ATOL, RTOL, reference

    problem = FaProblem(batch=1, heads=2, seq_q=1024, seq_k=1024, dim=128, causal=True)
    for seed in (28, 0, 1):
        inputs = make_fa_inputs(problem, seed=seed, device="cpu")
        inputs["O"].copy_(_tiled_attention(inputs, problem, 128))
        assert check_fa_output(inputs, problem).ok, (seed, check_fa_output(inputs, problem).detail)
        if seed == 28:
            ref = reference(inputs, problem)
            assert int(((inputs["O"].float() - ref).abs() > ATOL + RTOL * ref.abs()).sum()) > 0
        inputs["O"].copy_(_tiled_attention(inputs, problem, 128, rescale=False))
        assert not check_fa_output(inputs, problem).ok


def test_the_stage_report_header_reads_the_family_problem_tile_and_kv_steps():
    from tlbench.backends.kernels.flash_attention.family import FLASH_ATTENTION

    assert FLASH_ATTENTION.problem_label(H200) == "attention B*H=32 (2x16) S=8192 D=128 bfloat16"
    assert FLASH_ATTENTION.loop_trips(H200, FaConfig(128, 64)) == 128
    assert FLASH_ATTENTION.loop_trips(FaProblem(1, 1, 1024, 1024, causal=True), FaConfig()) is None
    assert FLASH_ATTENTION.stage_point(FaConfig(128, 64, 3, threads=256)).tile == "128x64 t256"
