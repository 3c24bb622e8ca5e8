"""Record the pipeline plan tilelang's CUDA path chose, from the compiler's own IR.

Contract: ``lower_with_plan(func, target, pass_configs, shape_values)`` lowers with a pass
instrument attached and returns ``(artifact, PlanFacts)``; ``build_with_plan(build,
shape_values)`` attaches it to a ``tilelang.compile`` call's own lowering.  Facts come from the
IR (pipeline annotations, warp specialization, buffers, shared memory, grid and threads);
only instruction use (TMA, cp.async, wgmma) is read from the generated source.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import tilelang
import tvm
from tvm import tirx

from ..dtype_sizes import buffer_bytes
from ..symbolic_shapes import evaluate, launch_dims, product, symbolic_names

_WS_PASS = "tl.ProducerConsumerWarpSpecialized"
_PLANNING_PASS = "tl.PipelinePlanning"
_INJECT_PASS = "tl.InjectSoftwarePipeline"
_PIPELINE_KEYS = ("software_pipeline_stage", "software_pipeline_order", "tl_pipelined_num_stages")


def _alloc_buffers(func, values: dict[str, int]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}

    def visit(node):
        if isinstance(node, tirx.SBlock):
            for buf in node.alloc_buffers:
                found[buf.name] = {"shape": [evaluate(x, values) for x in buf.shape],
                                   "dtype": str(buf.dtype), "scope": str.__str__(buf.scope())}

    tirx.stmt_functor.post_order_visit(func.body, visit)
    return found


def _pipelined_loops(func) -> list[dict[str, Any]]:
    loops: list[dict[str, Any]] = []

    def visit(node):
        if isinstance(node, tirx.For) and node.annotations:
            ann = {k: node.annotations[k] for k in node.annotations.keys()}
            if any(k in ann for k in _PIPELINE_KEYS):
                loops.append({
                    "loop_var": str.__str__(str(node.loop_var)),  # a plain str: tvm-ffi returns its own String
                    "extent": int(node.extent) if isinstance(node.extent, tvm.tirx.IntImm) else str(node.extent),
                    "stage": [int(x) for x in ann.get("software_pipeline_stage", [])],
                    "order": [int(x) for x in ann.get("software_pipeline_order", [])],
                    "num_stages": int(ann["tl_pipelined_num_stages"]) if "tl_pipelined_num_stages" in ann else None,
                })

    tirx.stmt_functor.post_order_visit(func.body, visit)
    return loops


@dataclass
class _Recorder:
    first_module: Any = None
    after: dict[str, Any] = field(default_factory=dict)
    ws_changed: bool = False
    passes_seen: list[str] = field(default_factory=list)
    _before_ws: Any = None


def _make_instrument(rec: _Recorder):
    @tvm.instrument.pass_instrument
    class PlanInstrument:
        def run_before_pass(self, mod, info):
            if rec.first_module is None:
                rec.first_module = mod
            if info.name == _WS_PASS:
                rec._before_ws = mod

        def run_after_pass(self, mod, info):
            rec.passes_seen.append(info.name)
            if info.name in (_PLANNING_PASS, _INJECT_PASS, _WS_PASS):
                rec.after[info.name] = mod
            if info.name == _WS_PASS and rec._before_ws is not None:
                rec.ws_changed = not tvm.ir.structural_equal(rec._before_ws, mod)

    return PlanInstrument()


def _main_func(mod):
    return next(iter(mod.functions.values()))


@dataclass(frozen=True)
class PlanFacts:
    pipeline: dict[str, Any]
    buffers: list[dict[str, Any]]
    dynamic_smem_bytes: int | str
    threads: int | str  # threads per block (threadIdx x * y * z)
    grid: int | str  # blocks in the grid (blockIdx x * y * z); an expression where a symbolic dimension has no value
    features: dict[str, Any]  # instruction use (bools); "kernels" where the PrimFunc launches several
    source_sha256: str
    grid_dims: list[int | str] = field(default_factory=lambda: [0, 1, 1])  # blockIdx.x, .y, .z extents
    symbolic: dict[str, int | None] = field(default_factory=dict)  # T.dynamic name -> the value bound here (None: none)


def _kernels(device_mod, values: dict[str, int]) -> list[dict[str, Any]]:
    """Each device kernel's name, grid and threads per block; empty for a module of one kernel."""
    funcs = [(gv.name_hint, f) for gv, f in device_mod.functions.items()
             if f.attrs is not None and "thread_extent" in f.attrs]
    if len(funcs) < 2:
        return []

    def numbered(entry: tuple[str, Any]) -> tuple[str, int]:
        stem, _, suffix = entry[0].rpartition("_")
        return (stem, int(suffix)) if suffix.isdigit() else (entry[0], -1)

    funcs.sort(key=numbered)
    return [{"name": name, "grid_dims": launch_dims(f, "blockIdx", values),
             "threads": product(launch_dims(f, "threadIdx", values))} for name, f in funcs]


def _features(source: str) -> dict[str, bool]:
    return {"tma": "tma_load" in source or "cp.async.bulk.tensor" in source,
            "cp_async": "cp_async" in source or "cp.async.cg" in source or "cp.async.ca" in source,
            "wgmma": "wgmma" in source, "mma_sync": "mma.sync" in source or "mma_sync" in source,
            "mbarrier": "mbarrier" in source}


def build_with_plan(build: Callable[[], Any], shape_values: dict[str, int] | None = None) -> tuple[Any, PlanFacts | None]:
    """Run ``build`` (a ``tilelang.compile`` call) with the plan instrument on its own lowering; the
    facts are None when nothing was lowered (a cache hit) or tilelang lacks the session tools."""
    try:
        from tilelang.instrumentation.session import PassInstrumentationTool, compile_pass_instrumentation
    except ImportError:
        return build(), None
    rec = _Recorder()

    class _PlanTool(PassInstrumentationTool):
        def create_pass_instrument(self):
            return _make_instrument(rec)

    with compile_pass_instrumentation(name="tlbench-plan", tools=[_PlanTool()], reuse_existing=False):
        handle = build()
    artifact = getattr(handle, "artifact", None)
    if rec.first_module is None or artifact is None:
        return handle, None
    return handle, _facts(rec, artifact, shape_values or {})


def lower_with_plan(func, target, pass_configs: dict[str, Any] | None = None,
                    shape_values: dict[str, int] | None = None) -> tuple[Any, PlanFacts]:
    """Lower under the same pass configs the build gets (``pass_configs``; None: the defaults)."""
    rec = _Recorder()
    with target, tvm.transform.PassContext(config=pass_configs or {}, instruments=[_make_instrument(rec)]):
        artifact = tilelang.lower(func, target=target)
    return artifact, _facts(rec, artifact, shape_values or {})


def _facts(rec: _Recorder, artifact, values: dict[str, int]) -> PlanFacts:
    first = _main_func(rec.first_module)
    declared = _alloc_buffers(first, values)
    last = rec.after.get(_INJECT_PASS) or rec.after.get(_PLANNING_PASS) or rec.first_module
    versioned = _alloc_buffers(_main_func(last), values)
    buffers = []
    for name, decl in declared.items():
        if not decl["scope"].startswith("shared"):
            continue
        now = versioned.get(name, decl)
        if not all(isinstance(d, int) for d in [*decl["shape"], *now["shape"]]):
            buffers.append({"name": name, "scope": decl["scope"], "shape": decl["shape"], "dtype": decl["dtype"],
                            "versions": None, "bytes": None})  # a symbolic on-chip shape with no value here
            continue
        versions = max(1, math.prod(now["shape"]) // max(1, math.prod(decl["shape"])))
        buffers.append({"name": name, "scope": decl["scope"], "shape": decl["shape"],
                        "dtype": decl["dtype"], "versions": versions,
                        "bytes": versions * buffer_bytes(decl["shape"], decl["dtype"])})
    planned = rec.after.get(_PLANNING_PASS)
    loops = _pipelined_loops(_main_func(planned)) if planned is not None else []
    if rec.ws_changed:
        pipeline = {"kind": "warp-specialized", "detail": "producer/consumer (TMA producer warps, MMA consumer warps)"}
    elif loops and loops[0]["stage"]:
        pipeline = {"kind": "software-pipeline", "stage": loops[0]["stage"], "order": loops[0]["order"]}
    else:
        pipeline = {"kind": "none"}
    if loops:
        pipeline["num_stages_annotation"] = loops[0]["num_stages"]
    device_func = _main_func(artifact.device_mod)
    attrs = device_func.attrs
    grid_dims = launch_dims(device_func, "blockIdx", values)
    symbolic = symbolic_names(first)
    smem = evaluate(attrs["dyn_shared_memory_buf"], values) if "dyn_shared_memory_buf" in attrs else 0
    kernels = _kernels(artifact.device_mod, values)
    return PlanFacts(
        pipeline=pipeline, buffers=buffers, dynamic_smem_bytes=smem,
        threads=product(launch_dims(device_func, "threadIdx", values)), grid=product(grid_dims), grid_dims=grid_dims,
        features={**_features(artifact.kernel_source), **({"kernels": kernels} if kernels else {})},
        source_sha256=hashlib.sha256(artifact.kernel_source.encode()).hexdigest(),
        symbolic={name: values.get(name) for name in symbolic},
    )
