"""Plan and schedule verdicts (harness/results/compare/plan_verdicts.py) on real lowerings.

Each backend lowers one real case twice through tilelang: as it is, and with a real change of
what the compiler is asked to do (tests/test_only/compile_slowdown.py::TestOnlyLoweringChanges, the changes
the test plug-in tests/test_only/compile_changes.py hands over): on the Ascend path the body
built with ``num_stages=1`` under the ``auto-s3`` case id, on the CUDA path tilelang's own
``tl.disable_warp_specialized`` pass config.  The verdict must name what changed in words, the
Ascend one as a worse modeled II (MODEL WORSE, gating), the CUDA one as a plan change that
gates only on request.
"""

from __future__ import annotations

import pytest

from tlbench.harness.core.backend_api import BackendOptions
from tlbench.harness.results.compare.comparison import ItemKey
from tlbench.harness.results.compare.judgement import Thresholds
from tlbench.harness.results.compare.plan_verdicts import judge_plan

CASE_S3 = "gemm-1024x1024x1024-f16-bm128-bn128-bk32-t128-auto-s3"
CASE_WS = "gemm-1024x1024x1024-f16-bm128-bn256-bk64-t256-auto-s3"


def _plans(backend_class, case_id, **change):
    from tlbench.suites.gemm.test_stages import SWEEP

    name = backend_class.name
    (case,) = [c for c in SWEEP.cases(name, "smoke") if c.case_id == case_id]
    plain = backend_class(BackendOptions({"cold_build": False}))
    changed = backend_class(BackendOptions({"cold_build": False, **{k: f"{case_id}:{v}" for k, v in change.items()}}))
    return plain.lower(case).plan.to_dict(), changed.lower(case).plan.to_dict()


def test_fewer_stages_on_the_ascend_path_is_a_worse_modeled_ii():
    pytest.importorskip("tilelang")
    from test_only.ascend_test_only import TestOnlyAscendBackend

    base, new = _plans(TestOnlyAscendBackend, CASE_S3, test_only_num_stages=1)
    verdict = judge_plan(ItemKey("stages", "ascend", "compile", CASE_S3), base, new, Thresholds())
    assert verdict.verdict == "MODEL WORSE" and verdict.gates
    ii = [w for w in verdict.model if w.startswith("loop k II: ")]
    assert ii and "cycles (+" in ii[0] and ii[0].endswith("model)")
    assert any(w.startswith("buffer A_tile: shared.l1 float16 [128, 32] x3 -> ") and w.endswith("x1") for w in verdict.changes)
    assert "loop k num_stages: 3 -> 1" in verdict.changes
    assert not judge_plan(verdict.key, base, new, Thresholds(gate_model=False)).gates
    assert judge_plan(verdict.key, base, base, Thresholds()).verdict == "SAME PLAN"


def test_warp_specialization_off_on_the_cuda_path_is_a_plan_change_gated_on_request():
    pytest.importorskip("tilelang")
    from test_only.nvidia_test_only import TestOnlyNvidiaBackend

    base, new = _plans(TestOnlyNvidiaBackend, CASE_WS, test_only_pass_config="tl.disable_warp_specialized=true")
    key = ItemKey("stages", "nvidia", "compile", CASE_WS)
    verdict = judge_plan(key, base, new, Thresholds())
    assert verdict.verdict == "PLAN CHANGED" and not verdict.gates
    assert verdict.changes[0] == "pipeline kind: warp-specialized -> software-pipeline"
    assert "feature tma: True -> False" in verdict.changes
    assert any(w.startswith("threads: ") for w in verdict.changes)
    assert judge_plan(key, base, new, Thresholds(gate_plan=True)).gates
