"""Shared test helpers: paths, rendering specs in memory, clean registries."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


@pytest.fixture(autouse=True)
def _private_spec_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test's gen-ops runs (in-process or not) keep models in a spec
    cache of their own, never the user's (Note [Spec cache])."""
    directory = tmp_path_factory.mktemp("gen-ops-cache")
    monkeypatch.setenv("GEN_OPS_CACHE_DIR", str(directory))


@pytest.fixture
def clean_registries() -> Iterator[None]:
    """Empty op prototype and implementation registries around a test."""
    from ge.custom_op import clear_registered_op_impls, clear_registered_op_protos

    clear_registered_op_protos()
    clear_registered_op_impls()
    yield
    clear_registered_op_protos()
    clear_registered_op_impls()


# HYPOTHESIS_PROFILE=thorough runs many more random examples than CI does.
from hypothesis import settings  # noqa: E402

settings.register_profile("ci", max_examples=30, deadline=None)
settings.register_profile("thorough", max_examples=400, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
