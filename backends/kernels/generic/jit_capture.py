"""The PrimFunc of a factory that compiles inside: a function that defines a ``@tilelang.jit``
kernel and returns it compiled, as tilelang's upstream Ascend examples do
(``return _build()``).  Compiling there needs the device compiler (bisheng) on the machine
that only lowers; tlbench wants the PrimFunc, which it compiles itself.

Contract: ``call_capturing(call)`` runs ``call()`` with tilelang's jit ``compile`` answering,
on this thread only, with the PrimFunc it was about to compile (``JITImpl.get_tir``) instead
of compiling it: the first jit compile the call reaches ends the call, and its PrimFunc is
returned.  A call that compiles nothing returns its own result (a PrimFunc, a jit, a compiled
``JITKernel`` whose ``prim_func`` the caller takes).  Other threads, and this thread outside
the call, compile as usual: the wrapper installed on ``JITImpl.compile`` (once per process,
under a lock) only answers differently while its thread is capturing.  The inner jit's own
``pass_configs`` are not read from here: give them to ``kernel_sweep(pass_configs=...)``.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

_STATE = threading.local()  # .capturing: True on a thread inside call_capturing
_INSTALL = threading.Lock()


class _Captured(Exception):
    """Ends the factory's call at its jit compile, carrying the PrimFunc it was about to compile."""

    def __init__(self, func: Any) -> None:
        super().__init__("tlbench took the PrimFunc of a jit compile (not an error)")
        self.func = func


def _install() -> None:
    from tilelang.jit import JITImpl

    with _INSTALL:
        if getattr(JITImpl.compile, "_tlbench_capturing", False):
            return
        original = JITImpl.compile

        def compile(self: Any, *args: Any, **kwargs: Any) -> Any:
            if getattr(_STATE, "capturing", False):
                raise _Captured(self.get_tir(*args, **kwargs))
            return original(self, *args, **kwargs)

        compile._tlbench_capturing = True  # type: ignore[attr-defined]
        compile.__wrapped__ = original  # type: ignore[attr-defined]
        compile.__doc__ = original.__doc__
        JITImpl.compile = compile


def call_capturing(call: Callable[[], Any]) -> Any:
    """``call()``'s result, or the PrimFunc of the first jit compile it reached (see the module)."""
    _install()
    before = getattr(_STATE, "capturing", False)
    _STATE.capturing = True
    try:
        return call()
    except _Captured as captured:
        return captured.func
    finally:
        _STATE.capturing = before
