"""The one adapter over pytest-benchmark's private surface, on whichever version is installed.

tlbench supports pytest-benchmark 5.2.x (the H200 image) and 5.3.x (fresh installs).  The
shape that changed between them is ``--benchmark-json``: 5.2.x parses it with
``argparse.FileType('wb')`` (an open binary file), 5.3.x with ``pathlib.Path``.  Each test
here runs against the installed version and says which shape it saw.
"""

import json
from pathlib import Path

import pytest
import pytest_benchmark

from tlbench.harness.pytest_plugin.bench_adapter import result_json_path, write_json

VERSION = tuple(int(x) for x in pytest_benchmark.__version__.split(".")[:2])


def test_benchmark_json_option_shape_matches_the_installed_version(pytester):
    target = pytester.path / "run.json"
    config = pytester.parseconfig("--benchmark-json", str(target))
    raw = config.getoption("benchmark_json")
    if VERSION < (5, 3):
        assert hasattr(raw, "write"), f"pytest-benchmark {pytest_benchmark.__version__}: expected an open file, got {raw!r}"
        raw.close()
    else:
        assert isinstance(raw, Path), f"pytest-benchmark {pytest_benchmark.__version__}: expected a path, got {raw!r}"
    assert result_json_path(config) == target


def test_write_json_writes_the_document_in_either_shape(pytester):
    target = pytester.path / "merged.json"
    config = pytester.parseconfig("--benchmark-json", str(target))
    assert write_json(config, {"benchmarks": [], "tlbench": {"schema_version": 1}}) == target
    assert json.loads(target.read_text()) == {"benchmarks": [], "tlbench": {"schema_version": 1}}


def test_no_json_option_means_nothing_written(pytester):
    config = pytester.parseconfig()
    assert result_json_path(config) is None
    assert write_json(config, {"benchmarks": []}) is None


STOPPED = """
from tlbench.harness.pytest_plugin.bench_adapter import stop_session_json

def pytest_sessionstart(session):
    stop_session_json(session.config)
"""


def test_stop_session_json_keeps_pytest_benchmark_from_writing(pytester):
    pytester.makeconftest(STOPPED)
    pytester.makepyfile(test_b="def test_b(benchmark):\n    benchmark(sum, [1, 2])\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:tlbench", "--benchmark-json=out.json")
    result.assert_outcomes(passed=1)
    out = pytester.path / "out.json"
    assert not out.exists() or out.read_text() == ""  # 5.2.x creates the file when parsing the option


def test_feed_samples_puts_exactly_the_samples_in_stats(pytester):
    pytester.makepyfile(
        test_f="""
from tlbench.harness.pytest_plugin.bench_adapter import benchmark_entry, feed_samples

def test_f(benchmark):
    feed_samples(benchmark, [0.003, 0.001, 0.002], {"k": "v"})
    entry = benchmark_entry(benchmark)
    assert entry["stats"]["rounds"] == 3 and entry["stats"]["min"] == 0.001 and entry["stats"]["max"] == 0.003
    assert entry["stats"]["data"] == [0.003, 0.001, 0.002]
    assert entry["extra_info"] == {"k": "v"}
"""
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:tlbench")
    result.assert_outcomes(passed=1)
