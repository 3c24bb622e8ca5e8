"""The quick scope's compile settings and its summary line of what it left for the full scope."""

from types import SimpleNamespace

from tile_family import TileConfig, TileProblem
from tlbench.harness.core.sweep import Sweep
from tlbench.harness.pytest_plugin.options import compile_settings
from tlbench.harness.pytest_plugin.scope_note import ScopeCounts


def test_the_quick_scope_takes_three_rounds_capped_by_cpu_time_and_the_nights_five_uncapped():
    assert compile_settings("quick", None, None) == (3, 3.0)
    assert compile_settings("smoke", None, None) == (5, None)
    assert compile_settings("full", None, None) == (5, None)
    assert compile_settings("quick", 5, 0.0) == (5, None)  # both options given: no cap, five rounds
    assert compile_settings("full", 2, 1.5) == (2, 1.5)


def _state(kinds=("compile", "device"), backends=("nvidia", "ascend")):
    return SimpleNamespace(options=SimpleNamespace(kinds=kinds), backends=lambda: list(backends))


STAGES = Sweep(name="stages", problems=[TileProblem(8192, 8192, 8192)],
               configs=[TileConfig(128, 128, 32, 128, "auto", s) for s in range(5)],
               quick_problems=[TileProblem(8192, 8192, 8192)], quick_configs=[TileConfig(128, 128, 32, 128, "auto", 3)], vendor=True)
TILES = Sweep(name="tiles", problems=[TileProblem(4096, 4096, 4096), TileProblem(8192, 8192, 8192)],
              configs=[TileConfig(128, n, 32, 128, "auto", 2) for n in (64, 128, 256)], quick_problems=[], vendor=True)


def test_the_summary_line_names_what_the_quick_scope_left_out():
    counts = ScopeCounts("quick")
    state = _state()
    counts.add(STAGES, state, 6)  # 2 backends x (1 compile + 1 device + 1 vendor)
    counts.add(TILES, state, 0)
    records = [{"compile_rounds_capped_s": 3.0}, {}, {}]
    left, compile_line = counts.lines(records, 3, 5, 3.0)
    # full: stages 2 x (5 + 5 + 1) = 22; tiles 2 x (6 + 6 + 2) = 28
    assert left == ("quick scope: 6 of the 50 items of --tlbench-scope full; left for full: 44 more items: "
                    "1 suite that runs nothing here (tiles); larger sweeps of stages (6 -> 22)")
    assert compile_line.startswith("quick scope's compile items: 3 cold rounds per compile item (5 in full), "
                                   "at most 3 CPU seconds of rounds per item (no cap in full; it stopped 1 here), lowering only")


def test_no_line_for_another_scope():
    counts = ScopeCounts("smoke")
    counts.add(STAGES, _state(), 6)
    assert counts.lines([], 5, 5, None) == []
