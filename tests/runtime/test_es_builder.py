"""ge.es: GraphBuilder, TensorHolder, attr_scope, cross-builder checks and
the ge.es.plugins entry points (docs/ge-compat.md, "ES graph building")."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest
from _rt_support import unique

import ge.es
import ge.es._op_api as api
from ge.es import GraphBuilder, TensorHolder, attr_scope
from ge.es.graph_builder import InputType
from ge.graph import DataType, Format, Graph, Tensor
from ge.graph.attrs import AttrType

BUILT = "GraphBuilder has already been built"


def _add_op() -> api.OpDef:
    return api.OpDef(
        unique("EsAdd"),
        type_vars={"T": ("float32", "float16")},
        inputs=(api.Input("x", "T"), api.Input("y", "T")),
        outputs=(api.Output("z", "T"),),
    )


# --- GraphBuilder: construction -------------------------------------------------


def test_builder_name() -> None:
    assert GraphBuilder().name == "graph"
    assert GraphBuilder(None).name == "graph"
    assert GraphBuilder("mine").name == "mine"
    assert repr(GraphBuilder("mine")) == "GraphBuilder('mine', 0 nodes)"
    with pytest.raises(TypeError, match="GraphBuilder name must be str, got int"):
        GraphBuilder(3)  # type: ignore[arg-type]


def test_builder_cannot_be_copied() -> None:
    builder = GraphBuilder()
    with pytest.raises(TypeError, match="a GraphBuilder cannot be copied"):
        copy.copy(builder)
    with pytest.raises(TypeError, match="a GraphBuilder cannot be copied"):
        copy.deepcopy(builder)


# --- inputs ------------------------------------------------------------------------


def test_create_input_defaults() -> None:
    builder = GraphBuilder()
    x = builder.create_input(0)
    assert isinstance(x, TensorHolder)
    assert x.name == "input_0" and x.index == 0
    assert x.node.type == "Data"
    assert x.data_type is DataType.DT_FLOAT
    assert x.format is Format.FORMAT_ND
    assert x.shape == []  # None means a scalar
    assert x.node.attrs == {"index": (AttrType.INT, 0)}
    assert x.get_owner_builder() is builder


def test_create_input_with_every_keyword() -> None:
    builder = GraphBuilder()
    x = builder.create_input(
        0,
        name="images",
        type_str=InputType.REF_DATA,
        data_type=DataType.DT_INT8,
        format=Format.FORMAT_NCHW,
        shape=[2, -1, -2],
    )
    assert (x.name, x.node.type, x.data_type, x.format, x.shape) == (
        "images",
        "RefData",
        DataType.DT_INT8,
        Format.FORMAT_NCHW,
        [2, -1, -2],
    )
    assert builder.create_input(1, type_str="AippData").node.type == "AippData"
    assert builder.create_input(2, shape=(np.int64(3),)).shape == [3]


def test_input_types_are_ges_strings() -> None:
    assert {m.name: m.value for m in InputType} == {
        "DATA": "Data",
        "REF_DATA": "RefData",
        "AIPP_DATA": "AippData",
        "ANY_DATA": "AnyData",
    }


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "message"),
    [
        ((0,), {}, ValueError, "graph 'graph' already has input 0"),
        ((-1,), {}, ValueError, "input index must be >= 0, got -1"),
        ((True,), {}, TypeError, "index must be an int, got bool"),
        (("1",), {}, TypeError, "index must be an int, got str"),
        ((1,), {"type_str": "Bogus"}, ValueError, "'Bogus' is not a valid InputType"),
        ((1,), {"data_type": 0}, TypeError, "data_type must be a DataType, got int"),
        ((1,), {"format": 2}, TypeError, "format must be a Format, got int"),
        ((1,), {"shape": [-3]}, ValueError, r"invalid shape \[-3\]"),
        ((1,), {"shape": [2.0]}, TypeError, "shape dim must be an int, got float"),
        ((1,), {"shape": "ab"}, TypeError, "shape dim must be an int, got str"),
        ((1,), {"name": "input_0"}, ValueError, "already has a node named 'input_0'"),
        ((1,), {"name": ""}, TypeError, "node name must be a non-empty str"),
    ],
)
def test_create_input_errors(
    args: tuple, kwargs: dict, error: type, message: str
) -> None:
    builder = GraphBuilder()
    builder.create_input(0)
    with pytest.raises(error, match=message):
        builder.create_input(*args, **kwargs)
    # A refused input leaves nothing behind.
    assert [n.name for n in builder._graph.nodes] == ["input_0"]  # type: ignore[union-attr]


def test_create_inputs() -> None:
    builder = GraphBuilder()
    holders = builder.create_inputs(3)
    assert [h.name for h in holders] == ["input_0", "input_1", "input_2"]
    assert all(h.data_type is DataType.DT_FLOAT and h.shape == [] for h in holders)
    more = builder.create_inputs(2, start_index=3)
    assert [h.node.get_attr("index") for h in more] == [3, 4]
    assert builder.create_inputs(0) == []
    with pytest.raises(ValueError, match="num must be >= 0"):
        builder.create_inputs(-1)
    with pytest.raises(ValueError, match="already has input 4"):
        builder.create_inputs(1, start_index=4)
    with pytest.raises(TypeError, match="num must be an int, got float"):
        builder.create_inputs(1.0)  # type: ignore[arg-type]


# --- constants ----------------------------------------------------------------------


def _value(holder: TensorHolder) -> np.ndarray:
    assert holder.node.type == "Const"
    tensor = holder.node.get_attr("value")
    assert isinstance(tensor, Tensor)
    return tensor.numpy()


@pytest.mark.parametrize(
    ("method", "dtype"),
    [
        ("create_const_int64", DataType.DT_INT64),
        ("create_const_int32", DataType.DT_INT32),
        ("create_const_uint64", DataType.DT_UINT64),
        ("create_const_uint32", DataType.DT_UINT32),
        ("create_const_float", DataType.DT_FLOAT),
    ],
)
def test_create_const_forms(method: str, dtype: DataType) -> None:
    builder = GraphBuilder()
    create = getattr(builder, method)
    scalar = create(7)
    assert scalar.data_type is dtype and scalar.shape == []
    assert _value(scalar).tolist() == 7
    vector = create([1, 2, 3])
    assert vector.shape == [3] and _value(vector).tolist() == [1, 2, 3]
    matrix = create([1, 2, 3, 4, 5, 6], shape=[2, 3])
    assert matrix.shape == [2, 3]
    assert _value(matrix).tolist() == [[1, 2, 3], [4, 5, 6]]
    filled = create(5, shape=[2, 2])  # one value fills the shape
    assert _value(filled).tolist() == [[5, 5], [5, 5]]
    assert create([], shape=[0]).shape == [0]
    assert _value(matrix).dtype == np.dtype(
        {
            DataType.DT_INT64: np.int64,
            DataType.DT_INT32: np.int32,
            DataType.DT_UINT64: np.uint64,
            DataType.DT_UINT32: np.uint32,
            DataType.DT_FLOAT: np.float32,
        }[dtype]
    )
    with pytest.raises(ValueError, match=r"3 values do not fill shape \[2, 2\]"):
        create([1, 2, 3], shape=[2, 2])
    with pytest.raises(
        TypeError, match="const value must be a number or a list, got bool"
    ):
        create(True)
    with pytest.raises(
        TypeError, match="const value must be a number or a list, got str"
    ):
        create("1")
    with pytest.raises(ValueError, match="irregular nested list"):
        create([[1, 2], [3]])


def test_const_values_out_of_range_are_refused() -> None:
    builder = GraphBuilder()
    with pytest.raises(ValueError, match="does not fit in DT_INT32"):
        builder.create_const_int32(2**40)
    with pytest.raises(ValueError, match="-1 does not fit in DT_UINT32"):
        builder.create_const_uint32(-1)
    with pytest.raises(ValueError, match="does not fit in DT_UINT64"):
        builder.create_scalar_uint64(-5)
    assert _value(builder.create_const_uint64(2**64 - 1)).tolist() == 2**64 - 1
    assert _value(builder.create_const_int32([-(2**31), 2**31 - 1])).tolist() == [
        -(2**31),
        2**31 - 1,
    ]


def test_create_vector_int64() -> None:
    builder = GraphBuilder()
    vector = builder.create_vector_int64([4, 5, 6])
    assert vector.data_type is DataType.DT_INT64 and vector.shape == [3]
    assert _value(vector).tolist() == [4, 5, 6]
    assert builder.create_vector_int64(()).shape == [0]
    with pytest.raises(TypeError, match="create_vector_int64 expects a list of ints"):
        builder.create_vector_int64(3)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("method", "dtype"),
    [
        ("create_scalar_int64", DataType.DT_INT64),
        ("create_scalar_int32", DataType.DT_INT32),
        ("create_scalar_uint64", DataType.DT_UINT64),
        ("create_scalar_uint32", DataType.DT_UINT32),
        ("create_scalar_float", DataType.DT_FLOAT),
    ],
)
def test_create_scalar_forms(method: str, dtype: DataType) -> None:
    builder = GraphBuilder()
    create = getattr(builder, method)
    scalar = create(3)
    assert scalar.data_type is dtype and scalar.shape == []
    assert _value(scalar).tolist() == 3
    with pytest.raises(TypeError, match="scalar must be a number, got bool"):
        create(True)
    with pytest.raises(TypeError, match="scalar must be a number, got list"):
        create([1])


def test_create_const_from_a_tensor_and_unique_names() -> None:
    builder = GraphBuilder()
    a = builder.create_const(Tensor(b"\x00\x01", data_type=DataType.DT_BF16, shape=[1]))
    b = builder.create_const_float(1.0)
    c = builder.create_const(Tensor([1.0]), name="named")
    assert (a.name, b.name, c.name) == ("Const_0", "Const_1", "named")
    assert a.data_type is DataType.DT_BF16
    with pytest.raises(
        TypeError, match="create_const expects a ge.graph.Tensor, got list"
    ):
        builder.create_const([1.0])  # type: ignore[arg-type]


def test_generated_names_skip_names_taken_explicitly() -> None:
    builder = GraphBuilder()
    builder.create_const(Tensor([1.0]), name="Const_0")
    assert builder.create_const_float(2.0).name == "Const_1"
    with pytest.raises(
        ValueError, match="graph 'graph' already has a node named 'Const_1'"
    ):
        builder.create_const(Tensor([1.0]), name="Const_1")
    assert builder.create_const_float(3.0).name == "Const_2"


# --- outputs, attributes, control ------------------------------------------------------


def test_set_graph_output_and_build() -> None:
    builder = GraphBuilder("g")
    x, y = builder.create_inputs(2)
    builder.set_graph_output(y, 1)
    builder.set_graph_output(x, 0)
    builder.set_graph_output(x, 1)  # the last one set for an index wins
    graph = builder.build_and_reset()
    assert isinstance(graph, Graph) and graph.name == "g"
    assert [(n.name, i) for n, i in graph.outputs] == [("input_0", 0), ("input_0", 0)]


@pytest.mark.parametrize(
    ("index", "error", "message"),
    [
        (-1, ValueError, "output_index must be >= 0"),
        (True, TypeError, "output_index must be an int, got bool"),
        (1.0, TypeError, "output_index must be an int, got float"),
    ],
)
def test_set_graph_output_index_errors(index, error: type, message: str) -> None:  # type: ignore[no-untyped-def]
    builder = GraphBuilder()
    x = builder.create_input(0)
    with pytest.raises(error, match=message):
        builder.set_graph_output(x, index)


def test_set_graph_output_needs_a_holder_with_data() -> None:
    builder = GraphBuilder()
    with pytest.raises(TypeError, match="graph output must be a TensorHolder, got int"):
        builder.set_graph_output(1, 0)  # type: ignore[arg-type]
    op = api.OpDef(unique("Sink"), inputs=(api.Input("x", "float32"),))
    sink = op.build(inputs={"x": builder.create_input(0)})
    assert sink.index == -1
    with pytest.raises(ValueError, match=f"node '{sink.name}' has no data output"):
        builder.set_graph_output(sink, 0)
    with pytest.raises(ValueError, match="has no data output"):
        sink.shape  # noqa: B018


def test_outputs_must_be_numbered_from_zero() -> None:
    builder = GraphBuilder()
    x = builder.create_input(0)
    builder.set_graph_output(x, 1)
    with pytest.raises(
        ValueError, match=r"graph outputs must be numbered 0..n-1, got \[1\]"
    ):
        builder.build_and_reset()
    builder.set_graph_output(x, 0)
    assert len(builder.build_and_reset().outputs) == 2


def test_inputs_must_be_numbered_from_zero() -> None:
    builder = GraphBuilder()
    builder.create_input(1)
    with pytest.raises(
        ValueError, match=r"graph inputs must be numbered 0..n-1, got \[1\]"
    ):
        builder.build_and_reset()
    builder.create_input(0)
    graph = builder.build_and_reset()
    assert [n.get_attr("index") for n in graph.input_nodes] == [0, 1]


def test_build_and_reset_outputs_are_numbered_in_order() -> None:
    builder = GraphBuilder()
    a, b, c = builder.create_inputs(3)
    graph = builder.build_and_reset([c, a, b])
    assert [n.name for n, _ in graph.outputs] == ["input_2", "input_0", "input_1"]


def test_a_failed_build_changes_nothing() -> None:
    builder = GraphBuilder()
    x, y = builder.create_inputs(2)
    builder.set_graph_output(y, 0)
    with pytest.raises(
        TypeError, match=r"outputs\[1\] must be a TensorHolder, got int"
    ):
        builder.build_and_reset([x, 1])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="outputs must be a list of TensorHolder"):
        builder.build_and_reset(x)  # type: ignore[arg-type]
    builder.set_graph_output(y, 3)
    with pytest.raises(ValueError, match=r"numbered 0..n-1, got \[0, 1, 3\]"):
        builder.build_and_reset([x, x])
    del builder._outputs[3]
    graph = builder.build_and_reset()  # still usable, output 0 still y
    assert [n.name for n, _ in graph.outputs] == ["input_1"]


def test_builder_is_unusable_after_build() -> None:
    builder = GraphBuilder()
    x = builder.create_input(0)
    other = GraphBuilder().create_input(0)
    builder.build_and_reset([x])
    calls = [
        lambda: builder.create_input(1),
        lambda: builder.create_inputs(1, start_index=1),
        lambda: builder.create_const_int64(1),
        lambda: builder.create_const_float(1.0),
        lambda: builder.create_vector_int64([1]),
        lambda: builder.create_scalar_int32(1),
        lambda: builder.create_const(Tensor([1.0])),
        lambda: builder.set_graph_output(x, 0),
        lambda: builder.set_graph_attr_int64("a", 1),
        lambda: builder.set_graph_attr_string("a", "s"),
        lambda: builder.set_graph_attr_bool("a", True),
        lambda: builder.set_node_attr_int64(x, "a", 1),
        lambda: builder.set_node_attr_string(x, "a", "s"),
        lambda: builder.set_node_attr_bool(x, "a", True),
        lambda: builder.set_tensor_attr_int64(x, "a", 1),
        lambda: builder.set_tensor_attr_string(x, "a", "s"),
        lambda: builder.set_tensor_attr_bool(x, "a", True),
        lambda: builder.add_control_dependency(x, [x]),
        lambda: builder.build_and_reset(),
        lambda: x.shape,
        lambda: x.data_type,
        lambda: x.set_shape([1]),
        lambda: x.set_data_type(DataType.DT_INT8),
        lambda: x.set_format(Format.FORMAT_NCHW),
        lambda: _add_op().build(inputs={"x": x, "y": x}),
    ]
    for call in calls:
        with pytest.raises(RuntimeError, match=BUILT):
            call()
    assert x.name == "input_0"  # the name is still known
    assert x.get_owner_builder() is builder
    assert repr(builder) == "GraphBuilder('graph', built)"
    assert other.shape == []


def test_graph_node_and_tensor_attrs() -> None:
    builder = GraphBuilder()
    x = builder.create_input(0)
    builder.set_graph_attr_int64("iterations", 2**63 - 1)
    builder.set_graph_attr_string("mode", "train")
    builder.set_graph_attr_bool("flag", False)
    builder.set_node_attr_int64(x, "_priority", -3)
    builder.set_node_attr_string(x, "_label", "in")
    builder.set_node_attr_bool(x, "_keep", True)
    builder.set_tensor_attr_int64(x, "align", 64)
    builder.set_tensor_attr_string(x, "layout", "row")
    builder.set_tensor_attr_bool(x, "pinned", True)
    graph = builder.build_and_reset([x])
    assert graph.attrs == {
        "iterations": (AttrType.INT, 2**63 - 1),
        "mode": (AttrType.STR, "train"),
        "flag": (AttrType.BOOL, False),
    }
    node = graph.find_node_by_name("input_0")
    assert node is not None
    assert node.attrs == {
        "index": (AttrType.INT, 0),
        "_priority": (AttrType.INT, -3),
        "_label": (AttrType.STR, "in"),
        "_keep": (AttrType.BOOL, True),
        "0:align": (AttrType.INT, 64),  # tensor attrs live on the producer
        "0:layout": (AttrType.STR, "row"),
        "0:pinned": (AttrType.BOOL, True),
    }


@pytest.mark.parametrize(
    ("method", "value", "error", "message"),
    [
        ("set_graph_attr_int64", 2**63, ValueError, "does not fit in int64"),
        ("set_graph_attr_int64", True, TypeError, "expected int, got bool"),
        ("set_graph_attr_int64", 1.5, TypeError, "expected int, got float"),
        ("set_graph_attr_string", 3, TypeError, "expected str, got int"),
        ("set_graph_attr_bool", 1, TypeError, "expected bool, got int"),
    ],
)
def test_graph_attr_type_errors(method: str, value, error: type, message: str) -> None:  # type: ignore[no-untyped-def]
    builder = GraphBuilder()
    with pytest.raises(error, match=message):
        getattr(builder, method)("a", value)
    with pytest.raises(TypeError, match="attr name must be a non-empty str"):
        getattr(builder, method)("", value)


def test_node_and_tensor_attr_errors() -> None:
    builder = GraphBuilder()
    x = builder.create_input(0)
    with pytest.raises(TypeError, match="expected str, got int"):
        builder.set_node_attr_string(x, "a", 1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expected bool, got int"):
        builder.set_tensor_attr_bool(x, "a", 0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="tensor must be a TensorHolder, got str"):
        builder.set_node_attr_int64("input_0", "a", 1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="attr name must be a non-empty str"):
        builder.set_node_attr_int64(x, 5, 1)  # type: ignore[arg-type]


def test_add_control_dependency() -> None:
    builder = GraphBuilder()
    a, b, c = builder.create_inputs(3)
    builder.add_control_dependency(c, [a, b])
    builder.add_control_dependency(c, (a,))  # already there: not added twice
    assert [n.name for n in c.node.control_inputs] == ["input_0", "input_1"]
    with pytest.raises(ValueError, match="a node cannot depend on itself"):
        builder.add_control_dependency(a, [a])
    with pytest.raises(TypeError, match="src_tensors must be a list of TensorHolder"):
        builder.add_control_dependency(a, b)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"src_tensors\[0\] must be a TensorHolder"):
        builder.add_control_dependency(a, ["input_1"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="dst_tensor must be a TensorHolder"):
        builder.add_control_dependency(None, [a])  # type: ignore[arg-type]
    graph = builder.build_and_reset([c])
    assert (
        "input_2 = Data() -> (float32[]) {index=2} after input_0, input_1"
        in graph.dump()
    )


# --- cross-builder use ----------------------------------------------------------------


def test_builder_methods_refuse_tensors_of_another_builder() -> None:
    mine, theirs = GraphBuilder("mine"), GraphBuilder("theirs")
    x = mine.create_input(0)
    foreign = theirs.create_input(0)
    expected = "belongs to graph builder 'theirs', not to 'mine'"
    with pytest.raises(ValueError, match=f"graph output {expected}"):
        mine.set_graph_output(foreign, 0)
    with pytest.raises(ValueError, match=rf"src_tensors\[0\] {expected}"):
        mine.add_control_dependency(x, [foreign])
    with pytest.raises(ValueError, match=f"dst_tensor {expected}"):
        mine.add_control_dependency(foreign, [x])
    with pytest.raises(ValueError, match=f"tensor {expected}"):
        mine.set_node_attr_int64(foreign, "a", 1)
    with pytest.raises(ValueError, match=f"tensor {expected}"):
        mine.set_tensor_attr_int64(foreign, "a", 1)
    with pytest.raises(ValueError, match=rf"outputs\[0\] {expected}"):
        mine.build_and_reset([foreign])
    assert foreign.node.attrs == {"index": (AttrType.INT, 0)}


def test_op_functions_refuse_mixed_builders() -> None:
    op = _add_op()
    mine, theirs = GraphBuilder("mine"), GraphBuilder("theirs")
    x = mine.create_input(0)
    y = theirs.create_input(0)
    with pytest.raises(
        ValueError,
        match=(
            f"{op.op_type}: input 'y': belongs to graph builder 'theirs', but input "
            "'x' to 'mine'; one node takes tensors of one builder"
        ),
    ):
        op.build(inputs={"x": x, "y": y})
    with pytest.raises(ValueError, match="cannot tell which graph builder to use"):
        op.build(inputs={"x": 1.0, "y": 2.0})
    z = op.build(inputs={"x": x, "y": 2.0})  # a number becomes a Const of x's builder
    assert z.get_owner_builder() is mine
    assert [e.node.type for e in z.node.inputs] == ["Data", "Const"]
    assert len(theirs._graph.nodes) == 1  # type: ignore[union-attr]


# --- TensorHolder ------------------------------------------------------------------------


def test_tensor_holder_is_not_constructible() -> None:
    message = "TensorHolder is created by GraphBuilder and op functions"
    with pytest.raises(TypeError, match=message):
        TensorHolder()
    with pytest.raises(TypeError, match=message):
        TensorHolder(GraphBuilder(), None, 0)


def test_tensor_holder_setters_chain() -> None:
    builder = GraphBuilder()
    x = builder.create_input(0)
    same = (
        x.set_shape([2, -1])
        .set_format(Format.FORMAT_NHWC)
        .set_data_type(DataType.DT_INT8)
    )
    assert same is x
    assert (x.shape, x.format, x.data_type) == (
        [2, -1],
        Format.FORMAT_NHWC,
        DataType.DT_INT8,
    )
    assert x.set_shape((3,)).shape == [3]
    assert x.set_shape([]).shape == []
    assert repr(x) == "TensorHolder(input_0:0)"
    graph = builder.build_and_reset([x])
    assert graph.input_nodes[0].outputs[0].dtype is DataType.DT_INT8


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (
            lambda x: x.set_shape("ab"),
            TypeError,
            "set_shape expects a list of ints, got str",
        ),
        (
            lambda x: x.set_shape(3),
            TypeError,
            "set_shape expects a list of ints, got int",
        ),
        (lambda x: x.set_shape([1.0]), TypeError, "shape dims must be ints, got float"),
        (lambda x: x.set_shape([True]), TypeError, "shape dims must be ints, got bool"),
        (
            lambda x: x.set_shape([-3]),
            ValueError,
            r"invalid dim -3 \(use -1 for unknown\)",
        ),
        (lambda x: x.set_format(1), TypeError, "set_format expects a Format, got int"),
        (
            lambda x: x.set_data_type(0),
            TypeError,
            "set_data_type expects a DataType, got int",
        ),
        (
            lambda x: x.set_data_type(DataType.DT_MAX),
            ValueError,
            "DT_MAX is not a data type",
        ),
        (
            lambda x: x.set_data_type(DataType.DT_UNDEFINED),
            ValueError,
            "DT_UNDEFINED is not a data type",
        ),
    ],
)
def test_tensor_holder_setter_errors(call, error: type, message: str) -> None:  # type: ignore[no-untyped-def]
    x = GraphBuilder().create_input(0, shape=[4])
    with pytest.raises(error, match=message):
        call(x)
    assert (x.shape, x.data_type, x.format) == (
        [4],
        DataType.DT_FLOAT,
        Format.FORMAT_ND,
    )


def test_op_outputs_and_holders() -> None:
    op = _add_op()
    builder = GraphBuilder()
    x = builder.create_input(0, data_type=DataType.DT_FLOAT16)
    z = op.build(inputs={"x": x, "y": x}, name="sum")
    assert z.name == "sum" and z.index == 0
    assert z.data_type is DataType.DT_FLOAT16  # bound type variable
    assert z.shape is None  # not inferred while building
    auto = op.build(inputs={"x": z, "y": x})
    assert auto.name == f"{op.op_type}_0"


# --- attr_scope ---------------------------------------------------------------------------


def test_attr_scope_applies_to_nodes_created_inside() -> None:
    op = _add_op()
    builder = GraphBuilder()
    x = builder.create_input(0)
    with attr_scope({"_stream": 1, "_tag": "outer"}):
        outer = op.build(inputs={"x": x, "y": x})
        with attr_scope({"_tag": "inner", "_ratio": 0.5}):
            inner = op.build(inputs={"x": x, "y": x})
            const = builder.create_const_float(1.0)
        back = op.build(inputs={"x": x, "y": x})
    after = op.build(inputs={"x": x, "y": x})
    assert outer.node.attrs == {
        "_stream": (AttrType.INT, 1),
        "_tag": (AttrType.STR, "outer"),
    }
    assert inner.node.attrs == {
        "_stream": (AttrType.INT, 1),
        "_tag": (AttrType.STR, "inner"),
        "_ratio": (AttrType.FLOAT, 0.5),
    }
    assert const.node.attrs["_tag"] == (AttrType.STR, "inner")
    assert back.node.attrs["_tag"] == (AttrType.STR, "outer")
    assert "_ratio" not in back.node.attrs
    assert after.node.attrs == {}
    assert x.node.attrs == {"index": (AttrType.INT, 0)}


def test_integer_constants_refuse_fractions_and_shapes_take_numpy_ints() -> None:
    builder = GraphBuilder()
    for make, message in [
        (lambda: builder.create_scalar_int32(1.5), "1.5 is not a whole number; int32"),
        (lambda: builder.create_vector_int64([1.0, 2.5]), "2.5 is not a whole number"),
        (lambda: builder.create_const_uint32(float("nan")), "nan is not a whole"),
        (lambda: builder.create_const_int64([1.0, float("inf")]), "inf is not"),
    ]:
        with pytest.raises(ValueError, match=message):
            make()
    assert builder.create_scalar_int32(2.0).node.get_attr("value").data == [2]
    x = builder.create_input(0).set_shape([np.int64(3), np.int32(-1)])
    assert x.node.outputs[0].shape == (3, -1)
    assert all(type(d) is int for d in x.node.outputs[0].shape)


def test_attr_scope_never_overrides_an_ops_own_attrs() -> None:
    from ge.es.custom import ScaleCustom

    builder = GraphBuilder()
    x = builder.create_input(0, shape=[2])
    with attr_scope({"alpha": 9.0, "index": 7, "_tag": "s"}):
        y = ScaleCustom(x, alpha=2.0)
        data = builder.create_input(1)
    assert y.node.attrs["alpha"] == (AttrType.FLOAT, 2.0)
    assert y.node.attrs["_tag"] == (AttrType.STR, "s")
    assert data.node.attrs["index"] == (AttrType.INT, 1)


def test_attr_scope_is_thread_local() -> None:
    seen: dict[str, dict] = {}
    ready, done = threading.Event(), threading.Event()

    def other_thread() -> None:
        ready.wait(5)
        seen["other"] = dict(GraphBuilder().create_input(0).node.attrs)
        done.set()

    thread = threading.Thread(target=other_thread)
    thread.start()
    with attr_scope({"_mine": True}):
        ready.set()
        done.wait(5)
        seen["main"] = dict(GraphBuilder().create_input(0).node.attrs)
    thread.join(5)
    assert seen["other"] == {"index": (AttrType.INT, 0)}
    assert seen["main"] == {"index": (AttrType.INT, 0), "_mine": (AttrType.BOOL, True)}


def test_attr_scope_restores_after_an_exception() -> None:
    with pytest.raises(KeyError):
        with attr_scope({"_a": 1}):
            raise KeyError("x")
    assert GraphBuilder().create_input(0).node.attrs == {"index": (AttrType.INT, 0)}


def test_attr_scope_argument_errors() -> None:
    with pytest.raises(TypeError, match="attr_scope expects a dict, got list"):
        with attr_scope([("a", 1)]):  # type: ignore[arg-type]
            pass
    with pytest.raises(TypeError, match="attr_scope keys must be str"):
        with attr_scope({1: 2}):  # type: ignore[dict-item]
            pass


def test_a_bad_scoped_value_leaves_the_builder_unchanged() -> None:
    builder = GraphBuilder()
    with attr_scope({"_bad": object()}):
        with pytest.raises(TypeError, match="object is not an attr value"):
            builder.create_input(0)
    x = builder.create_input(0)  # neither the index nor the name was taken
    assert x.name == "input_0"
    assert [n.name for n in builder._graph.nodes] == ["input_0"]  # type: ignore[union-attr]


# --- plugins ---------------------------------------------------------------------------------


def test_plugin_queries_in_process() -> None:
    assert isinstance(ge.es.list_plugins(), list)
    assert ge.es.get_plugin("surely_not_a_plugin_name") is None
    for name in (
        "GraphBuilder",
        "TensorHolder",
        "attr_scope",
        "list_plugins",
        "get_plugin",
    ):
        assert name in ge.es.__all__


def _write_dist(site: Path, entries: dict[str, str]) -> None:
    package = site / "es_plugin_pkg_t"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent("""
            VALUE = 42
            NAME = "es_plugin_pkg_t.sub"
            NOT_A_MODULE = 7

            def get_module():
                import es_plugin_pkg_t
                return es_plugin_pkg_t

            def get_name():
                return "es_plugin_pkg_t.sub"

            def explode():
                raise RuntimeError("plugin factory failed")
            """))
    (package / "sub.py").write_text("def Split(*args):\n    return 'split'\n")
    dist = site / "es_plugin_dist_t-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: es-plugin-dist-t\nVersion: 1.0\n"
    )
    lines = "".join(f"{name} = {target}\n" for name, target in entries.items())
    (dist / "entry_points.txt").write_text("[ge.es.plugins]\n" + lines)


def test_entry_point_plugins_join_ge_es_and_broken_ones_do_not_break_import(
    tmp_path: Path,
) -> None:
    site = tmp_path / "site"
    _write_dist(
        site,
        {
            "mod": "es_plugin_pkg_t",
            "factory": "es_plugin_pkg_t:get_module",
            "byname": "es_plugin_pkg_t:NAME",
            "namefactory": "es_plugin_pkg_t:get_name",
            "missing": "no_such_module_for_ge_tests",
            "notmod": "es_plugin_pkg_t:NOT_A_MODULE",
            "raising": "es_plugin_pkg_t:explode",
            "GraphBuilder": "es_plugin_pkg_t",
            "load_plugins": "es_plugin_pkg_t",
        },
    )
    script = textwrap.dedent("""
        import json, sys
        import ge.es
        from ge.es.mod import VALUE
        from ge.es.byname import Split
        import ge.es.factory as factory
        print(json.dumps({
            "plugins": ge.es.list_plugins(),
            "all": ge.es.__all__,
            "value": VALUE,
            "split": Split(),
            "factory_is_module": factory is sys.modules["es_plugin_pkg_t"],
            "same_attr": ge.es.mod is ge.es.get_plugin("mod"),
            "missing": ge.es.get_plugin("missing"),
            "builder": ge.es.GraphBuilder.__module__,
            "load_plugins": callable(ge.es.load_plugins),
            "sub": sys.modules["ge.es.namefactory"].__name__,
        }))
        """)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(site)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["plugins"] == ["byname", "factory", "mod", "namefactory"]
    assert report["all"][-4:] == ["byname", "factory", "mod", "namefactory"]
    assert report["value"] == 42 and report["split"] == "split"
    assert report["factory_is_module"] and report["same_attr"]
    assert report["missing"] is None
    assert report["builder"] == "ge.es.graph_builder"  # not replaced by a plugin
    assert report["load_plugins"]
    assert report["sub"] == "es_plugin_pkg_t.sub"
    errors = [line for line in result.stderr.splitlines() if line.startswith("[ERROR]")]
    assert len(errors) == 5
    assert all(
        line.startswith("[ERROR] [ge.es._plugin_loader] plugin '") for line in errors
    )
    text = "\n".join(errors)
    assert "plugin 'missing': No module named 'no_such_module_for_ge_tests'" in text
    assert "plugin 'notmod': plugin object is int, not a module" in text
    assert "plugin 'raising': plugin factory failed" in text
    for name in ("GraphBuilder", "load_plugins"):
        assert (
            f"plugin '{name}': module '{name}' is taken by the runtime: "
            f"ge.es.{name} is ge.es' own"
        ) in text
        assert "group ge.es.plugins) and reinstall it; skipped" in text
