"""A hash of the kernel body's source, so every result names the code that produced it.

Contract: ``body_hash(kernel)`` is ``sha256:<hex>`` of the source file of the module that
defines the kernel body (``gemm`` -> ``backends/kernels/gemm/body.py``, ``flash_attention`` -> its shared body), read once per process;
None for a kernel with no body here (the vendor library).  A change anywhere in that file
changes the hash; other files (dialects, backends) do not.  ``modules_hash(names)`` is the
hash of a target-specific body spread over several modules (one module: ``module_hash``).
``backends_tree_hash()`` is the
hash of every ``.py`` file of the ``backends`` package (paths and contents), read once per
process: it changes with any code that could shape a kernel's IR (bodies, dialects,
families, backends), for caches that must never outlive such a change.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib import import_module
from importlib.util import find_spec
from pathlib import Path

BODY_MODULES = {"gemm": "tlbench.backends.kernels.gemm.body", "flash_attention": "tlbench.backends.kernels.flash_attention"}


@lru_cache(maxsize=None)
def _file_hash(path: str) -> str:
    return "sha256:" + hashlib.sha256(Path(path).read_bytes()).hexdigest()


def module_hash(module_name: str) -> str:
    """The hash of one module's source file (a target-specific body, e.g. the Hopper FA),
    found without importing the module (a body imports tilelang)."""
    spec = find_spec(module_name)
    if spec is None or not spec.origin:
        raise ModuleNotFoundError(f"no source file for module {module_name!r}")
    return _file_hash(str(Path(spec.origin).resolve()))


def modules_hash(module_names: tuple[str, ...]) -> str:
    """The hash of a body made of several modules (in order); one module's is ``module_hash``'s."""
    if len(module_names) == 1:
        return module_hash(module_names[0])
    joined = "\n".join(module_hash(name) for name in module_names)
    return "sha256:" + hashlib.sha256(joined.encode()).hexdigest()


@lru_cache(maxsize=None)
def backends_tree_hash() -> str:
    root = Path(import_module("backends").__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return "sha256:" + digest.hexdigest()


def body_hash(kernel: str) -> str | None:
    module_name = BODY_MODULES.get(kernel)
    return module_hash(module_name) if module_name else None
