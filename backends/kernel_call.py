"""Calling a built tilelang kernel with a family's arguments, returned outputs included.

Contract: ``kernel_runner(kernel, args, write_outputs)`` returns the callable a backend checks or
times; parameters the kernel returns (its ``out_idx``) are left out of the call, and with
``write_outputs`` (the checked run) copied into the family's output buffer at that position.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence


def returned_outputs(kernel: Any, count: int) -> tuple[int, ...]:
    """The parameter positions the built kernel returns (its ``out_idx``), non-negative, sorted."""
    raw = getattr(kernel, "out_idx", None) or ()
    raw = [raw] if isinstance(raw, int) else list(raw)
    return tuple(sorted(i + count if i < 0 else i for i in raw))


def kernel_runner(kernel: Any, args: Sequence[Any], write_outputs: bool) -> Callable[[], Any]:
    args = tuple(args)
    outputs = returned_outputs(kernel, len(args))
    if not outputs:
        return lambda: kernel(*args)
    if outputs[-1] >= len(args):
        raise ValueError(f"the kernel returns parameter(s) {list(outputs)} but the family passes {len(args)} arguments: "
                         "kernel_args must list every parameter, outputs included")
    inputs = tuple(a for i, a in enumerate(args) if i not in outputs)
    if not write_outputs:
        return lambda: kernel(*inputs)

    def run() -> Any:
        result = kernel(*inputs)
        returned = tuple(result) if isinstance(result, (tuple, list)) else (result,)
        if len(returned) != len(outputs):
            raise ValueError(f"the kernel returned {len(returned)} tensor(s) for out_idx {list(outputs)}")
        for index, tensor in zip(outputs, returned):
            args[index].copy_(tensor)
        return result

    return run
