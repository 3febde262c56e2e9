"""Shared helpers for the runtime API tests (tests/runtime/test_*.py).

A module rather than a conftest.py, so it cannot collide with other files in
this directory: test modules import what they use, fixtures included.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator

import pytest

import ge.ge_global as ge_global
from ge.custom_op import bootstrap
from ge.custom_op import proto as _proto
from ge.custom_op import registry as _registry

_counter = itertools.count()


def unique(prefix: str) -> str:
    """A name no other test (in any process) uses: op types, graph names.

    Needed because generated-style ``OpDef`` tables live in a process-wide
    dict keyed by op type (first definition wins).
    """
    return f"{prefix}_{os.getpid()}_{next(_counter)}"


@pytest.fixture
def _saved_registries() -> Iterator[None]:
    """Put back whatever other modules had registered once the test is done
    (clean_registries empties the registries before and after a test)."""
    protos = dict(_proto.REGISTRY.by_type)
    impls = dict(_registry.REGISTRY.by_type)
    imported = set(bootstrap._imported)
    yield
    with _proto.REGISTRY.lock:
        _proto.REGISTRY.by_type.clear()
        _proto.REGISTRY.by_type.update(protos)
    with _registry.REGISTRY.lock:
        _registry.REGISTRY.by_type.clear()
        _registry.REGISTRY.by_type.update(impls)
    bootstrap._imported.clear()
    bootstrap._imported.update(imported)


@pytest.fixture
def registries(_saved_registries: None, clean_registries: None) -> Iterator[None]:
    """Empty op registries (conftest's clean_registries) for the test, and no
    ASCEND_CUSTOM_OPP_PATH paths remembered as loaded; the state other tests
    of this worker set up comes back afterwards."""
    bootstrap.reset_loaded_paths()
    yield


@pytest.fixture
def ge_api(monkeypatch: pytest.MonkeyPatch) -> Iterator[ge_global.GeApi]:
    """GeApi initialised with GE's sample options; the previous global state
    comes back afterwards. Compiles load ASCEND_CUSTOM_OPP_PATH, so it is
    unset here."""
    monkeypatch.delenv("ASCEND_CUSTOM_OPP_PATH", raising=False)
    saved = ge_global._options
    api = ge_global.GeApi()
    api.ge_initialize({"ge.exec.deviceId": "0", "ge.graphRunMode": "1"})
    yield api
    ge_global._options = saved
