"""The inert-key probe is lowered once per compiler, kernel and configs, then read from disk.

Unit tests drive ``cached_inert_keys`` with a counting source function; the pytester tests run
a suite that asks for the probe twice in fresh pytest sessions with FakeBackend
(tests/fake_backend.py), which logs each lowering to ``$TLBENCH_FAKE_LOWER_LOG``.
"""

import warnings

import pytest

import fake_backend
from tile_family import TileConfig
from tlbench.harness.pytest_plugin.inert_cache import CACHE_ENV, InertKeyCache, cached_inert_keys, default_directory, probe_key

CONFIGS = [TileConfig(128, 128, 32, t, "auto", s) for t in (128, 256) for s in (2, 3)]


class _Backend:
    name = "counting"

    def __init__(self, compiler="compiler 1"):
        self.compiler = compiler

    def lowering_key(self):
        return self.compiler


def _source_counter():
    calls = []

    def source(config):  # threads never changes the code: an inert key
        calls.append(config)
        return f"stages {config.num_stages}"

    return source, calls


def _key(backend, bodies=("sha256:body",)):
    return probe_key(backend, "gemm", "gemm-1024x1024x1024-f16", CONFIGS, list(bodies))


def test_a_second_probe_reads_the_first_ones_answer_and_lowers_nothing(tmp_path):
    cache = InertKeyCache(tmp_path)
    source, calls = _source_counter()
    assert cached_inert_keys(cache, _key(_Backend()), CONFIGS, source) == ["threads"]
    assert calls  # the first probe lowered
    calls.clear()
    assert cached_inert_keys(InertKeyCache(tmp_path), _key(_Backend()), CONFIGS, source) == ["threads"]
    assert calls == []


@pytest.mark.parametrize(
    "changed",
    [
        lambda: _key(_Backend("compiler 2")),  # another compiler version or target
        lambda: _key(_Backend(), bodies=("sha256:edited",)),  # an edited kernel body
        lambda: probe_key(_Backend(), "gemm", "gemm-1024x1024x1024-f16", CONFIGS[:2], []),  # other configs
    ],
)
def test_a_changed_key_misses_and_lowers_again(tmp_path, changed):
    cache = InertKeyCache(tmp_path)
    source, calls = _source_counter()
    cached_inert_keys(cache, _key(_Backend()), CONFIGS, source)
    calls.clear()
    cached_inert_keys(cache, changed(), CONFIGS, source)
    assert calls


def test_a_corrupt_cache_file_is_ignored_with_a_warning_and_rewritten(tmp_path):
    cache = InertKeyCache(tmp_path)
    source, calls = _source_counter()
    key = _key(_Backend())
    cached_inert_keys(cache, key, CONFIGS, source)
    (path,) = (tmp_path / "inert-keys").glob("*.json")
    path.write_text("{not json")
    calls.clear()
    with pytest.warns(UserWarning, match="ignoring the unreadable inert-key cache file"):
        assert cached_inert_keys(cache, key, CONFIGS, source) == ["threads"]
    assert calls  # probed again
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cache.get(key) == ["threads"]  # and rewritten whole


def test_a_backend_that_cannot_name_its_compiler_is_never_cached(tmp_path):
    class Anonymous:
        name = "anonymous"

    assert probe_key(Anonymous(), "gemm", "p", CONFIGS, []) is None
    source, calls = _source_counter()
    cached_inert_keys(InertKeyCache(tmp_path), None, CONFIGS, source)
    cached_inert_keys(InertKeyCache(tmp_path), None, CONFIGS, source)
    assert len(calls) == 2 * len(set(calls))
    assert not (tmp_path / "inert-keys").exists()


def test_default_directory_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "mine"))
    assert default_directory() == tmp_path / "mine"
    monkeypatch.delenv(CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_directory() == tmp_path / "xdg" / "tlbench"


SUITE = """
from tlbench.harness.core.sweep import Sweep
from tile_family import TileConfig, TileProblem

SWEEP = Sweep(
    name="probed",
    problems=[TileProblem(1024, 1024, 1024)],
    configs=[TileConfig(128, 128, 32, 128, "auto", s) for s in (2, 3)],
    kinds=("compile",),
    probe_inert_keys=True,
)

def test_probed(tlbench):
    tlbench.run()
"""


def _collect(pytester, monkeypatch, log, compiler="fake-compiler 1"):
    monkeypatch.setenv("TLBENCH_FAKE_LOWER_LOG", str(log))
    monkeypatch.setenv("TLBENCH_FAKE_COMPILER", compiler)
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--tlbench-backend=fake", "--collect-only", "-q",
        f"--tlbench-cache-dir={pytester.path / 'cache'}",
    )
    assert result.ret == 0, result.stdout.str()
    return log.read_text().splitlines() if log.exists() else []


def test_a_second_pytest_session_does_no_probe_lowering(pytester, monkeypatch):
    pytester.makeconftest(fake_backend.CONFTEST)
    pytester.makepyfile(test_probed=SUITE)
    first = _collect(pytester, monkeypatch, pytester.path / "first.log")
    assert len(first) == 2  # the two configs of the probed pair
    assert _collect(pytester, monkeypatch, pytester.path / "second.log") == []
    assert len(_collect(pytester, monkeypatch, pytester.path / "third.log", compiler="fake-compiler 2")) == 2
