"""Which backends exist, by name, and how ``--tlbench-backend`` selects among them.

Contract: ``BackendRegistry`` maps names to factories (``tlbench.backends`` entry points), building
a backend at first ``get``; ``traits`` / ``dialect`` answer without building where they can.
``select(choice)`` (a name, a comma list, or ``auto``) raises ``UnknownBackend`` on an unknown name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .backend_api import Backend, BackendFactory, BackendOptions
from .backend_traits import BackendTraits, DefaultTraits, TraitsCatalog
from .entry_points import load_group, loader_ref

AUTO = "auto"
ENTRY_POINT_GROUP = "tlbench.backends"


class UnknownBackend(ValueError):
    pass


@dataclass
class BackendRegistry:
    factories: dict[str, Callable[[], BackendFactory]] = field(default_factory=dict)
    options: BackendOptions = field(default_factory=BackendOptions)
    catalog: TraitsCatalog = field(default_factory=TraitsCatalog)
    # name -> its device worker's ``worker_facts`` (None: none there); set where items run in device workers.
    worker_facts: Callable[[str], dict | None] | None = None
    _instances: dict[str, Backend] = field(default_factory=dict)
    _load_errors: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_entry_points(cls, options: BackendOptions | None = None) -> "BackendRegistry":
        return cls(factories=load_group(ENTRY_POINT_GROUP), options=options or BackendOptions(),
                   catalog=TraitsCatalog.from_entry_points())

    def register(self, name: str, factory: BackendFactory) -> None:
        """Add a backend factory directly (tests' fakes); its ``traits`` attribute, if any, are its traits."""
        self.factories[name] = lambda: factory
        traits = getattr(factory, "traits", None)
        self.catalog.register(traits if traits is not None else DefaultTraits(name))

    def factory_path(self, name: str) -> str | None:
        """``module:qualname`` of ``name``'s factory, without importing it (None: only the factory knows)."""
        return loader_ref(self.factories[name])

    def traits(self, name: str) -> BackendTraits:
        """What the harness shows and sets up for ``name``, without loading the backend."""
        return self.catalog.get(name)

    @property
    def names(self) -> list[str]:
        return sorted(self.factories)

    def valid_choices(self) -> list[str]:
        return [*self.names, AUTO]

    def validate(self, choice: str) -> list[str]:
        """The names in ``choice``, or ``UnknownBackend`` listing the valid ones.  Loads nothing."""
        wanted = [c.strip() for c in choice.split(",") if c.strip()]
        unknown = [c for c in wanted if c not in self.valid_choices()]
        if unknown or not wanted:
            raise UnknownBackend(f"--tlbench-backend={choice}: unknown backend {', '.join(unknown) or '(empty)'}; "
                                 f"valid choices: {', '.join(self.valid_choices())}")
        return wanted

    def select(self, choice: str) -> list[str]:
        wanted = self.validate(choice)
        if AUTO in wanted:
            return [n for n in self.names if self.compile_blocker(n) is None]
        return wanted

    def get(self, name: str) -> Backend:
        """The backend ``name``, built on first use; from its device worker's facts where the factory has
        ``from_worker_facts`` (describing the worker's device without opening it)."""
        if name not in self._instances:
            factory = self.factories[name]()
            from_facts = getattr(factory, "from_worker_facts", None)
            facts = self.worker_facts(name) if self.worker_facts is not None and callable(from_facts) else None
            self._instances[name] = from_facts(self.options, facts) if facts is not None else factory(self.options)
        return self._instances[name]

    def dialect(self, name: str) -> str | None:
        """The body dialect ``name`` builds: its traits', else the factory's, else the built backend's; None where
        none loads."""
        said = getattr(self.traits(name), "dialect", None)
        if said:
            return str(said)
        try:
            factory = self.factories[name]()
            dialect = getattr(factory, "dialect", None)
            return dialect if isinstance(dialect, str) else str(self.get(name).dialect)
        except Exception:  # a backend whose imports fail: compile_blocker says why
            return None

    def compile_blocker(self, name: str) -> str | None:
        """What stops ``name`` compiling here (None: nothing), import failures included."""
        if name in self._load_errors:
            return self._load_errors[name]
        try:
            return self.get(name).compile_blocker()
        except Exception as exc:  # a backend whose own imports fail is unavailable, not a crash
            self._load_errors[name] = f"backend {name!r} failed to load: {type(exc).__name__}: {exc}"
            return self._load_errors[name]

    def loaded(self) -> dict[str, Backend]:
        return dict(self._instances)
