"""A failed item's error text is shown by its informative line, the record keeps it whole.

What is pinned: a multi-line device fault (torch's illegal-address text, whose last line is
advice about TORCH_USE_CUDA_DSA) shows as its exception type and first line; a traceback
shows the exception it ends in; a one-line reason shows as is; the table row and the
summary name the stage and the worker restart count.
"""

from tlbench.harness.results.files.error_text import failure_line, headline
from tlbench.harness.results.report.summary import summary_lines
from tlbench.harness.results.files.run_facts import facts_of

CUDA_FAULT = (
    "AcceleratorError: CUDA error: an illegal memory access was encountered\n"
    "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"
)

TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "x.py", line 3, in <module>\n'
    "    f()\n"
    "ValueError: block_K must divide K\n"
)


def test_headline_of_a_multi_line_fault_is_its_type_and_first_line():
    assert headline(CUDA_FAULT) == "AcceleratorError: CUDA error: an illegal memory access was encountered"
    assert headline("WorkerFault: [run] " + CUDA_FAULT).endswith("an illegal memory access was encountered")


def test_headline_of_a_traceback_is_the_exception_it_ends_in():
    assert headline(TRACEBACK) == "ValueError: block_K must divide K"
    assert headline("InternalError: Traceback (most recent call last):\n  0: foo\nInternalError: Check failed: x") == (
        "InternalError: Check failed: x"
    )


def test_headline_of_a_plain_reason_is_its_first_line_and_long_lines_are_cut():
    assert headline("TIMEOUT: no answer within 2 s in stage run; the worker was killed") == (
        "TIMEOUT: no answer within 2 s in stage run; the worker was killed"
    )
    assert headline("wrong result: 3 of 10 differ\nmax abs err 5") == "wrong result: 3 of 10 differ"
    assert headline("") == ""
    cut = headline("E" * 300, limit=40)
    assert len(cut) == 40 and cut.endswith("...")


def _failed(worker):
    return {"kind": "device", "backend": "fake", "case_id": "gemm-c1", "problem_id": "gemm-1024", "status": "failed",
            "stage": "run", "error": CUDA_FAULT, "worker": worker}


def test_table_row_and_summary_show_stage_headline_and_restarts():
    record = _failed({"pid": 1, "restarts": 2, "restarted": True})
    want = "[run]: AcceleratorError: CUDA error: an illegal memory access was encountered (worker restarted; 2 restarts so far)"
    assert failure_line(record) == want
    words = facts_of([record], lambda name: None)[0].words
    assert words == f"FAILED {want}" and "TORCH_USE_CUDA_DSA" not in words
    lines = summary_lines([record])
    assert f"  FAILED device gemm-c1: {want}" in lines
    assert not any("TORCH_USE_CUDA_DSA" in line for line in lines)
    assert record["error"] == CUDA_FAULT  # the record keeps the whole text
