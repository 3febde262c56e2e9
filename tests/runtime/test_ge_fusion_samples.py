"""GE's own Python fusion-pass samples, run unchanged against this runtime
(bench/ge_fusion_samples.py says what is set up around them), when GE's
source mirror is present: GE_MIRROR names a bare git dir of hicann/ge. CI has
no mirror, so these are skipped there; tests/runtime/test_ge_sample_passes.py
runs every pass form they use, and the ops they build with, without it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location(
    "ge_fusion_samples", ROOT / "bench" / "ge_fusion_samples.py"
)
assert spec is not None and spec.loader is not None
samples = importlib.util.module_from_spec(spec)
sys.modules["ge_fusion_samples"] = samples  # its dataclass looks itself up
spec.loader.exec_module(samples)

HAVE_MIRROR = (samples.MIRROR / "HEAD").exists()


@pytest.mark.skipif(
    not HAVE_MIRROR,
    reason="no GE mirror (set GE_MIRROR to a bare git dir of hicann/ge)",
)
@pytest.mark.parametrize("path", samples.sample_files() if HAVE_MIRROR else [])
def test_a_ge_sample_rewrites_and_keeps_the_numbers(path: str) -> None:
    from ge.ge_global import GeApi, is_initialized

    if not is_initialized():
        GeApi().ge_initialize({"ge.exec.deviceId": "0"})
    outcome = samples.run_sample(path)
    assert outcome.ok, outcome.why
    assert outcome.rewrites >= 1
