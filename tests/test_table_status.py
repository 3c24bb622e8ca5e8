"""The terminal table never shows a drifting or capped measurement as a clean ``ok``, and
Ascend's plan cell labels modeled cycles by what they cover."""

from tlbench.backends.ascend.traits import TRAITS as ASCEND
from tlbench.backends.nvidia.traits import NvidiaTraits
from tlbench.harness.results.files.run_facts import facts_of


def _device(status):
    return {"kind": "device", "backend": "nvidia", "case_id": "c", "method": "cupti-kernel-timestamps",
            "summary": {"median": 1e-3, "n": 60, "status": status},
            "measurement": {"criterion": {"name": "median-ci"}}}


def test_device_status_column_shows_drift_and_caps():
    traits = lambda name: NvidiaTraits()  # noqa: E731
    words = lambda status: facts_of([_device(status)], traits)[0].words  # noqa: E731
    assert words("clean") == "ok (cupti-kernel-timestamps, n=60, median-ci)"
    assert words("DRIFT").startswith("DRIFT (")
    assert words("CAPPED").startswith("CAPPED (")


def test_ascend_cycles_are_labelled_by_scope():
    def plan(scope):
        return {"backend": "ascend", "pipeline": {"loop_ii_cycles_model": 10}, "buffers": [],
                "schedule_model": {"modeled_cycles_per_core": 1234, "modeled_cycles_scope": scope}}

    assert "1234 cyc/tile K-loop" in ASCEND.plan_summary(plan("one tile's K loop (non-persistent kernel: not a per-core total)"))
    assert "1234 cyc/core" in ASCEND.plan_summary(plan("per core (the persistent tile loop)"))
