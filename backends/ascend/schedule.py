"""Record what tilelang's Ascend scheduler decided, from the real passes.

Contract: ``lower_with_schedule(func, target, pass_configs, shape_values)`` lowers through
tilelang's Ascend pipeline and returns ``(artifact, ScheduleFacts)``: the passes' latency, II,
core mask and buffer versions, and the Z3 solves' inputs and results (start times, versions and
II never reach the IR: ``install_z3_recorders`` wraps the two Python solvers where tilelang looks
them up, never touching tvm-ffi's registry).  Every number is a modeled cycle count; no recorded
solve is ``ScheduleFacts.missing``.  Importing installs the recorders.
"""

from __future__ import annotations

import contextvars
import hashlib
import inspect
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Iterator

import tilelang
import tvm
from tilelang.ascend.transform import z3_scheduler
from tvm import tirx

from ..symbolic_shapes import evaluate, launch_dims, symbolic_names

Z3_LOOP = "tl.transform.z3_schedule_loop_python"
Z3_STRAIGHT = "tl.transform.z3_schedule_python"

# ResourcePipe bits, as documented in tilelang/ascend/transform/z3_scheduler.py.
PIPES = (("MTE1", 1), ("MTE2", 2), ("MTE3", 4), ("Cube", 8), ("Vector", 16), ("Fixpipe", 32), ("Scalar", 64))
# AssignCore's core_mask bits.
CORES = (("AIV", 1), ("AIC", 2))

_active_sink: contextvars.ContextVar[list | None] = contextvars.ContextVar("tlbench_z3_sink", default=None)


def _plain(value: Any) -> Any:
    """Plain Python data: ints, strs and lists, never a tvm-ffi object (see install_z3_recorders)."""
    if isinstance(value, (str, bytes)):
        return str.__str__(value) if isinstance(value, str) else bytes(value)
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, bool) or value is None:
        return value
    if hasattr(value, "__len__") and hasattr(value, "__getitem__"):
        return [_plain(value[i]) for i in range(len(value))]
    try:
        return int(value)
    except (TypeError, ValueError):
        return str(value)


class _SolverRecorder:
    """A tilelang Python Z3 solver that hands a plain copy of its bound arguments and result to
    the thread's active recording (its marker attribute: no second copy of this module wraps it)."""

    tlbench_z3_recorder = True

    def __init__(self, name: str, solver) -> None:
        self.name = name
        self.solver = solver
        self.signature = inspect.signature(solver)

    def __call__(self, *args, **kwargs):
        result = self.solver(*args, **kwargs)
        sink = _active_sink.get()
        if sink is not None:
            bound = self.signature.bind(*args, **kwargs)
            bound.apply_defaults()
            sink.append({"solver": self.name, "args": _plain(dict(bound.arguments)), "result": _plain(result)})
        return result


def install_z3_recorders() -> None:
    """Wrap tilelang's two Python solvers where its FFI entry points look them up (idempotent);
    never in tvm-ffi's registry (Python closures there made pytest segfault at interpreter exit)."""
    for name, attr in ((Z3_LOOP, "z3_schedule_loop_python"), (Z3_STRAIGHT, "z3_schedule_python")):
        current = getattr(z3_scheduler, attr)
        if not getattr(current, "tlbench_z3_recorder", False):
            setattr(z3_scheduler, attr, _SolverRecorder(name, current))


@contextmanager
def _recording() -> Iterator[list]:
    sink: list = []
    token = _active_sink.set(sink)
    try:
        yield sink
    finally:
        _active_sink.reset(token)


def decode_bits(mask: int, names: tuple[tuple[str, int], ...]) -> list[str]:
    return [name for name, bit in names if mask & bit]


def _region_buffer(arg) -> tuple[str, str]:
    """(name, scope) of the buffer a ``T.region(...)`` argument points at."""
    if isinstance(arg, tirx.Call) and len(arg.args) and isinstance(arg.args[0], tirx.BufferLoad):
        buf = arg.args[0].buffer
        return buf.name, buf.scope()
    return "?", "?"


def _task_kind(stmt) -> str:
    """A readable name for the op a task wraps: ``copy global->shared.l1``, ``gemm``, ..."""
    found: list[str] = []

    def visit(node):
        if found:
            return
        if isinstance(node, tirx.AttrStmt) and node.attr_key == "tl.simtvf_scope":
            found.append("vector (SimtVF)")
        elif isinstance(node, tirx.AttrStmt) and node.attr_key == "tl.simdvf_scope":
            found.append("vector (SimdVF)")
        elif isinstance(node, tirx.Call) and hasattr(node.op, "name"):
            op = node.op.name.split(".")[-1]
            if "copy" in op and len(node.args) >= 2:
                (src, src_scope), (dst, dst_scope) = _region_buffer(node.args[0]), _region_buffer(node.args[1])
                found.append(f"copy {src}->{dst} ({src_scope}->{dst_scope})")
            elif op in ("gemm", "gemm_py") or op.startswith("gemm"):
                found.append("gemm")
            elif op not in ("region", "tvm_access_ptr", "address_of"):
                found.append(op)

    tirx.stmt_functor.pre_order_visit(stmt, lambda n: visit(n) or not found)
    return found[0] if found else "task"


@dataclass
class _LoopUnits:
    loop_var: str
    extent: int | str | None
    units: list[dict[str, Any]] = field(default_factory=list)


def _ir_loops(func, values: dict[str, int]) -> list[_LoopUnits]:
    """Every loop with its direct scheduled tasks / nested loops, innermost first."""
    loops: list[_LoopUnits] = []

    def units_of(body) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []

        def walk(node) -> bool:
            if isinstance(node, tirx.AttrStmt) and node.attr_key == "tl.ascend_task":
                attrs = node.node
                out.append({"kind": _task_kind(node.body),
                            **{key: int(attrs[key]) if key in attrs else None for key in ("latency", "ii", "core_mask")}})
                return False
            if isinstance(node, tirx.For):
                out.append({"kind": f"loop {node.loop_var}", "latency": None, "ii": None, "core_mask": None})
                return False
            return True

        tirx.stmt_functor.pre_order_visit(body, walk)
        return out

    def visit(node):
        if isinstance(node, tirx.For):
            extent = evaluate(node.extent, values)
            loops.append(_LoopUnits(_plain(str(node.loop_var)), extent, units_of(node.body)))

    tirx.stmt_functor.post_order_visit(func.body, visit)
    return loops


def _attach_core_masks(source_order: list[_LoopUnits], assigned: list[_LoopUnits]) -> None:
    """AssignCore reorders tasks by start time: pair each task with its twin by (kind, latency)."""
    for loop, twin in zip(source_order, assigned):
        pool = list(twin.units)
        for unit in loop.units:
            for j, other in enumerate(pool):
                if other["kind"] == unit["kind"] and other["latency"] == unit["latency"]:
                    unit["core_mask"] = other["core_mask"]
                    del pool[j]
                    break


def _buffer_versions(func) -> dict[str, int]:
    versions: dict[str, int] = {}

    def visit(node):
        if isinstance(node, tirx.SBlock) and "tl.buffer_versions_map" in node.annotations:
            for var, count in node.annotations["tl.buffer_versions_map"].items():
                versions[str(var.name)] = int(count)

    tirx.stmt_functor.post_order_visit(func.body, visit)
    return versions


def _on_chip_buffers(func, values: dict[str, int]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}

    def visit(node):
        if isinstance(node, tirx.SBlock):
            for buf in node.alloc_buffers:
                if buf.scope().startswith("shared"):
                    found.setdefault(_plain(buf.name), {"shape": [evaluate(x, values) for x in buf.shape], "dtype": str(buf.dtype), "scope": str(buf.scope())})

    tirx.stmt_functor.post_order_visit(func.body, visit)
    return found


def _loop_for_solve(latencies: list[int], candidates: list[_LoopUnits], used: set[int]) -> _LoopUnits | None:
    for index, loop in enumerate(candidates):
        if index in used or len(loop.units) != len(latencies):
            continue
        if all(u["latency"] in (None, lat) for u, lat in zip(loop.units, latencies)):
            used.add(index)
            return loop
    return None


def _span(starts: list[int], latencies: list[int]) -> int:
    return max(s + lat for s, lat in zip(starts, latencies)) - min(starts)


def _loop_schedule(solve: dict[str, Any], loop: _LoopUnits | None) -> dict[str, Any]:
    args, result = solve["args"], solve["result"]
    num_stages, latencies, iis, pipes = args["num_stages"], args["latencies"], args["iis"], args["resource_flags"]
    starts, versions, loop_ii = result[0], result[1], int(result[2])
    enable_offset = bool(args.get("enable_offset", False))
    units = loop.units if loop is not None else [{} for _ in latencies]
    tasks = []
    for i, (lat, ii, mask, start) in enumerate(zip(latencies, iis, pipes, starts)):
        unit = units[i] if i < len(units) else {}
        core_mask = unit.get("core_mask")
        tasks.append({"index": i, "kind": unit.get("kind", "task"), "pipes": decode_bits(int(mask), PIPES),
                      "latency": int(lat), "ii": int(ii), "start": int(start),
                      "cores": decode_bits(core_mask, CORES) if core_mask is not None else None})
    span = _span(starts, latencies)
    trip = loop.extent if loop is not None else None
    modeled = (trip - 1) * loop_ii + span if isinstance(trip, int) and trip else None
    return {"loop_var": loop.loop_var if loop is not None else None, "trip_count": trip,
            "num_stages": int(num_stages), "enable_offset": enable_offset, "ii": loop_ii,
            "span": span, "modeled_cycles": modeled, "versions": [int(v) for v in versions],
            "tasks": tasks}


@dataclass(frozen=True)
class ScheduleFacts:
    loops: list[dict[str, Any]]  # innermost first
    straight_line: list[dict[str, Any]]
    buffer_versions: dict[str, int]
    buffers: dict[str, dict[str, Any]]
    mixed_kernel: bool
    source_sha256: str = ""
    missing: str | None = None
    grid_dims: list[int | str] = field(default_factory=lambda: [0, 1, 1])  # blockIdx x, y, z extents (blocks launched)
    symbolic: dict[str, int | None] = field(default_factory=dict)  # T.dynamic name -> the value bound here (None: none)

    @property
    def modeled_cycles_per_core(self) -> int | None:
        return self.loops[-1]["modeled_cycles"] if self.loops else None


def lower_with_schedule(func, target, pass_configs: dict[str, Any] | None = None,
                        shape_values: dict[str, int] | None = None) -> tuple[Any, ScheduleFacts]:
    """Lower under the pass configs the build gets (None: tilelang's defaults), recording the
    schedule; symbolic dimensions read with ``shape_values`` bound."""
    snapshots: dict[str, Any] = {}

    @tvm.instrument.pass_instrument
    class TaskInstrument:
        def run_after_pass(self, mod, info):
            if info.name in ("tl.EstimateLatency", "tl.AssignCore", "tl.AutoSchedule"):
                snapshots[info.name] = mod

    with _recording() as solves, target, tvm.transform.PassContext(config=pass_configs or {}, instruments=[TaskInstrument()]):
        artifact = tilelang.lower(func, target=target)
    values = dict(shape_values or {})
    facts = _facts(solves, snapshots, artifact, values)
    names = symbolic_names(func)
    facts = replace(facts, grid_dims=_plain(launch_dims(_main(artifact.device_mod), "blockIdx", values)),
                    symbolic={name: values.get(name) for name in names})
    return artifact, facts


def _main(mod):
    return next(iter(mod.functions.values()))


def _facts(solves: list[dict[str, Any]], snapshots: dict[str, Any], artifact, values: dict[str, int]) -> ScheduleFacts:
    estimated = snapshots.get("tl.EstimateLatency")  # tasks in source order, as Z3 sees them
    assigned = snapshots.get("tl.AssignCore")  # same tasks, reordered, with core_mask
    ir_loops = _ir_loops(_main(estimated), values) if estimated is not None else []
    if assigned is not None:
        _attach_core_masks(ir_loops, _ir_loops(_main(assigned), values))
    used: set[int] = set()
    loops, straight = [], []
    for solve in solves:
        if solve["solver"] == Z3_LOOP:
            loops.append(_loop_schedule(solve, _loop_for_solve(solve["args"]["latencies"], ir_loops, used)))
        else:
            latencies, pipes, starts = solve["args"]["latencies"], solve["args"]["resource_flags"], solve["result"][0]
            straight.append({"tasks": [{"index": i, "pipes": decode_bits(int(p), PIPES), "latency": int(lat), "start": int(s)}
                                       for i, (lat, p, s) in enumerate(zip(latencies, pipes, starts))],
                             "span": _span(starts, latencies) if starts else 0})
    scheduled = snapshots.get("tl.AutoSchedule")
    missing = None if solves else (
        "no Z3 solve was recorded: the scheduler ran no solve for this kernel, or "
        "tilelang.ascend.transform.z3_scheduler no longer calls z3_schedule_loop_python / "
        "z3_schedule_python through its module (a tilelang change: update backends/ascend/schedule.py)")
    return ScheduleFacts(
        loops=_plain(loops), straight_line=_plain(straight),
        buffer_versions=_buffer_versions(_main(scheduled)) if scheduled is not None else {},
        buffers=_on_chip_buffers(_main(scheduled), values) if scheduled is not None else {},
        mixed_kernel="__mix__" in artifact.kernel_source,
        source_sha256=hashlib.sha256(artifact.kernel_source.encode()).hexdigest(), missing=missing)


install_z3_recorders()  # at import: every Ascend lowering from here on is recorded
