"""How gen-ops test draws cases (docs/opcheck.md, "Writing samples"):
deterministic per seed, every combination covered, special values present,
dims tied to attrs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from gen_ops import optest, pipeline
from gen_ops.base.diagnostics import Sink
from gen_ops.spec import discovery
from gen_ops.spec.model import OpSpec, SampleValues

ROOT = Path(__file__).resolve().parents[2]


def load(name: str) -> OpSpec:
    sink = Sink()
    (op,) = pipeline.load_and_check(
        discovery.discover([ROOT / "specs" / name], sink), sink
    )
    return op


def test_cases_are_deterministic_per_seed() -> None:
    op = load("math_add.yaml")
    first = list(optest.enumerate_cases(op, 3))
    again = list(optest.enumerate_cases(op, 3))
    other = list(optest.enumerate_cases(op, 4))
    assert first == again
    assert [d.seed for d in first] != [d.seed for d in other]
    assert [d.index for d in first] == list(range(len(first)))


def test_every_combination_shape_rule_and_grid_point() -> None:
    op = load("math_exp.yaml")
    drawn = list(optest.enumerate_cases(op, 0))
    combos = {d.combo for d in drawn}
    assert {dict(c)["T"] for c in combos} >= {
        "float16",
        "float32",
        "float64",
        "bfloat16",
    }
    assert {d.rule for d in drawn} == {0, 1, 2}
    points = {d.attrs for d in drawn}
    assert len(points) == 8  # base x scale x shift, two values each


def test_dims_follow_attrs() -> None:
    op = load("split_custom.yaml")
    for drawn in optest.enumerate_cases(op, 0):
        case = optest.build_case(op, drawn)
        x = dict(case.inputs)["x"]
        num_split = dict(case.attrs)["num_split"]
        assert x.shape[0] % num_split == 0


def test_a_dtype_attr_takes_its_output_dtype() -> None:
    op = load("cast_custom.yaml")
    for drawn in optest.enumerate_cases(op, 0):
        case = optest.build_case(op, drawn)
        assert case.out_dtypes == (dict(case.attrs)["dst_type"],)


@given(
    st.sampled_from(
        ["float16", "float32", "float64", "int8", "int32", "uint8", "bool"]
    ),
    st.integers(min_value=12, max_value=40),
    st.integers(min_value=0, max_value=2**31),
)
def test_special_values_appear(name: str, size: int, seed: int) -> None:
    dtype = np.dtype(name)
    special = ("0", "-0.0", "inf", "nan", "min", "max", "one")
    a = optest._array(
        np.random.default_rng(seed), (size,), dtype, SampleValues(None, special)
    )
    assert a.dtype == dtype and a.shape == (size,)
    if dtype.kind == "f":
        assert np.isnan(a).any() and np.isinf(a).any()
        assert (np.signbit(a) & (a == 0)).any()  # -0.0
        assert (a == np.finfo(dtype).max).any()
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        assert (a == info.min).any() and (a == info.max).any()
    else:
        assert a.any()  # "one" is True


def _spec(tmp_path: Path, dtypes: str) -> OpSpec:
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "raw_neg.yaml").write_text(f"""op: RawNeg
module: custom
doc: Negation of the types held only as bytes.
dtypes:
  T: [{dtypes}]
inputs:
  - {{name: x, dtype: T, doc: The input.}}
outputs:
  - {{name: y, dtype: T, doc: The result.}}
reference: -x
samples:
  values: {{special: [0, nan, max, min, one, -one]}}
""")
    sink = Sink()
    (op,) = pipeline.load_and_check(discovery.discover([specs], sink), sink)
    assert not sink.has_errors, [d.format() for d in sink.sorted()]
    return op


def test_ml_dtypes_types_are_drawn_and_the_rest_listed_with_a_reason(
    tmp_path: Path,
) -> None:
    import ml_dtypes

    op = _spec(
        tmp_path, "float8_e4m3fn, float8_e5m2, int4, hifloat8, qint8, complex32, string"
    )
    every, left = optest.combos(op)
    assert [c["T"].spec_name for c in every] == ["float8_e4m3fn", "float8_e5m2", "int4"]
    assert set(left) == {"hifloat8", "qint8", "complex32", "string"}
    assert all(left.values())  # each with its reason
    assert "HiFloat" in left["hifloat8"] and "quantised" in left["qint8"]
    seen = set()
    for drawn in optest.enumerate_cases(op, 0):
        (x,) = [v for _, v in optest.build_case(op, drawn).inputs]
        seen.add(x.dtype.name)
        if x.dtype.name == "int4":
            info = ml_dtypes.iinfo(x.dtype)
            wide = x.astype(np.int8)
            assert (wide == info.min).any() and (wide == info.max).any()
        else:
            wide = x.astype(np.float32)
            assert np.isnan(wide).any()
            assert (wide == float(ml_dtypes.finfo(x.dtype).max)).any()
    assert seen == {"float8_e4m3fn", "float8_e5m2", "int4"}


def test_an_output_of_an_input_dtype_rule_takes_an_ml_dtypes_input_dtype() -> None:
    """TensorMove's y has x's dtype (``dtype: x``): a float8 x gives a float8
    y, read from the ml_dtypes array (it was an internal error)."""
    from ge.graph import DataType

    op = load("math_tensor_move.yaml")
    seen = set()
    for drawn in optest.enumerate_cases(op, 0):
        case = optest.build_case(op, drawn)
        (x,) = [v for _, v in case.inputs]
        if x.dtype.name.startswith("float8"):
            assert case.out_dtypes is not None
            (dtype,) = case.out_dtypes
            assert dtype is DataType[f"DT_{x.dtype.name.upper()}"]
            seen.add(x.dtype.name)
    assert seen == {"float8_e4m3fn", "float8_e5m2"}
