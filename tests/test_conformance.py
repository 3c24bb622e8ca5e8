"""The conformance set (suites/conformance: tilelang's upstream examples as users' suites) on a
machine with no tilelang checkout: nothing of upstream's ships, the suites skip saying how to get
one, the loader takes a checkout's own files, and results/conformance/table.py builds its table.

- The tree: no example file of tilelang's is in suites/conformance (only the loader, the
  suites and a port of our own); every ``example(path)`` a suite calls names a path under
  tilelang's ``examples/``.
- Without ``TLBENCH_TILELANG_EXAMPLES``: a real pytest process over suites/conformance skips
  every suite with the one line that says how to get a checkout, and ``tlbench check`` says the
  same and exits 0 (the run would accept the folder: it skips it).
- The loader: a checkout or its examples folder (a fake checkout written by the test, named as
  such) gives its own file; a folder that is no checkout is an error naming the variable; a
  checkout without the file, or whose file does not import here, skips naming the file.
- The committed dynamic-shape GEMM's Ascend schedule (a symbolic K loop) draws its figure.
- The table: table.py's own logic, on run files written here by hand (a fake run, named as
  such) next to a suite folder of two tiny files.
With a checkout, tests/test_conformance_upstream.py runs the suites' preflight and compile items.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONFORMANCE = ROOT / "suites" / "conformance"
SUITES = sorted(CONFORMANCE.glob("test_*.py"))
EXAMPLE_CALL = re.compile(r"""\bexample\(["']([\w./-]+\.py)["']\)""")
ENV = "TLBENCH_TILELANG_EXAMPLES"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # a dataclass looks its module up by name
    spec.loader.exec_module(module)
    return module


def _table_module():
    return _load("conformance_table", ROOT / "results" / "conformance" / "table.py")


def _loader():
    return _load("conformance_examples_under_test", CONFORMANCE / "conformance_examples.py")


def _without_checkout() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != ENV}


def test_the_set_holds_at_least_twelve_examples():
    assert len(SUITES) >= 12, [p.name for p in SUITES]


def test_the_readme_lists_every_example_with_its_lines_written():
    table = _table_module()
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("**The conformance set**"):]
    section = section[: section.index("\n\n")]
    listed = {name: int(lines) for name, lines in re.findall(r"(\w+)\s+\((\d+) lines", section)}
    written = {name: lines for _stem, name, _sources, lines in table.suite_rows(CONFORMANCE)}
    assert listed == written


def test_no_upstream_file_ships_with_the_suites():
    shipped = sorted(p.name for p in CONFORMANCE.rglob("*.py") if not p.name.startswith("test_"))
    assert shipped == ["ascend_dynamic_gemm.py", "conformance_examples.py"], shipped
    paths = {path for suite in SUITES for path in EXAMPLE_CALL.findall(suite.read_text())}
    assert len(paths) >= len(SUITES)
    assert not list(CONFORMANCE.rglob("example_*.py"))


def test_without_a_checkout_every_suite_skips_saying_how_to_get_one():
    pytest.importorskip("tilelang")
    out = subprocess.run(
        [sys.executable, "-m", "pytest", str(CONFORMANCE), "--benchmark-only", "-p", "no:cacheprovider", "-q", "-rs",
         "--tlbench-backend=nvidia,ascend", "--tlbench-scope=full"],
        capture_output=True, text=True, cwd=ROOT, timeout=600, env=_without_checkout(),
    )
    assert out.returncode == 5, out.stdout[-4000:] + out.stderr[-2000:]  # pytest's "no test ran": every module skipped
    skips = [line for line in out.stdout.splitlines() if line.startswith("SKIPPED")]
    assert len(skips) == 1 and skips[0].startswith(f"SKIPPED [{len(SUITES)}] "), skips
    assert f"set {ENV} to a tilelang checkout (git clone https://github.com/tile-ai/tilelang" in skips[0]
    assert f"{len(SUITES)} skipped" in out.stdout.splitlines()[-1]


def test_tlbench_check_without_a_checkout_reports_the_skips_and_passes():
    pytest.importorskip("tilelang")
    out = subprocess.run([sys.executable, "-m", "tlbench", "check", str(CONFORMANCE), "--backend", "nvidia,ascend"],
                         capture_output=True, text=True, cwd=ROOT, timeout=600, env=_without_checkout())
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert f"{len(SUITES)} suite file(s) skipped" in out.stdout and f"set {ENV} to a tilelang checkout" in out.stdout


def test_the_loader_skips_the_suite_without_a_checkout(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    with pytest.raises(pytest.skip.Exception, match=f"no tilelang examples: set {ENV}"):
        _loader().example("topk/example_topk.py")


def test_the_loader_takes_the_file_of_a_checkout_or_its_examples_folder(monkeypatch, tmp_path):
    checkout = tmp_path / "tilelang"  # a fake checkout: example files written here
    (checkout / "examples" / "thing").mkdir(parents=True)
    (checkout / "examples" / "thing" / "example_thing.py").write_text("ANSWER = 'the fake checkout'\n")
    (checkout / "examples" / "thing" / "example_needs.py").write_text("import a_package_nobody_has\n")
    loader = _loader()
    for named in (checkout, checkout / "examples"):
        monkeypatch.setenv(ENV, str(named))
        module = loader.example("thing/example_thing.py")
        assert module.ANSWER == "the fake checkout"
        assert module.__name__.startswith("tlbench_conformance_") and module.__name__ not in ("example_thing", "thing")
        monkeypatch.delitem(sys.modules, module.__name__)
        with pytest.raises(pytest.skip.Exception, match=r"has no examples/thing/example_other.py"):
            loader.example("thing/example_other.py")
        with pytest.raises(pytest.skip.Exception, match=r"example_needs.py does not import here .*a_package_nobody_has"):
            loader.example("thing/example_needs.py")
    monkeypatch.setenv(ENV, str(tmp_path / "empty"))
    with pytest.raises(FileNotFoundError, match=rf"{ENV}=.*empty: no tilelang checkout there"):
        loader.example("thing/example_thing.py")


def test_the_ascend_schedule_figure_of_a_symbolic_k_loop_is_drawn(tmp_path):
    """The committed dynamic-shape GEMM's Ascend records hold a K loop whose trip count is
    symbolic text (``(k + 63) // 64``: no size names ``k``); the schedule figure - the
    dashboard's schedule page takes the newest run with schedule models - draws its first
    steps instead of failing on the text."""
    pytest.importorskip("matplotlib")
    import gzip

    from tlbench.backends.ascend.schedule_figure import write_schedule_png

    run = json.loads(gzip.open(ROOT / "results" / "conformance" / "cpu" / "dynamic_gemm.json.gz", "rt").read())
    records = [b["extra_info"]["tlbench"] for b in run["benchmarks"] if b["extra_info"]["tlbench"]["backend"] == "ascend"]
    trips = [r["plan"]["schedule_model"]["loops"][0]["trip_count"] for r in records]
    assert len(records) == 2 and all(isinstance(t, str) and "k" in t for t in trips), trips
    path = write_schedule_png(records, tmp_path / "schedule.png", title="dynamic_gemm")
    assert path.is_file() and path.stat().st_size > 1000


# ---- table.py on a fake run -------------------------------------------------------------------

FAKE_SUITE = '''"""A suite."""

from tlbench import kernel_sweep
from conformance_examples import example
from my_port import thing_ascend

thing = example("thing/example_thing.py")
SWEEP = kernel_sweep("thing", {"cuda": thing.thing, "ascend": thing_ascend}, sizes={"M": 1}, inputs=None)
'''


def _record(kind: str, backend: str, case: str, median: float, config: dict | None) -> dict:
    nodeid = f"suites/conformance/test_thing.py::test_thing[{kind}-{backend}-{case}]"
    problem = {"M": int(case.split("-")[1][1:])}  # thing-M<m>-...
    return {"name": nodeid.split("::")[1], "fullname": nodeid, "stats": {},
            "extra_info": {"tlbench": {"kind": kind, "backend": backend, "case_id": case, "config": config,
                                       "problem": problem, "nodeid": nodeid, "summary": {"median": median}}}}


def _entry(kind: str, backend: str, case: str, **words: str) -> dict:
    return {"kind": kind, "backend": backend, "case_id": case,
            "nodeid": f"suites/conformance/test_thing.py::test_thing[{kind}-{backend}-{case}]", **words}


@pytest.fixture
def fake_suites(tmp_path: Path) -> Path:
    folder = tmp_path / "suites"
    folder.mkdir()
    (folder / "test_thing.py").write_text(FAKE_SUITE)
    (folder / "conformance_examples.py").write_text("def example(path):\n    pass\n")  # the loader: never counted
    (folder / "my_port.py").write_text("def thing_ascend():\n\n    pass\n")
    return folder


def test_table_rows_from_fake_runs(tmp_path: Path, fake_suites: Path):
    table = _table_module()
    cpu = {"benchmarks": [_record("compile", "nvidia", "thing-M1-s1", 2.0, {"s": 1}),
                          _record("compile", "nvidia", "thing-M1-s2", 2.5, {"s": 2})],
           "tlbench": {"failed": [_entry("compile", "ascend", "thing-M1-s1", error="TypeError: boom | it broke")],
                       "skipped": [_entry("device", "nvidia", "thing-M1-s1", reason="nvidia device timing unavailable: no CUDA GPU")]}}
    gpu = {"benchmarks": [_record("device", "nvidia", "thing-M1-s1", 0.004, {"s": 1}),
                          _record("device", "nvidia", "thing-M1-s2", 0.002, {"s": 2}),
                          _record("device", "nvidia", "thing-M1-vendor", 0.003, None),
                          # a smaller problem: faster items, and a vendor item of its own
                          _record("device", "nvidia", "thing-M2-s1", 0.001, {"s": 1}),
                          _record("device", "nvidia", "thing-M2-vendor", 0.0005, None)]}
    (tmp_path / "cpu.json").write_text(json.dumps(cpu))
    (tmp_path / "gpu.json").write_text(json.dumps(gpu))

    only_cpu = table.table([tmp_path / "cpu.json"], fake_suites).splitlines()[2]
    cells = [c.strip() for c in re.split(r"(?<!\\)\|", only_cpu)[1:-1]]
    assert cells[0] == "thing"
    assert cells[1] == "`examples/thing/example_thing.py`<br>port: `my_port.py`"
    assert cells[2] == str(6 + 2)  # the suite's non-blank lines and the port's, not the loader's or the example's
    assert cells[3] == "ok 2/2"
    assert cells[4] == "FAILED 1 of 1: TypeError: boom \\| it broke"
    assert cells[5] == "not run yet"  # every device item skipped for want of a GPU

    both = table.table([tmp_path / "cpu.json", tmp_path / "gpu.json"], fake_suites).splitlines()[2]
    # the problem whose vendor item takes longest (M1), its best item, over M1's own vendor item
    assert "ok 5/5; at the largest problem, best 2.000 ms (M1-s2), 0.67x the vendor item's time" in both


def test_table_takes_the_later_run_of_an_item_whatever_order_the_files_come_in(tmp_path: Path, fake_suites: Path):
    """A rerun that mends a failure wins over the first run, also when a shell glob names the
    rerun's file first (``h200-<a>-rerun`` sorts before ``h200-<f>``)."""
    table = _table_module()
    first = {"datetime": "2026-01-01T10:00:00+00:00",
             "benchmarks": [_record("device", "nvidia", "thing-M1-vendor", 0.003, None)],
             "tlbench": {"failed": [_entry("device", "nvidia", "thing-M1-s1", error="TypeError: boom")]}}
    rerun = {"datetime": "2026-01-01T11:00:00+00:00",
             "benchmarks": [_record("device", "nvidia", "thing-M1-s1", 0.004, {"s": 1})]}
    (tmp_path / "h200-f.json").write_text(json.dumps(first))
    (tmp_path / "h200-a-rerun.json").write_text(json.dumps(rerun))
    for order in (["h200-a-rerun.json", "h200-f.json"], ["h200-f.json", "h200-a-rerun.json"]):
        row = table.table([tmp_path / name for name in order], fake_suites).splitlines()[2]
        assert "ok 2/2" in row and "FAILED" not in row, (order, row)


def test_table_reads_gzipped_runs(tmp_path: Path, fake_suites: Path):
    import gzip

    table = _table_module()
    run = {"benchmarks": [_record("compile", "nvidia", "thing-M1-s1", 2.0, {"s": 1})]}
    with gzip.open(tmp_path / "cpu.json.gz", "wt") as f:
        f.write(json.dumps(run))
    row = table.table([tmp_path / "cpu.json.gz"], fake_suites).splitlines()[2]
    assert "| ok 1/1 |" in row


def test_table_refuses_a_file_that_is_not_a_run(tmp_path: Path, fake_suites: Path, capsys):
    table = _table_module()
    (tmp_path / "bad.json").write_text('{"no": "benchmarks"}')
    assert table.main([str(tmp_path / "bad.json"), "--suites", str(fake_suites)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.json is not a pytest-benchmark JSON file" in err


def test_table_writes_between_the_readme_markers(tmp_path: Path, fake_suites: Path):
    table = _table_module()
    readme = tmp_path / "README.md"
    readme.write_text(f"# head\n{table.MARK}\nold table\n{table.MARK}\ntail\n")
    assert table.main(["--suites", str(fake_suites), "--readme", str(readme)]) == 0
    text = readme.read_text()
    assert text.startswith("# head\n") and text.endswith("tail\n") and "old table" not in text
    assert "| thing | `examples/thing/example_thing.py`" in text


def test_table_says_no_body_and_names_other_skips():
    table = _table_module()
    no_body = table.Cell(skipped={"a": "no body for ascend: x has no body", "b": "no body for ascend: x has no body"})
    assert table.compile_cell(no_body) == "no body"
    mixed = table.Cell(passed={"a": {}}, skipped={"b": "over the on-chip budget: shared.ub needs 1 B"})
    assert table.compile_cell(mixed) == "ok 1/1; 1 skipped: over the on-chip budget: shared.ub needs 1 B"
