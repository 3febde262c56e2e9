"""TensorHolder arithmetic (add/sub/mul/div, + - * / and the reflected
forms) through the math library, run against numpy; GE's rules for numbers
(a Const of the tensor's dtype) and builders (one builder per expression);
and DataType / Format printing their names."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from math_harness import math_session, run

from ge.es import GraphBuilder, TensorHolder
from ge.graph import DataType, Format
from ge.graph.numpy_dtypes import from_numpy_dtype
from ge.session import Session


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    with math_session() as s:
        yield s


def _input(builder: GraphBuilder, index: int, a: np.ndarray) -> TensorHolder:
    return builder.create_input(
        index, data_type=from_numpy_dtype(a.dtype), shape=list(a.shape)
    )


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32"])
def test_operators_and_methods_match_numpy(session: Session, dtype: str) -> None:
    rng = np.random.default_rng(7)
    if dtype == "int32":
        a = rng.integers(1, 50, size=(3, 4)).astype(dtype)
        b = rng.integers(1, 9, size=(4,)).astype(dtype)
    else:
        a = rng.uniform(0.5, 4, size=(3, 4)).astype(dtype)
        b = rng.uniform(0.5, 4, size=(4,)).astype(dtype)
    builder = GraphBuilder(f"arith_{dtype}")
    x, y = _input(builder, 0, a), _input(builder, 1, b)
    t = np.dtype(dtype).type
    cases: list[tuple[TensorHolder, np.ndarray]] = [
        (x + y, a + b),
        (x - y, a - b),
        (x * y, a * b),
        (x.add(y), a + b),
        (x.sub(y), a - b),
        (x.mul(y), a * b),
        (x + 2, a + t(2)),
        (3 + x, t(3) + a),
        (x - 1, a - t(1)),
        (10 - x, t(10) - a),
        (x * 2, a * t(2)),
        (2 * x, t(2) * a),
        (x * [1, 2, 3, 4], a * np.array([1, 2, 3, 4], dtype)),
        ((x + y) * x - y, (a + b) * a - b),
    ]
    if dtype == "int32":  # Div truncates toward zero
        cases += [(x / y, a // b), (x.div(y), a // b), (100 / y, t(100) // b)]
    else:
        cases += [
            (x / y, a / b),
            (x.div(y), a / b),
            (x / 4, a / t(4)),
            (1 / y, t(1) / b),
        ]
    for i, (node, _) in enumerate(cases):
        assert node.data_type == from_numpy_dtype(np.dtype(dtype))
        builder.set_graph_output(node, i)
    results = run(session, builder.build_and_reset(), [a, b])
    for i, ((_, want), got) in enumerate(zip(cases, results, strict=True)):
        assert got.dtype == np.dtype(dtype), i
        np.testing.assert_array_equal(got, want, err_msg=f"case {i}")


def test_numbers_become_constants_of_the_tensor_dtype() -> None:
    builder = GraphBuilder("consts")
    x = builder.create_input(0, data_type=DataType.DT_FLOAT16, shape=[2])
    (2.5 - x).set_shape([2])
    graph = builder.build_and_reset()
    (const,) = [n for n in graph.get_all_nodes() if n.type == "Const"]
    assert const.outputs[0].dtype is DataType.DT_FLOAT16
    (sub,) = [n for n in graph.get_all_nodes() if n.type == "Sub"]
    assert sub.type == "Sub"


def test_mixing_builders_raises() -> None:
    x = GraphBuilder("a").create_input(0, shape=[2])
    y = GraphBuilder("b").create_input(0, shape=[2])
    for apply in (
        lambda: x + y,
        lambda: y - x,
        lambda: x.mul(y),
        lambda: x / y,
    ):
        with pytest.raises(ValueError, match="different graph builders"):
            apply()


def test_other_operands_are_type_errors() -> None:
    x = GraphBuilder("t").create_input(0, shape=[2])
    with pytest.raises(TypeError):
        x + "1"
    with pytest.raises(TypeError):
        None * x
    with pytest.raises(TypeError):
        x + True
    with pytest.raises(TypeError, match="add"):
        x.add(object())  # type: ignore[arg-type]


def test_a_number_that_does_not_fit_the_dtype_is_refused() -> None:
    x = GraphBuilder("i").create_input(0, data_type=DataType.DT_INT32, shape=[2])
    with pytest.raises(ValueError, match="int32"):
        x + 2.5


def test_enums_print_their_ge_names() -> None:
    assert str(DataType.DT_FLOAT) == "DataType.DT_FLOAT"
    assert str(DataType.DT_BF16) == "DataType.DT_BF16"
    assert str(Format.FORMAT_NCHW) == "Format.FORMAT_NCHW"
    assert f"{DataType.DT_INT8!s}" == "DataType.DT_INT8"
    # numbers where a number is asked for, as IntEnum's int formatting
    assert f"{DataType.DT_INT8}" == "2"
    assert format(Format.FORMAT_ND, "03d") == "002"
    assert int(DataType.DT_DOUBLE) == 11
