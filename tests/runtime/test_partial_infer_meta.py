"""infer_meta rules with only a dtype (or only a shape) for an output.

tests/golden/specs/top_k.yaml declares TopK's dtypes and leaves its shapes,
which depend on k, to the implementation; quantize.yaml declares y's shape and
leaves its dtype. The generated code (the committed goldens) is imported and
run: the builders record the declared dtypes, the prototype computes what the
spec says and asks the implementation's infer_shapes / infer_dtypes for the
rest, and a graph of TopKOp compiles and runs in a Session.
"""

from __future__ import annotations

import ctypes
import inspect
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from _rt_support import ge_api, registries, unique  # noqa: F401
from helpers import ROOT, import_file, render_tree, write_tree

from ge.custom_op import get_execute_ctx, register_op_impl
from ge.es import GraphBuilder
from ge.ge_global import GeApi
from ge.graph import DataType, Tensor
from ge.runtime import Tensor as RuntimeTensor
from ge.runtime import TensorDesc
from ge.session import Session

GOLDEN = ROOT / "tests/golden/expected/python"
NUMPY = {
    DataType.DT_FLOAT: np.float32,
    DataType.DT_FLOAT16: np.float16,
    DataType.DT_INT32: np.int32,
    DataType.DT_INT64: np.int64,
    DataType.DT_INT8: np.int8,
    DataType.DT_UINT8: np.uint8,
}


def _builder(stem: str) -> ModuleType:
    return import_file(GOLDEN / f"ge/es/golden/{stem}.py")


def _impl(stem: str) -> ModuleType:
    return import_file(GOLDEN / f"ge_impl/golden/{stem}.py")


def _array(tensor: RuntimeTensor) -> np.ndarray:
    """A runtime tensor's buffer as a writable numpy array."""
    buffer = (ctypes.c_char * tensor.size).from_address(tensor.addr)
    return np.frombuffer(buffer, dtype=NUMPY[tensor.data_type]).reshape(
        tensor.storage_shape.dims
    )


def _dims(desc: TensorDesc) -> list[int]:
    return list(desc.shape.origin_shape.dims)


def test_builders_record_the_declared_dtypes() -> None:
    top_k = _builder("top_k_op")
    builder = GraphBuilder()
    x = builder.create_input(0, data_type=DataType.DT_FLOAT16, shape=[2, 5])
    values, indices = top_k.TopKOp(x, k=3)
    assert values.data_type is DataType.DT_FLOAT16  # dtype: x
    assert indices.data_type is DataType.DT_INT32  # attr(index_dtype), default
    wide = top_k.TopKOp(x, k=3, index_dtype=DataType.DT_INT64)
    assert wide.indices.data_type is DataType.DT_INT64
    with pytest.raises(ValueError, match=r"TopKOp: attr 'index_dtype'.*bool"):
        top_k.TopKOp(x, k=3, index_dtype=DataType.DT_BOOL)
    quantize = _builder("quantize_op")
    y, scale = quantize.QuantizeOp(x)
    assert scale.data_type is DataType.DT_FLOAT  # a full rule
    assert y.data_type is DataType.DT_UNDEFINED  # left to the implementation


def test_the_skeleton_asks_for_exactly_the_undeclared_part() -> None:
    top_k = _impl("top_k_op")
    base = top_k.TopKOpBase
    assert inspect.isabstract(base)
    assert "infer_shapes" in base.__abstractmethods__
    assert "infer_dtypes" not in dir(base) and "infer_meta" not in dir(base)
    shapes = inspect.signature(base.infer_shapes)
    assert str(shapes) == (
        "(x: 'TensorDesc', *, k: 'int', index_dtype: 'DataType') "
        "-> 'tuple[list[int], list[int]]'"
    )
    assert "shapes of outputs values, indices" in (base.infer_shapes.__doc__ or "")
    quantize = _impl("quantize_op")
    assert str(inspect.signature(quantize.QuantizeOpBase.infer_dtypes)) == (
        "(x: 'TensorDesc', *, mode: 'str') -> 'DataType'"
    )
    assert "infer_shapes" not in dir(quantize.QuantizeOpBase)


def test_the_prototype_computes_what_it_can_and_asks_the_author(
    registries: None,
) -> None:
    top_k = _impl("top_k_op")
    x = TensorDesc([2, 5], DataType.DT_FLOAT16)
    with pytest.raises(
        NotImplementedError,
        match=r"^TopKOp leaves the shapes of values, indices to its implementation: "
        r"define infer_shapes in a subclass of TopKOpBase$",
    ):
        top_k.top_k_op_infer_meta(x, k=3)
    seen: list[Any] = []

    class Author(top_k.TopKOpBase):  # type: ignore[misc, name-defined]
        @staticmethod
        def infer_shapes(
            x: TensorDesc, *, k: int, index_dtype: DataType
        ) -> tuple[list[int], list[int]]:
            seen.append((k, index_dtype))
            dims = _dims(x)
            return dims[:-1] + [k], dims[:-1] + [k]

        def execute(self, x: RuntimeTensor, *, k: int, index_dtype: DataType) -> None:
            raise AssertionError("not run here")

    values, indices = top_k.top_k_op_infer_meta(x, k=3, index_dtype=DataType.DT_INT64)
    assert seen == [(3, DataType.DT_INT64)]
    assert (_dims(values), values.data_type) == ([2, 3], DataType.DT_FLOAT16)
    assert (_dims(indices), indices.data_type) == ([2, 3], DataType.DT_INT64)

    quantize = _impl("quantize_op")

    class QuantizeAuthor(quantize.QuantizeOpBase):  # type: ignore[misc, name-defined]
        @staticmethod
        def infer_dtypes(x: TensorDesc, *, mode: str) -> DataType:
            return DataType.DT_UINT8 if mode == "unsigned" else DataType.DT_INT8

        def execute(self, x: RuntimeTensor, *, mode: str) -> None:
            raise AssertionError("not run here")

    y, scale = quantize.quantize_op_infer_meta(
        TensorDesc([4, 2], DataType.DT_FLOAT), mode="unsigned"
    )
    assert (_dims(y), y.data_type) == ([4, 2], DataType.DT_UINT8)
    assert (_dims(scale), scale.data_type) == ([], DataType.DT_FLOAT)


def _register_top_k(top_k: ModuleType) -> None:
    @register_op_impl(op_type="TopKOp")
    class TopK(top_k.TopKOpBase):  # type: ignore[misc, name-defined]
        @staticmethod
        def infer_shapes(
            x: TensorDesc, *, k: int, index_dtype: DataType
        ) -> tuple[list[int], list[int]]:
            dims = _dims(x)
            if not dims or not 1 <= k <= dims[-1]:
                raise ValueError(f"k={k} does not fit the last dim of {dims}")
            return dims[:-1] + [k], dims[:-1] + [k]

        def execute(self, x: RuntimeTensor, *, k: int, index_dtype: DataType) -> None:
            ctx = get_execute_ctx()
            data = _array(x)
            order = np.argsort(-data, axis=-1, kind="stable")[..., :k]
            shape = list(order.shape)
            values = ctx.malloc_output_tensor(0, shape, x.format, x.data_type)
            indices = ctx.malloc_output_tensor(1, shape, x.format, index_dtype)
            _array(values)[...] = np.take_along_axis(data, order, axis=-1)
            _array(indices)[...] = order


@pytest.fixture
def session(ge_api: GeApi, registries: None) -> Iterator[Session]:
    yield Session()


@pytest.mark.parametrize(
    "dtype, index_dtype",
    [
        (DataType.DT_FLOAT, DataType.DT_INT32),
        (DataType.DT_FLOAT16, DataType.DT_INT64),
    ],
)
def test_a_graph_of_the_generated_top_k_runs(
    session: Session, dtype: DataType, index_dtype: DataType
) -> None:
    _register_top_k(_impl("top_k_op"))
    top_k = _builder("top_k_op")
    builder = GraphBuilder(unique("topk"))
    x = builder.create_input(0, data_type=dtype, shape=[3, 6])
    first = top_k.TopKOp(x, k=4, index_dtype=index_dtype)
    second = top_k.TopKOp(first.values, k=2)  # chained: dtype from the first
    graph = builder.build_and_reset([first.values, first.indices, second.indices])
    session.add_graph(0, graph)
    rng = np.random.default_rng(8)
    data = rng.permutation(18).reshape(3, 6).astype(NUMPY[dtype])
    values, indices, top2 = session.run_graph(0, [Tensor.from_numpy(data)])
    order = np.argsort(-data, axis=-1, kind="stable")[:, :4]
    assert values.data_type is dtype and indices.data_type is index_dtype
    assert np.array_equal(values.numpy(), np.take_along_axis(data, order, axis=-1))
    assert np.array_equal(indices.numpy(), order)
    assert top2.data_type is DataType.DT_INT32
    assert np.array_equal(top2.numpy(), np.tile([0, 1], (3, 1)))


DYNAMIC = """\
op: SplitTagged
module: partial
inputs:
  - {name: x, dtype: float32}
outputs:
  - {name: parts, dtype: float32, dynamic: true, count: attr(num)}
  - {name: tags, dtype: [int32, int64], dynamic: true, count: attr(num)}
attrs:
  - {name: num, type: int}
infer_meta:
  parts: {dtype: x}
  tags: {shape: same_as(x)}
impl:
  capabilities: [execute]
"""


def test_dynamic_outputs_take_one_value_per_instance_from_the_author(
    tmp_path: Path, registries: None
) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs/split_tagged.yaml").write_text(DYNAMIC)
    write_tree(render_tree(tmp_path / "specs"), tmp_path / "out")
    module = import_file(tmp_path / "out/python/ge_impl/partial/split_tagged.py")

    class Author(module.SplitTaggedBase):  # type: ignore[misc, name-defined]
        @staticmethod
        def infer_shapes(x: TensorDesc, *, num: int) -> list[list[int]]:
            return [[i + 1] for i in range(num)]

        @staticmethod
        def infer_dtypes(x: TensorDesc, *, num: int) -> list[DataType]:
            return [DataType.DT_INT32, DataType.DT_INT64][:num]

        def execute(self, x: RuntimeTensor, *, num: int) -> None:
            raise AssertionError("not run here")

    parts, tags = module.split_tagged_infer_meta(
        TensorDesc([7], DataType.DT_FLOAT), num=2
    )
    assert [(_dims(d), d.data_type) for d in parts] == [
        ([1], DataType.DT_FLOAT),
        ([2], DataType.DT_FLOAT),
    ]
    assert [(_dims(d), d.data_type) for d in tags] == [
        ([7], DataType.DT_INT32),
        ([7], DataType.DT_INT64),
    ]
