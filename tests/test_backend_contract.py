"""Every backend class the project ships, and the tests' own stand-ins, answer each method of
the harness's ``Backend`` protocol (harness/core/backend_api.py) with a signature that binds
the arguments the protocol declares: the same parameter names in the same order, defaults
where the protocol has them.  The device path calls these only on a machine with an
accelerator, so a signature that drifted would otherwise first fail there (a ``make_inputs``
that lost its ``config`` failed every tile-dependent input on a GPU while every CPU test was
green).  Signatures are read with ``inspect``; nothing is compiled or run.
"""

import importlib
import inspect

import pytest

from tlbench.harness.core.backend_api import Backend

PROTOCOL_METHODS = sorted(
    name for name, member in vars(Backend).items()
    if callable(member) and not name.startswith("_")
)

SHIPPED = ["tlbench.backends.nvidia:NvidiaBackend", "tlbench.backends.ascend:AscendBackend",
           "fake_backend:FakeBackend", "cpu_torch_backend:CpuTorchBackend"]


def _load(spec):
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def _shape(function):
    params = list(inspect.signature(function).parameters.values())[1:]  # without self
    return [(p.name, p.kind, p.default is not inspect.Parameter.empty) for p in params]


def test_the_protocol_declares_the_device_methods():
    assert {"compile", "make_inputs", "check", "timer", "inspect"} <= set(PROTOCOL_METHODS)


@pytest.mark.parametrize("spec", SHIPPED)
@pytest.mark.parametrize("method", PROTOCOL_METHODS)
def test_a_backend_method_has_the_protocols_signature(spec, method):
    cls = _load(spec)
    if not hasattr(cls, method):
        pytest.fail(f"{spec} has no {method}()")
    member = getattr(cls, method)
    if not callable(member) or isinstance(inspect.getattr_static(cls, method), (property, staticmethod, classmethod)):
        pytest.skip(f"{spec}.{method} is not a plain method: its signature is not compared")
    want, have = _shape(getattr(Backend, method)), _shape(member)
    assert have[:len(want)] == want, f"{spec}.{method}{inspect.signature(member)} vs the protocol's {inspect.signature(getattr(Backend, method))}"
    assert all(has_default for _, _, has_default in have[len(want):]), f"{spec}.{method}: extra parameters need defaults"
