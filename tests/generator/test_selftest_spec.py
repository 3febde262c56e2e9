"""reference, samples and tolerance as the model holds them
(docs/spec-reference.md, "reference, samples, tolerance")."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ge_ir.types import DataType
from gen_ops import pipeline
from gen_ops.base.diagnostics import Sink
from gen_ops.spec import discovery
from gen_ops.spec.model import OpSpec

ROOT = Path(__file__).resolve().parents[2]


def load(name: str) -> OpSpec:
    sink = Sink()
    (op,) = pipeline.load_and_check(
        discovery.discover([ROOT / "specs" / name], sink), sink
    )
    assert not sink.has_errors
    return op


def test_scale_custom_keys() -> None:
    op = load("scale_custom.yaml")
    assert op.reference is not None and not op.reference.function
    assert op.reference.text.startswith("x * np.float32(alpha)")
    samples = op.samples
    assert samples is not None
    assert samples.shapes[0] == (("x", ("64*k",)),)
    assert samples.shapes[1] == (("x", ("64*k",)), ("bias", ("64*k",)))
    assert samples.dims == (1, 40)
    assert samples.attrs == (("alpha", (1.0, -2.5, 0.0)),)
    assert "nan" in samples.values.special and "denormal" in samples.values.special
    short, mismatched = samples.errors
    assert short.raises == "ValueError" and short.match == "multiple of 64"
    assert mismatched.shapes == (("x", (64,)), ("bias", (128,)))
    assert op.tolerance == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        samples.dims = (0, 1)  # type: ignore[misc]


def test_function_reference_dynamic_shapes_and_tolerance() -> None:
    op = load("reduce_sum_custom.yaml")
    assert op.reference is not None and op.reference.function
    assert op.reference.text == "ops.custom._reference:reduce_sum"
    by_dtype = {t.dtype: (t.atol, t.rtol) for t in op.tolerance}
    assert by_dtype[DataType.DT_FLOAT16] == (0.01, 0.002)
    concat = load("concat_custom.yaml")
    assert concat.samples is not None
    assert concat.samples.shapes[0] == (("x", (("a", "b"), ("c", "b"), ("d", "b"))),)


def test_specs_without_the_keys_have_none() -> None:
    op = load("attr_zoo_custom.yaml")
    assert op.reference is None and op.samples is None and op.tolerance == ()


def test_subgraph_op_samples_name_their_graph_function() -> None:
    op = load("if_custom.yaml")
    assert op.samples is not None
    assert op.samples.graphs == "ops.control._samples:if_custom"
    assert load("scale_custom.yaml").samples.graphs is None  # type: ignore[union-attr]


def test_math_specs_all_have_references() -> None:
    for path in sorted((ROOT / "specs").glob("math_*.yaml")):
        op = load(path.name)
        assert op.reference is not None and op.samples is not None, path.name
