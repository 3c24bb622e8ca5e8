"""tlbench compare on real H200 runs (tests/fixtures/compare/h200-aa/README.md).

An A/A pair of unchanged code must read no SLOWER and no FASTER, and a kernel made ~6 %
slower under the same case id must be the one SLOWER item.  Before the vendor-move rule, the
A/A pair called the 128x256 ``manual`` item FASTER: its own time moved -0.3 % while its
ratio to a re-measured vendor item moved -6.3 %.
"""

from pathlib import Path

from tlbench.harness.cli import main
from tlbench.harness.results.compare import verdicts

H200 = Path(__file__).parent / "fixtures" / "compare" / "h200-aa"
SLOWED = "device-nvidia-gemm-8192x8192x8192-f16-bm128-bn256-bk64-t256-auto-s3"


def _verdict_rows(md: Path) -> dict[str, str]:
    rows = {}
    for line in md.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) > 2 and cells[0] in ("SAME", "SLOWER", "FASTER", "NOISY", "FAILED", "NEW", "GONE"):
            rows[cells[1]] = cells[0]
    return rows


def test_aa_pair_on_the_h200_reads_no_change(tmp_path):
    md = tmp_path / "aa.md"
    assert main(["compare", str(H200 / "aa2.json"), str(H200 / "aa3.json"), "--markdown", str(md)]) == 0
    rows = _verdict_rows(md)
    assert len(rows) >= 40
    assert not [k for k, v in rows.items() if v in ("SLOWER", "FASTER")]


def test_sized_slowdown_on_the_h200_is_the_one_slower_item(tmp_path):
    md = tmp_path / "slow.md"
    assert main(["compare", str(H200 / "aa3.json"), str(H200 / "slow.json"), "--markdown", str(md)]) == 1
    rows = _verdict_rows(md)
    assert [k for k, v in rows.items() if v in ("SLOWER", "FASTER")] == [SLOWED]
    assert rows[SLOWED] == "SLOWER"


def _judgement(verdict: str, change: float) -> verdicts.RuleJudgement:
    return verdicts.RuleJudgement(verdict, change, 1.0, 1.0 + change, 0.01, 0.02, verdicts.RULE_ROUNDS, "")


def test_a_ratio_move_the_kernel_did_not_make_is_not_a_verdict():
    judged = verdicts.kernel_moved_too(_judgement("FASTER", -0.063), _judgement("SAME", -0.003))
    assert judged.verdict == "SAME" and "vendor item moved" in judged.reason
    assert verdicts.kernel_moved_too(_judgement("SLOWER", 0.06), _judgement("NOISY", 0.02)).verdict == "NOISY"
    assert verdicts.kernel_moved_too(_judgement("SLOWER", 0.051), _judgement("SLOWER", 0.056)).verdict == "SLOWER"


H200_SECOND = Path(__file__).parent / "fixtures" / "compare" / "h200-aa2"


def test_one_slow_round_does_not_make_an_aa_pair_unresolvable(tmp_path):
    """Runs 3 and 4 of the second H200 A/A set: one round of the 128x128x32 serial item read
    5.33 ms among 4.73 ms rounds.  With a mean and variance over rounds that item (and the
    bimodal 128x256 manual item) read NOISY; judged by the median of rounds with a robust
    spread, every item reads SAME."""
    md = tmp_path / "aa.md"
    assert main(["compare", str(H200_SECOND / "aa3.json"), str(H200_SECOND / "aa4.json"), "--markdown", str(md)]) == 0
    rows = _verdict_rows(md)
    assert len(rows) >= 39  # 38 kernels + cuBLAS (+ its per-GPU twin where a run has one)
    assert set(rows.values()) == {"SAME"}


def test_a_noisy_ratio_with_a_resolved_steady_kernel_reads_same():
    noisy_ratio = verdicts.RuleJudgement("NOISY", 0.017, 1.0, 1.017, 0.5, 0.057, verdicts.RULE_ROUNDS, "")
    steady = verdicts.RuleJudgement("SAME", 0.002, 1.0, 1.002, 0.7, 0.01, verdicts.RULE_ROUNDS, "median of rounds +0.2%")
    judged = verdicts.kernel_moved_too(noisy_ratio, steady)
    assert judged.verdict == "SAME" and "inside the ±5.7%" in judged.reason and judged.change == 0.002
    # a ratio that moved beyond its own resolution is not overruled, and an unresolved kernel stays NOISY
    moved = verdicts.RuleJudgement("NOISY", 0.08, 1.0, 1.08, 0.01, 0.06, verdicts.RULE_ROUNDS, "")
    assert verdicts.kernel_moved_too(moved, steady).verdict == "NOISY"
    unresolved = verdicts.RuleJudgement("NOISY", 0.002, 1.0, 1.002, 0.7, 0.08, verdicts.RULE_ROUNDS, "")
    assert verdicts.kernel_moved_too(noisy_ratio, unresolved).verdict == "NOISY"
