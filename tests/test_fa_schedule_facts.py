"""The FA schedule-facts reader on a hand-written CUDA excerpt in tilelang's generated style: waits
counted by depth, named barriers, TMA stores, wgmma issue sites, accumulators of 64+ floats.
(The tool itself lowers the real bodies: ``python3 -m tlbench.backends.tools.fa_schedule_facts``.)"""


from tlbench.backends.tools.fa_schedule_facts import source_facts  # noqa: E402

EXCERPT = """
  float O_acc[64];
  float S[96];
  float m[2];
  tl::__named_barrier_arrive(8, 256);
  tl::wgmma_ss<tl::DataType::kBFloat16, 64, 192, 16>(desc_a, desc_b, S, 1);
  tl::wait_wgmma<1>();
  tl::wgmma_rs<tl::DataType::kBFloat16, 64, 128, 16>(P, desc_v, O_acc, 1);
  tl::warpgroup_wait<0>();
  tl::tma_store(O_desc, O_s, 0, 0);
  tl::tma_load(K_desc, bar, K_s, 0, 0);
"""


def test_source_facts_count_what_the_schedule_does():
    facts = source_facts(EXCERPT)
    assert facts == {"wgmma_waits_by_depth": {"0": 1, "1": 1}, "named_barrier_calls": 1, "tma_load_calls": 1,
                     "tma_store_calls": 1, "wgmma_issue_sites": 2, "float_accumulators": {"O_acc": 64, "S": 96}}
