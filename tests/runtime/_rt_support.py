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

_counter = itertools.count()


def unique(prefix: str) -> str:
    """A name no other test (in any process) uses: op types, graph names.

    Needed because generated-style ``OpDef`` tables live in a process-wide
    dict keyed by op type (first definition wins).
    """
    return f"{prefix}_{os.getpid()}_{next(_counter)}"


@pytest.fixture
def registries(clean_registries: None) -> Iterator[None]:
    """Empty op registries for the test (conftest's clean_registries) and no
    ASCEND_CUSTOM_OPP_PATH path remembered as loaded.

    Clearing a registry also forgets the modules that registered, so op
    modules other tests use register again when they are next imported or
    loaded; nothing is put back by hand (that would leave registrations
    whose modules are gone).
    """
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
