"""``kernel_sweep``: a suite's whole declaration of one kernel, as the ``Sweep`` the plugin expands.

Contract: ``kernel_sweep(...)`` (its docstring is the reference for every argument) returns a
``GenericSweep`` whose problems are ``sizes`` and whose configs are the cross product of ``axes``
plus ``configs``, per body dialect where given so; errors in the declaration raise at once.
Ids: ``<name>-<size tokens>-<axis tokens>``, from names and values only (never constants).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from ..core.backend_traits import TraitsCatalog
from ..core.cases import VendorCase
from ..core.space import Refusal
from ..core.sweep import Sweep

from . import rules
from .configs import configs_by_dialect, scope_configs, size_list
from .family import ANY_DIALECT, GenericFamily
from .runtime import runtime
from .vendors import VendorTable
from .words import CaseWords

NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
SizeSpec = Mapping[str, Any] | Sequence[Mapping[str, Any]]  # one problem's sizes, or a list of them
ConfigSpec = Sequence[Mapping[str, Any]] | Mapping[str, Sequence[Mapping[str, Any]]]  # a list, or one per dialect
Formatter = Callable[..., str] | str | None


def pruned(reason: str, kind: str = "divisibility") -> Refusal:
    """What a suite's ``validate`` returns for a config tlbench predicts the compiler would
    refuse (a size the tile does not divide): skipped before compiling as ``pruned (<kind>):
    <reason>``.  A plain string is ``invalid: <reason>``."""
    return Refusal(str(reason), kind)


@dataclass(frozen=True)
class GenericSweep(Sweep):
    """A ``Sweep`` whose configs may differ per body dialect and per scope, and whose vendor
    items are the family's (per dialect, one per named library)."""

    family: Any = None

    def _dialect(self, backend: str, dialect: str | None) -> str | None:
        if dialect is not None:
            return dialect
        return getattr(TraitsCatalog.from_entry_points().get(backend), "dialect", None)

    def configs_for(self, backend: str, scope: str = "full", dialect: str | None = None) -> list[Any]:
        if self.family is None:
            return super().configs_for(backend, scope, dialect)
        plain = list(self.family.configs) == [ANY_DIALECT] and scope not in self.family.scope_configs
        return self.family.configs_for(None if plain else self._dialect(backend, dialect), scope)

    def vendor_cases(self, backend: str, scope: str, dialect: str | None = None) -> list[VendorCase]:
        if self.family is None:
            return super().vendor_cases(backend, scope, dialect)
        if not (self.vendor and self.applies_to(backend)):
            return []
        libraries = self.family.vendors.libraries(self._dialect(backend, dialect))
        return [VendorCase(problem=p, library=lib) for p in self.problems_for(scope) for lib in libraries]


def kernel_sweep(
    name: str, body: Any, *, sizes: SizeSpec, inputs: Callable[..., Sequence[Any]] | str,
    reference: Callable[..., Any] | str | None = None, axes: Mapping[str, Any] | None = None,
    configs: ConfigSpec | None = None, constants: Mapping[str, Any] | None = None, check: Any = None,
    rtol: float | None = None, atol: float | None = None,
    vendor: Any = None, vendor_label: Any = None, vendor_check: bool = True,
    flops: Callable[..., int] | str | None = None, bytes_moved: Callable[..., int] | str | None = None,
    footprint: Callable[..., Mapping[str, Any] | None] | str | None = None,
    validate: Callable[..., str | None] | str | None = None,
    mma_tiles: Callable[..., Sequence[tuple[int, int]]] | str | None = None,
    body_modules: Sequence[str] | Callable[..., Sequence[str]] | str | None = None,
    pass_configs: Mapping[str, Any] | Callable[..., Mapping[str, Any]] | str | None = None,
    problem_id: Formatter = None, config_id: Formatter = None, problem_label: Formatter = None,
    config_label: Formatter = None, loop_trips: Callable[..., int] | str | None = None,
    smoke: SizeSpec | None = None, quick: SizeSpec | None = None,
    smoke_configs: ConfigSpec | None = None, quick_configs: ConfigSpec | None = None,
    kinds: Sequence[str] = ("compile", "device"), backends: Sequence[str] | None = None,
    description: str = "", sweep_name: str | None = None, best_configs: str | None = None,
    probe_inert_keys: bool = False, module: str | None = None,
) -> Sweep:
    """Benchmark one tilelang kernel: returns the ``SWEEP`` a suite module declares.

    A suite is ``SWEEP = kernel_sweep(...)`` and ``def test_<name>(tlbench): tlbench.run()``.
    Every config gives a compile item (a cold build, on any machine) and a device item (kernel
    time, checked first, on a GPU or NPU), on every backend selected with ``--tlbench-backend``.
    The built-in suites (suites/gemm/test_stages.py ...) are declared this way.

    name: letters, digits, ``_``; the kernel's name in records and the start of every case id
        (``<name>-<sizes>-<axes>``, e.g. ``gemv-M8192-N8192-block_M64-block_N128-s2``), the key
        of the item's history.
    body: the kernel as upstream writes it: a ``@tilelang.jit`` function (eager, with ``T.const``
        sizes and ``T.empty`` outputs, or lazy, returning a ``@T.prim_func``), a plain function
        returning a PrimFunc or a jit call (``return _build()``: tlbench takes the PrimFunc, no
        device compiler needed), a PrimFunc or a compiled kernel; or ``{"cuda": f, "ascend":
        g}`` (``"*"``: any other backend; a dialect with no body skips its items as ``no body
        for <backend>``).  The factory receives the sizes it takes (an eager jit: all, its
        ``T.const`` names), the axes and the constants, as keyword arguments.
    sizes: one dict, or a list of dicts: the problems (e.g. ``{"M": 8192, "N": 8192}``).
    axes: ``{axis: [values]}``, swept as a cross product in declaration order; or one such dict
        per body (``{"cuda": {...}, "ascend": {...}}``: each backend's ids name only its body's).
        Axes tlbench reads: ``num_stages`` (the pipeline depth: stage reports' columns);
        ``loop_form`` (``"auto"``: ``T.Pipelined(n, num_stages=...)``, ``"manual"``: a
        hand-written stage/order, ``"serial"``: ``T.serial``; those two with ``num_stages=None``,
        their ids say ``manual`` / ``serial``); ``threads``, ``num_cores`` and ``enable_offset``
        (recorded with the plan; ``threads`` checks the warp partition of ``mma_tiles``).
    configs: explicit config dicts after the cross product; a list, or one per dialect.
    constants: fixed keyword arguments (``{"dtype": "float16", "threads": 256}``) for the factory
        and every callable that names them, never in an id or a report row; hashed into the
        kernel's hash (editing one rebuilds it).  A value that differs between problems is a
        size.  A constant may be one body's alone; one nothing takes is an error.
    inputs: ``inputs(device, **named) -> [tensors]``: the kernel's leading arguments, made on
        ``device``, from the sizes, axes, constants and ``dialect`` it names (a block-sparse
        mask takes the tile's axes and is made per tile).  A dtype narrower than a byte
        (``T.int4``, fp4) is packed along the last dimension in an integer tensor (two int4 an
        int8, the even column in the low nibble: int4 ``(M, K)`` is int8 ``(M, K / 2)``); a
        sub-byte output is allocated so.  The remaining parameters are the outputs: allocated
        from the kernel's signature (``T.empty``, ``out_idx`` or plain parameters) outside the
        timed call, and poisoned before the checked run (NaN for floats, fp8 included; a
        sentinel for integers; a non-boolean byte for bool): an unwritten output never passes.
    reference: ``reference(*inputs, **named) -> tensor or tuple``: the expected output(s).
    check: how each output is judged: ``tolerance(rtol, atol)``, ``steps(k)`` (within k
        representable values of the output dtype), ``similarity(max_diff=1e-3)`` or
        ``similarity(min_cosine=...)``, ``mismatch(fraction, rtol, atol)``, ``exact()``,
        ``bound(allowed, words)`` (allowed absolute errors computed from the inputs), or a
        callable ``check(out, ref, **named) -> None | "reason"``; one rule, a list (by output)
        or a dict ``{output index or parameter name: rule}``.  Default: ``tolerance(1e-2,
        1e-2)`` for floats (``steps(1)`` for fp8 unless rtol/atol are given), ``exact()`` for
        integers and bool.  Records and reports name the rule that judged each output.
    rtol, atol: shorthand for ``check=tolerance(rtol, atol)`` on the float outputs.
    vendor: ``vendor(*inputs, **named) -> output(s)``: a vendor-library item per problem, timed
        beside the kernels (its ratio is in the summary) and checked like one; one that names
        ``out`` writes the outputs tlbench allocated in place.  Per body dialect: ``{"cuda": f,
        "ascend": g}``; several libraries, each its own item ``<problem_id>-<library>``:
        ``{"cuda": {"sdpa_flash": f, "sdpa_cudnn": g}}``.  ``vendor_label``: its name in
        reports: words, a callable given what the vendor call is given, or a dict by library.
    vendor_check: False keeps the vendor item a speed reference only (dense cuBLAS beside a
        block-sparse kernel): never judged (``check.checked`` false), labelled "speed
        reference, not checked".
    flops, bytes_moved: ``(**named) -> int``: TFLOP/s, GB/s and the roofline (a memory-bound
        kernel reads as % of the device's memory bandwidth).
    footprint: ``(**named) -> {scope: bytes}`` (or ``(needed, minimum)``, or ``{"bytes": n,
        "minimum": m, "buffers": ["A_shared 3 x 16384 B"], "variant": "simt"}``): the on-chip
        budget checked before compiling, per ``dialect`` (``shared.dyn`` on NVIDIA;
        ``shared.l1``, ``shared.l0c``, ``shared.ub`` on Ascend); without it the compiled
        kernel's buffers are checked after lowering.
    validate: ``(**named) -> None | "reason"``: a config the body cannot build is skipped as
        ``invalid: <reason>``; ``pruned(reason)`` (from tlbench) predicts a compiler refusal (a
        size the tile does not divide): ``pruned (divisibility): <reason>``.
    mma_tiles: ``(**named) -> [(M, N), ...]``: the output tiles of the body's ``T.gemm`` calls;
        a backend that can tell skips a config whose ``threads`` cannot partition them among
        its warps (``pruned (warp-partition)``), before compiling.
    body_modules: modules whose source is the body besides the factory's file and the user
        code it imports (tlbench and installed packages are not followed): dotted names or
        ``.py`` paths, a list or ``(**named) -> list``; their source is in the ``kernel_hash``.
    pass_configs: tilelang pass configs on top of the jit's: a dict, or ``(**named) -> dict``
        (e.g. ``tl.enable_fast_math`` where ``dialect == "cuda"``).
    problem_id, config_id, problem_label, config_label, loop_trips: the suite's own words:
        ``problem_id(**sizes) -> str`` and ``config_id(**axes) -> str`` the ids (keep a
        history's); ``problem_label(**sizes)`` a report's heading, ``config_label(**axes)`` the
        config without its pipeline depth, ``loop_trips(**sizes, **axes) -> int`` the
        pipelined loop's steps in one block.  They get the constants they name, never
        ``dialect``; records keep what they said.
    smoke, quick: the sizes of those scopes (``quick=()`` keeps the suite out of the quick
        scope).  Scopes (``--tlbench-scope``): ``smoke`` runs the ``smoke`` sizes (else the
        first of ``sizes``); ``full`` runs the smoke sizes then every size; ``quick`` (the
        default) runs the ``quick`` sizes, and without ``quick=`` the same as ``full``.
    smoke_configs, quick_configs: those scopes' configs (default: every config); a list, or
        one per dialect (a dialect they do not name has none there).
    kinds: the measure kinds this suite makes items for (``compile``, ``device``).
    backends: the backends it runs on (None: every selected one).
    description: one line for the run's records.
    sweep_name: the sweep's name in the run's records (``tlbench.sweeps``; default ``name``).
    best_configs: a results/best_configs.json that ``--tlbench-autotune`` writes: the next run
        also times each problem's winner as case ``<problem_id>-best-<config_id>``.
    probe_inert_keys: at collection, lower configs that differ in one axis and name the axes
        that do not change the generated kernel.
    module: the suite module's name (default: the caller's), how worker processes find it.

    Every callable receives exactly the sizes, axes, constants and ``dialect`` it names as
    keyword arguments (``inputs`` also ``device``); reference, vendor and check get tensors
    positionally first.  Any callable may be a ``"module:function"`` string, imported where
    first used (beside the suite file).

    Before anything compiles (at collection, and with ``tlbench check PATH``) a preflight runs
    each body's first config that ``validate`` keeps at the smoke size on CPU torch: it traces
    the body, calls every callable, matches the names they take against the sizes, axes and
    constants ("did you mean"), compares the inputs and the reference's outputs with the
    kernel's signature and asserts each output's rule rejects the poison.  A problem that fails
    it fails its items with one line naming the callable, the problem and the fix.
    """
    if not isinstance(name, str) or not NAME.match(name):
        raise ValueError(f"kernel_sweep: name {name!r} must be a letter then letters, digits or _ (it starts every case id)")
    bodies = dict(body) if isinstance(body, Mapping) else {ANY_DIALECT: body}
    if not bodies or not all(runtime().is_body(b) or isinstance(b, str) for b in bodies.values()):
        raise TypeError("kernel_sweep: body must be a kernel factory (a @tilelang.jit function or a function returning "
                        "a PrimFunc), a PrimFunc, a compiled kernel, or a {dialect: body} dict of them")
    if check is not None and (rtol is not None or atol is not None):
        raise ValueError("kernel_sweep: give check= or rtol=/atol=, not both (rtol/atol are check=tolerance(rtol, atol))")
    problems_sizes = size_list(sizes, "sizes")
    if not problems_sizes:
        raise ValueError("kernel_sweep: sizes names no problem")
    constants = dict(constants or {})
    caller = _declaring_module(sys._getframe(1))
    module_name = module or caller.get("__name__", "")
    family = GenericFamily(
        name=name, bodies=bodies, inputs=inputs, reference=reference, vendors=VendorTable.of(vendor, vendor_label),
        vendor_check=bool(vendor_check), flops_of=flops, bytes_of=bytes_moved, footprint_of=footprint, refusal_of=validate,
        mma_tiles_of=mma_tiles, body_modules_of=body_modules, check_spec=rules.normalize(check),
        tolerance=None if rtol is None and atol is None else rules.tolerance(
            rules.DEFAULT_RTOL if rtol is None else rtol, rules.DEFAULT_ATOL if atol is None else atol),
        constants=constants, pass_configs=pass_configs if pass_configs is not None else {},
        words=CaseWords(problem_id, config_id, problem_label, config_label, loop_trips), module=module_name,
        module_file=str(getattr(sys.modules.get(module_name), "__file__", None) or caller.get("__file__", "")),
    )
    family.configs = by_dialect = configs_by_dialect(family, axes, configs, bodies)
    family.scope_configs = {scope: table for scope, given in (("smoke", smoke_configs), ("quick", quick_configs))
                            if (table := scope_configs(family, given, scope, bodies)) is not None}
    every_config = [c for table in (by_dialect, *family.scope_configs.values()) for cs in table.values() for c in cs]
    smoke_sizes, quick_sizes = size_list(smoke, "smoke"), size_list(quick, "quick")
    every_size = set().union(*map(set, [*problems_sizes, *smoke_sizes, *quick_sizes]))
    every_axis = set().union(*(set(c.values) for c in every_config))
    for what, overlap in (("a size and an axis", every_size & every_axis), ("a constant and a size", set(constants) & every_size),
                          ("a constant and an axis", set(constants) & every_axis)):
        if overlap:
            raise ValueError(f"kernel_sweep: {', '.join(sorted(overlap))} is both {what}")
    for reserved in ("dialect", "device", "out"):
        if reserved in every_size | every_axis | set(constants):
            raise ValueError(f"kernel_sweep: {reserved!r} is passed by tlbench itself; name your size, axis or constant otherwise")
    problems = [family.problem(s) for s in problems_sizes]
    smoke_problems = [family.problem(s) for s in smoke_sizes]
    quick_problems = None if quick is None else [family.problem(s) for s in quick_sizes]
    family.problem_ids = tuple(p.problem_id for p in [*problems, *smoke_problems, *(quick_problems or [])])
    family.problems = tuple(dict.fromkeys([*smoke_problems, *problems, *(quick_problems or [])]))
    family.smoke_problems = tuple(smoke_problems or problems[:1])
    common = by_dialect.get(ANY_DIALECT)
    n_configs = len(common) if common is not None else max(len(v) for v in by_dialect.values())
    return GenericSweep(
        name=sweep_name or name, problems=problems, configs=common if common is not None else [],
        smoke_problems=smoke_problems, quick_problems=quick_problems, vendor=bool(family.vendors),
        description=description or f"{name}: {n_configs} config(s) over {len(problems)} problem(s)",
        kinds=tuple(kinds), backends=backends, best_configs=best_configs,
        probe_inert_keys=bool(probe_inert_keys), family=family,
    )


def _declaring_module(frame: Any) -> Mapping[str, Any]:
    """The globals of the innermost module-level frame (a ``SWEEP`` built through a helper is found
    again by the suite that holds it); the caller's own where no module is being imported."""
    walk = frame
    while walk is not None and walk.f_code.co_name != "<module>":
        walk = walk.f_back
    return (walk or frame).f_globals
