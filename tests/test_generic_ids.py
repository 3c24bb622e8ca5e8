"""The generic kernel path's ids and records, without compiling anything.

Ids are history keys: a kernel declared through ``kernel_sweep`` gets ids derived from its
name, its sizes and its axes, in declaration order; the golden list below pins them.  Its
records describe themselves, so a reader with no entry point for the kernel reads them back
(``FamilyCatalog.for_record`` -> ``DescribedFamily``) with the same ids and stage points, and
a worker process finds the live family again by importing the suite module (pickling by
reference).
"""

import json
import pickle
import subprocess
import sys
import textwrap

import pytest

from tlbench.harness.sweep_api import kernel_sweep
from tlbench.harness.sweep_api.family import GenericFamily
from tlbench.harness.core.described import DescribedFamily, Params, id_value
from tlbench.harness.core.family import FamilyCatalog
from tlbench.harness.core.record import BenchItem
from tlbench.harness.core.record_reader import RecordReader


def factory(M, N, blk_m, blk_k, num_stages=1):  # never called here: nothing compiles
    raise AssertionError("not built in this test")


def sweep():
    return kernel_sweep(
        "rmsnorm", factory,
        sizes=[{"M": 4096, "N": 8192, "dtype": "float32"}, {"M": 1024, "N": 1024, "dtype": "bfloat16"}],
        axes={"blk_m": [1, 2], "blk_k": [512], "num_stages": [1, 2, 3]},
        configs=[{"blk_m": 4, "blk_k": 256, "eps": 1e-6, "flags": [1, 2], "fast": True}],
        inputs=lambda device, **sizes: [],
        module=__name__,
    )


GOLDEN = [
    "rmsnorm-M4096-N8192-f32-blk_m1-blk_k512-s1",
    "rmsnorm-M4096-N8192-f32-blk_m1-blk_k512-s2",
    "rmsnorm-M4096-N8192-f32-blk_m1-blk_k512-s3",
    "rmsnorm-M4096-N8192-f32-blk_m2-blk_k512-s1",
    "rmsnorm-M4096-N8192-f32-blk_m2-blk_k512-s2",
    "rmsnorm-M4096-N8192-f32-blk_m2-blk_k512-s3",
    "rmsnorm-M4096-N8192-f32-blk_m4-blk_k256-eps1em06-flags1x2-fast1",
    "rmsnorm-M1024-N1024-bf16-blk_m1-blk_k512-s1",
    "rmsnorm-M1024-N1024-bf16-blk_m1-blk_k512-s2",
    "rmsnorm-M1024-N1024-bf16-blk_m1-blk_k512-s3",
    "rmsnorm-M1024-N1024-bf16-blk_m2-blk_k512-s1",
    "rmsnorm-M1024-N1024-bf16-blk_m2-blk_k512-s2",
    "rmsnorm-M1024-N1024-bf16-blk_m2-blk_k512-s3",
    "rmsnorm-M1024-N1024-bf16-blk_m4-blk_k256-eps1em06-flags1x2-fast1",
]


def test_ids_are_derived_from_names_and_values_in_declaration_order():
    assert [c.case_id for c in sweep().cases("nvidia", "full")] == GOLDEN
    assert [v.case_id for v in sweep().vendor_cases("nvidia", "full")] == []  # no vendor= given


def test_value_tokens():
    assert [id_value(v) for v in (3, -2, 0.5, 1e-12, True, None, "float16", "a b/c", (128, 64))] == [
        "3", "m2", "0.5", "1em12", "1", "none", "f16", "a_b_c", "128x64"]


def test_bad_declarations_say_what_to_do():
    with pytest.raises(ValueError, match="both a size and an axis"):
        kernel_sweep("k", factory, sizes={"M": 1}, axes={"M": [1]}, inputs=list)
    with pytest.raises(ValueError, match="name 'my kernel'"):
        kernel_sweep("my kernel", factory, sizes={"M": 1}, inputs=list)
    with pytest.raises(TypeError, match="axis 'blk_m' needs a non-empty list"):
        kernel_sweep("k", factory, sizes={"M": 1}, axes={"blk_m": 4}, inputs=list)
    with pytest.raises(ValueError, match="two configs have the id"):
        kernel_sweep("k", factory, sizes={"M": 1}, configs=[{"b": 1}, {"b": 1}], inputs=list)


def test_a_backend_without_a_body_is_refused_with_that_reason():
    s = kernel_sweep("k", {"cuda": factory}, sizes={"M": 1}, inputs=list, module=__name__)
    case = s.cases("ascend", "full")[0]
    assert case.family.validate(case.problem, case.config, "ascend") == "k has no body for the ascend dialect (it has: cuda)"
    assert case.family.validate(case.problem, case.config, "cuda") is None


def test_records_read_back_without_the_family():
    case = sweep().cases("nvidia", "full")[1]
    record = json.loads(json.dumps(BenchItem("nvidia", "compile", case).describe()))
    assert record["family"] == "rmsnorm" and record["family_described"] is True
    assert record["problem"] == {"M": 4096, "N": 8192, "dtype": "float32"}
    assert record["config"] == {"blk_m": 1, "blk_k": 512, "num_stages": 2}
    catalog = FamilyCatalog()  # no entry point names the kernel
    read = RecordReader(catalog).read({**record, "samples_s": [1.0]})
    assert isinstance(read.family, DescribedFamily)
    assert read.problem_id == case.problem.problem_id and read.config.config_id == case.config.config_id
    assert (read.stage.tile, read.stage.loop_id, read.stage.num_stages) == ("blk_m1 blk_k512", "auto-s2", 2)
    assert read.family.problem_label(read.problem) == "M4096 N8192 f32"
    with pytest.raises(KeyError, match="unknown kernel family 'other'"):  # an undescribed unknown family still says so
        catalog.for_record({"family": "other"})


def test_values_are_hashable_and_immutable():
    params = Params({"a": [1, 2]})
    assert params == {"a": (1, 2)} and hash(params) == hash(Params({"a": (1, 2)}))
    with pytest.raises(TypeError):
        params["b"] = 1
    assert pickle.loads(pickle.dumps(params)) == params


SUITE = '''
from tlbench.harness.sweep_api import kernel_sweep

def body(M, blk):
    raise AssertionError

SWEEP = kernel_sweep("pick", body, sizes={"M": 64}, axes={"blk": [8, 16]}, inputs=lambda device, M: [])
'''


def test_a_case_crosses_a_process_boundary_by_reference(tmp_path):
    """A worker process gets the case pickled: the family is found again by importing the suite."""
    (tmp_path / "test_pick_suite.py").write_text(SUITE)
    sys.path.insert(0, str(tmp_path))
    try:
        import test_pick_suite  # noqa: F401  (what pytest does when it collects the suite)

        case = test_pick_suite.SWEEP.cases("nvidia", "full")[1]
        blob = pickle.dumps(case)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("test_pick_suite", None)
    script = textwrap.dedent(f"""
        import pickle, sys
        sys.path.insert(0, {str(tmp_path)!r})
        case = pickle.loads({blob!r})
        print(type(case.family).__name__, case.family.name, case.case_id, sorted(case.family.bodies))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["GenericFamily", "pick", "pick-M64-blk16", "['*']"]
    assert isinstance(case.family, GenericFamily)


def test_a_suite_sibling_module_resolves_when_the_suite_is_loaded_outside_pytest(tmp_path):
    """A tool or worker loads a suite by file without pytest's rootdir on sys.path: the
    suite's ``"module:attribute"`` strings still find the module beside it."""
    import subprocess
    import sys

    (tmp_path / "my_kernel_bits.py").write_text("def flops(M):\n    return 3 * M\n")
    suite = tmp_path / "test_my_kernel.py"
    suite.write_text(
        "from tlbench.harness.sweep_api import kernel_sweep\n"
        "SWEEP = kernel_sweep('sibling', 'my_kernel_bits:flops', sizes={'M': 7}, axes={'num_stages': [1]},\n"
        "                     inputs='my_kernel_bits:flops', flops='my_kernel_bits:flops')\n")
    code = ("import importlib.util, sys\n"
            f"spec = importlib.util.spec_from_file_location('test_my_kernel', {str(suite)!r})\n"
            "mod = importlib.util.module_from_spec(spec); sys.modules['test_my_kernel'] = mod; spec.loader.exec_module(mod)\n"
            "problem = mod.SWEEP.problems[0]\n"
            "print(problem.family.flops(problem))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd="/", capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "21"


def test_a_sweep_subclass_written_before_dialects_is_called_as_before():
    """The plugin tells a sweep the backend's dialect only where its methods take one."""
    from tlbench.harness.core.sweep import Sweep
    from tlbench.harness.pytest_plugin.expansion import _dialect

    class Registry:
        def dialect(self, backend):
            return "cuda"

    class State:
        registry = Registry()

    class OldSweep(Sweep):
        def cases(self, backend, scope, device=None, load_best=None):
            return []

    old = OldSweep(name="old", problems=[], configs=[])
    assert _dialect(old.cases, State(), "nvidia") == {}
    assert _dialect(sweep().cases, State(), "nvidia") == {"dialect": "cuda"}
