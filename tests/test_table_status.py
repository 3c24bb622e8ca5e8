"""The terminal table never shows a drifting or capped measurement as a clean ``ok``, and
labels modeled Ascend cycles by what they cover."""

from harness.results.table import _row_from_record, plan_summary


def _device(status):
    return {"kind": "device", "backend": "nvidia", "case_id": "c", "method": "cupti-kernel-timestamps",
            "summary": {"median": 1e-3, "n": 60, "status": status},
            "measurement": {"criterion": {"name": "median-ci"}}}


def test_device_status_column_shows_drift_and_caps():
    assert _row_from_record(_device("clean")).status == "ok (cupti-kernel-timestamps, n=60, median-ci)"
    assert _row_from_record(_device("DRIFT")).status.startswith("DRIFT (")
    assert _row_from_record(_device("CAPPED")).status.startswith("CAPPED (")


def test_ascend_cycles_are_labelled_by_scope():
    def plan(scope):
        return {"backend": "ascend", "pipeline": {"loop_ii_cycles_model": 10}, "buffers": [],
                "schedule_model": {"modeled_cycles_per_core": 1234, "modeled_cycles_scope": scope}}

    assert "1234 cyc/tile K-loop" in plan_summary(plan("one tile's K loop (non-persistent kernel: not a per-core total)"))
    assert "1234 cyc/core" in plan_summary(plan("per core (the persistent tile loop)"))
