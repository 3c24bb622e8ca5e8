"""The preflight's name checks: every name a body or callable needs is given, and every size, axis
and constant is taken by something (backends/kernels/generic/preflight.py runs them first).

Contract: ``NameChecks`` is mixed into the preflight's runner.  ``check_names()`` reports a
required name nothing gives ("did you mean"); ``check_unused(func)`` one nothing takes, and raises
``Stop`` when the sweep has a finding.
"""

from __future__ import annotations

import contextlib
from typing import Any

from tlbench.harness.core.described import DTYPE_KEY

from . import factory as factories
from tlbench.harness.sweep_api.callables import Takes, did_you_mean, named_what
from tlbench.harness.sweep_api.vendors import OUT


class Stop(Exception):
    """Nothing further can be checked (a failure or a note already says why)."""


class NameChecks:
    def _takers(self) -> tuple[set[str], bool]:
        """Names some callable takes by keyword, and whether one takes ``**kwargs``."""
        takers = [t for t in (Takes.of(f) for f in self.callables.values()) if t is not None]
        return {n for t in takers for n in t.keyword}, any(t.var_keyword for t in takers)

    def unused(self, const: frozenset[str] | None, symbolic: frozenset[str] = frozenset()) -> dict[str, str]:
        """Sizes, axes and constants nothing takes: {name: "size" | "axis" | "constant"}.  An axis
        is per body (this body or a callable must take it); a size or constant is unused only when
        no body of any backend and no callable takes it.  Symbolic dimensions and ``dtype``: tlbench's."""
        facts = factories.factory_takes(self.body)
        taken, takes_all = self._takers()
        sizes = {n: "size" for p in self.family.problems for n in p.values if n != DTYPE_KEY and n not in symbolic}
        names = {**sizes, **{n: "constant" for n in self.family.constants}, **{n: "axis" for c in self.configs for n in c.values}}
        if takes_all:
            return {}
        others = self.other_bodies()
        return {n: kind for n, kind in names.items()
                if not (facts.accepts(n, const) or n in taken
                        or kind != "axis" and any(factories.factory_takes(b).accepts(n, factories.const_names(b)) for b in others))}

    def other_bodies(self) -> list[Any]:
        """The bodies of the other backends (those that resolve: a broken one is its own preflight's finding)."""
        out = []
        for dialect, ref in self.family.bodies.items():
            if dialect == self.dialect:
                continue
            with contextlib.suppress(Exception):
                body = self.family.resolved(ref)
                if body is not None and body is not self.body:
                    out.append(body)
        return out

    def body_names(self) -> str:
        """``neither the body f`` for a one-body suite, ``neither any body (cuda: f, ascend: g)`` with several."""
        if len(self.family.bodies) < 2:
            return f"neither the body {factories.factory_name(self.body)}"
        names = []
        for dialect, ref in self.family.bodies.items():
            try:
                names.append(f"{dialect}: {factories.factory_name(self.family.resolved(ref))}")
            except Exception:  # noqa: BLE001 - a body that does not import: named as written
                names.append(f"{dialect}: {ref}")
        return f"neither any body ({', '.join(names)})"

    def wanted(self) -> set[str]:
        """Every name the body or a callable takes (for "did you mean")."""
        facts = factories.factory_takes(self.body)
        taken, _ = self._takers()
        own = set(facts.takes.keyword) - facts.tensors if facts.takes is not None else set()
        return (taken | own | set(factories.const_names(self.body) or ())) - {"device", "dialect"}

    def check_names(self) -> None:
        """Missing names (a required name nothing gives) and, for a body that takes only its
        signature's names, axes and constants nothing takes - before tracing anything."""
        facts = factories.factory_takes(self.body)
        fname = factories.factory_name(self.body)
        spare = self.unused(frozenset())  # as if an eager jit took only its signature's names (its T.const names: once traced)
        for problem in self.family.problems:
            for config in self.kept(problem):
                offered = set(self.family.named(problem, config, self.dialect))
                missing: list[tuple[str, str, set[str]]] = [(f"body {fname}", name, offered) for name in facts.required()
                                                            if name not in offered - {"dialect"}]
                per_problem_values = set(self.family.named(problem, None, self.dialect))
                answers = per_problem_values | set(self.family.inputs_axes(config))
                for label, function in self.callables.items():
                    takes = Takes.of(function)
                    if takes is not None:
                        positional, available = positional_and_offer(label, offered, per_problem_values, answers)
                        missing += [(label_of(label, function), name, available) for name in takes.unmet(available, positional)]
                for who, name, available in missing:
                    close = did_you_mean(name, spare)
                    if close:  # a misspelled axis or constant: say it from the name the suite wrote
                        given = close.split("'")[1]
                        self.fail(f"{spare[given]} {given!r}", f"nothing takes it, and {who} takes {name!r}, which nothing gives",
                                  f"rename the {spare[given]} {given!r} to {name!r}", problem, per_problem=True)
                        continue
                    hint = ""
                    if name in offered and who.split()[0] in ("flops", "bytes_moved"):
                        hint = " (flops and bytes_moved are per problem: they get sizes, constants and dialect, no axis)"
                    elif name in offered and who.split()[0].split(":")[0] in ("reference", "vendor", "check"):
                        hint = (" (reference, vendor and check get only the axes inputs() takes: they are shared by every "
                                "config whose inputs are the same; make inputs() take it too)")
                    self.fail(who, f"it takes {name!r}, which no size, axis or constant gives{did_you_mean(name, available)}{hint}",
                              "add it to sizes, axes or constants, or give it a default", problem, per_problem=True)

    def check_unused(self, func: Any = None) -> None:
        """After tracing ``func``: every size, axis and constant is taken by the body (``T.const``
        names and symbolic dimensions included) or by a callable; a misspelled one is not."""
        from ...symbolic_shapes import symbolic_names

        wanted = self.wanted()
        symbolic = frozenset(symbolic_names(func)) if func is not None else frozenset()
        for name, kind in self.unused(factories.const_names(self.body), symbolic).items():
            self.fail(f"{kind} {name!r}", f"{self.body_names() if kind != 'axis' else 'neither the body ' + factories.factory_name(self.body)}"
                      " nor any callable takes it"
                      f"{did_you_mean(name, wanted - set(self.family.constants))}", f"rename the {kind} to a name the body takes, or drop it")
        if self.found.sweep:
            raise Stop


def label_of(label: str, function: Any) -> str:
    return named_what("check" if label.startswith("check") else label, function)


def positional_and_offer(label: str, offered: set[str], per_problem: set[str], answers: set[str]) -> tuple[int, set[str]]:
    """How many tensors a callable gets positionally, and the names on offer to it."""
    if label == "inputs":
        return 0, offered | {"device"}
    if label.split(":")[0] in ("vendor", "vendor_label"):
        return 10**6, answers | {OUT}  # the inputs fill its positional slots; ``out``: the outputs, to write in place
    if label == "reference" or label.startswith("bound"):
        return 10**6, answers  # the inputs (after a bound's reference answer) fill its positional slots
    if label.startswith("check"):
        return 2, answers
    if label in ("flops", "bytes_moved"):
        return 0, per_problem
    return 0, offered
