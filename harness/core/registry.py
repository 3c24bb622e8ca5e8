"""Which backends exist, by name, and how ``--backend`` selects among them.

Contract: ``BackendRegistry`` maps names to factories.  ``from_entry_points()`` reads the
``tlbench.backends`` entry-point group without importing anything; a factory is imported
and called only when a backend is first used (``get``), so ``pytest tests`` never pays for
tilelang.  ``select(choice)`` turns ``--backend`` into names: a registered name, a
comma-separated list of them, or ``auto`` (every registered backend that can compile on
this machine).  An unknown name raises ``UnknownBackend`` listing the valid choices.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import import_module
from importlib.metadata import entry_points
from typing import Callable

from harness.core.backend_api import Backend, BackendFactory, BackendOptions

AUTO = "auto"
ENTRY_POINT_GROUP = "tlbench.backends"
# Used only when tlbench runs from a source tree that was never pip-installed (no entry
# points), e.g. a GPU host given the checkout on PYTHONPATH.  Same names as pyproject.toml.
SOURCE_TREE_BACKENDS = {"nvidia": "backends.nvidia:NvidiaBackend", "ascend": "backends.ascend:AscendBackend"}


def _load_by_path(path: str) -> Callable[[], BackendFactory]:
    def load():
        module, _, attr = path.partition(":")
        return getattr(import_module(module), attr)

    return load


class UnknownBackend(ValueError):
    pass


@dataclass
class BackendRegistry:
    factories: dict[str, Callable[[], BackendFactory]] = field(default_factory=dict)
    options: BackendOptions = field(default_factory=BackendOptions)
    _instances: dict[str, Backend] = field(default_factory=dict)
    _load_errors: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_entry_points(cls, options: BackendOptions | None = None) -> "BackendRegistry":
        registry = cls(options=options or BackendOptions())
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            registry.factories[ep.name] = ep.load
        if not registry.factories:
            registry.factories = {name: _load_by_path(path) for name, path in SOURCE_TREE_BACKENDS.items()}
        return registry

    def register(self, name: str, factory: BackendFactory) -> None:
        """Add a backend factory directly (tests register their fake backend this way)."""
        self.factories[name] = lambda: factory

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
            raise UnknownBackend(
                f"--backend={choice}: unknown backend {', '.join(unknown) or '(empty)'}; "
                f"valid choices: {', '.join(self.valid_choices())}"
            )
        return wanted

    def select(self, choice: str) -> list[str]:
        wanted = self.validate(choice)
        if AUTO in wanted:
            return [n for n in self.names if self.unavailable(n) is None]
        return wanted

    def get(self, name: str) -> Backend:
        if name not in self._instances:
            factory = self.factories[name]()
            self._instances[name] = factory(self.options)
        return self._instances[name]

    def unavailable(self, name: str) -> str | None:
        """None when ``name`` can compile here, else why not (import failures included)."""
        if name in self._load_errors:
            return self._load_errors[name]
        try:
            return self.get(name).available()
        except Exception as exc:  # a backend whose own imports fail is unavailable, not a crash
            self._load_errors[name] = f"backend {name!r} failed to load: {type(exc).__name__}: {exc}"
            return self._load_errors[name]

    def loaded(self) -> dict[str, Backend]:
        return dict(self._instances)
