"""Ops whose output shape depends on their input data (GE's type III ops,
Note [Data-dependent shapes] in ge.engine.dds): execute allocates an upper
bound and writes the real shape; downstream nodes and the graph outputs see
it, run after run with different real sizes; models refuse such graphs;
non-tensor host inputs (GE's input_kinds) are given to execute on the host."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _rt_support import ge_api, registries, unique  # noqa: F401

import ge.es._op_api as api
import ge.es.math as m
from ge.custom_op import get_execute_ctx, register_op, register_op_impl
from ge.engine.compiler import compile_graph
from ge.engine.dds import DataDependentGraph
from ge.engine.errors import ExecuteError
from ge.es import GraphBuilder
from ge.graph import DataType, Graph, Tensor
from ge.graph.attrs import AttrType
from ge.offline.compile import OfflineError, compile_model
from ge.runtime import Shape, TensorDesc, TensorPlacement
from ge.runtime import Tensor as RtTensor

pytestmark = pytest.mark.usefixtures("registries")


def _positive_op(op_type: str, write: Any = None) -> api.OpDef:
    """y = the positive elements of float32 x (1-D), shape [-1]; ``write``
    replaces the shape execute writes."""

    @register_op(op_type=op_type, output_names=("y",))
    def infer(x: TensorDesc) -> TensorDesc:
        return TensorDesc([-1], x.data_type)

    @register_op_impl(op_type=op_type)
    class Impl:
        def execute(self, x: RtTensor) -> None:
            ctx = get_execute_ctx()
            n = x.shape_size
            y = ctx.malloc_output_tensor(0, [n], x.format, x.data_type)
            found = x.numpy()[x.numpy() > 0]
            buffer = np.zeros(n, np.float32)
            buffer[: found.size] = found
            y.copy_from(buffer)
            real = Shape([found.size]) if write is None else write(n, found.size)
            y.shape.set_origin_shape(real)
            y.shape.set_storage_shape(real)

    return api.OpDef(
        op_type,
        inputs=(api.Input("x", "float32"),),
        outputs=(api.Output("y", "float32"),),
    )


def _chain(op: api.OpDef, n: int) -> Graph:
    """x -> Positive -> Exp -> Mul(., 2) (outputs: y, the product, and Neg(x))."""
    b = GraphBuilder(unique("dds"))
    x = b.create_input(0, shape=[n])
    y = op.build(inputs={"x": x}, name="positive")
    z = m.Mul(m.Exp(y), b.create_const_float([2.0], [1]), name="scaled")
    return b.build_and_reset([y, z, m.Neg(x, name="neg")])


def _want(x: np.ndarray) -> list[np.ndarray]:
    y = x[x > 0]
    return [y, np.exp(y) * np.float32(2.0), -x]


def test_dds_op_in_a_chain_over_runs_of_different_real_sizes(
    ge_api: Any,
) -> None:
    from ge.session import Session

    op = _positive_op(unique("Positive"))
    session = Session({})
    session.add_graph(0, _chain(op, 6))
    rng = np.random.default_rng(7)
    sizes = set()
    for k in range(6):
        x = rng.standard_normal(6).astype(np.float32)
        x[: k % 3] = -1.0  # at least 0, 1 or 2 negatives
        if k == 5:
            x[:] = -1.0  # an empty result
        outputs = session.run_graph(0, [Tensor.from_numpy(x)])
        for got, want in zip(outputs, _want(x)):
            assert got.shape == list(want.shape)
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
        sizes.add(outputs[0].shape[0])
    assert len(sizes) >= 3 and 0 in sizes
    assert isinstance(session.compiled(0), DataDependentGraph)


def test_dds_graph_into_callers_outputs_on_a_stream(ge_api: Any) -> None:
    from ge.device import rt
    from ge.session import Session

    op = _positive_op(unique("Positive"))
    session = Session({})
    session.add_graph(3, _chain(op, 4))
    stream = rt.create_stream()
    try:
        for x in ([1.0, -2.0, 3.0, 4.0], [-1.0, -2.0, 5.0, -4.0]):
            array = np.array(x, np.float32)
            outputs = session.run_graph_with_stream_async(
                3, stream, [Tensor.from_numpy(array)]
            )
            for got, want in zip(outputs, _want(array)):
                np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    finally:
        rt.destroy_stream(stream)


def test_two_dds_ops_in_sequence() -> None:
    op = _positive_op(unique("Positive"))
    neg = _positive_op(unique("Positive"))
    b = GraphBuilder(unique("dds2"))
    x = b.create_input(0, shape=[5])
    y = op.build(inputs={"x": x}, name="first")
    z = neg.build(
        inputs={"x": m.Sub(y, b.create_const_float([2.0], [1]))}, name="second"
    )
    compiled = compile_graph(b.build_and_reset([z]))
    for values in ([1.0, 3.0, -1.0, 5.0, 2.5], [4.0, 4.0, 4.0, 4.0, 4.0], [-1.0] * 5):
        a = np.array(values, np.float32)
        (got,) = compiled.run([Tensor.from_numpy(a)])
        d = a[a > 0] - 2.0
        np.testing.assert_array_equal(got.numpy(), d[d > 0])


def test_real_shape_larger_than_the_allocation_is_an_execute_error() -> None:
    op_type = unique("Positive")
    op = _positive_op(op_type, write=lambda n, k: Shape([n + 1]))
    compiled = compile_graph(_chain(op, 3))
    with pytest.raises(ExecuteError) as info:
        compiled.run([Tensor.from_numpy(np.ones(3, np.float32))])
    text = str(info.value)
    assert f"node 'positive' ({op_type}) output 0" in text
    assert "the real shape [4]" in text and "allocate the upper bound" in text


def test_real_shape_of_another_rank_is_an_execute_error() -> None:
    op_type = unique("Positive")
    op = _positive_op(op_type, write=lambda n, k: Shape([1, k]))
    compiled = compile_graph(_chain(op, 3))
    with pytest.raises(ExecuteError, match=r"wrote the shape \[1, 3\], which is not"):
        compiled.run([Tensor.from_numpy(np.ones(3, np.float32))])


def test_shapes_of_other_ops_are_read_only() -> None:
    op_type = unique("Plain")
    seen: list[str] = []

    @register_op(op_type=op_type, output_names=("y",))
    def infer(x: TensorDesc) -> TensorDesc:
        return TensorDesc(x.shape, x.data_type)

    @register_op_impl(op_type=op_type)
    class Impl:
        def execute(self, x: RtTensor) -> None:
            y = get_execute_ctx().malloc_output_tensor(
                0, x.shape, x.format, x.data_type
            )
            try:
                y.shape.set_origin_shape(Shape([1]))
            except RuntimeError as exc:
                seen.append(str(exc))
            y.copy_from(x.numpy())

    op = api.OpDef(
        op_type,
        inputs=(api.Input("x", "float32"),),
        outputs=(api.Output("y", "float32"),),
    )
    b = GraphBuilder(unique("plain"))
    graph = b.build_and_reset([op.build(inputs={"x": b.create_input(0, shape=[2])})])
    compile_graph(graph).run([Tensor.from_numpy(np.ones(2, np.float32))])
    assert seen and "read-only" in seen[0] and "unknown dim (-1)" in seen[0]


def test_model_file_refuses_a_dds_graph(tmp_path: Path) -> None:
    op = _positive_op(unique("Positive"))
    with pytest.raises(OfflineError) as info:
        compile_model(_chain(op, 4), tmp_path / "m.om")
    text = str(info.value)
    assert "node 'positive'" in text and "runs online only" in text
    assert "a model file holds no Python" in text and "no compiler" in text
    assert not (tmp_path / "m.om").exists()


def test_non_tensor_host_input_is_read_on_the_host() -> None:
    """GE's input_kinds: an input whose kind is at least the non-tensor base
    (3 unless _custom_op_non_tensor_kind_base says) is a host value."""
    op_type = unique("TakeFirst")
    placements: list[TensorPlacement] = []

    @register_op(op_type=op_type, output_names=("y",))
    def infer(x: TensorDesc, k: TensorDesc) -> TensorDesc:
        return TensorDesc([-1], x.data_type)

    @register_op_impl(op_type=op_type)
    class Impl:
        def execute(self, x: RtTensor, k: RtTensor) -> None:
            placements.extend([x.placement, k.placement])
            count = int(k.numpy().reshape(-1)[0])  # read on the host
            y = get_execute_ctx().malloc_output_tensor(
                0, x.shape, x.format, x.data_type
            )
            y.copy_from(x.numpy())
            y.shape.set_storage_shape(Shape([count]))

    op = api.OpDef(
        op_type,
        inputs=(api.Input("x", "float32"), api.Input("k", "int32")),
        outputs=(api.Output("y", "float32"),),
    )
    b = GraphBuilder(unique("host_input"))
    x = b.create_input(0, shape=[6])
    k = b.create_input(1, shape=[1], data_type=DataType.DT_INT32)
    y = op.build(inputs={"x": x, "k": k}, name="take")
    graph = b.build_and_reset([m.Abs(y)])
    (node,) = [n for n in graph.nodes if n.name == "take"]
    node.attrs["input_kinds"] = (AttrType.LIST_INT, (0, 3))
    compiled = compile_graph(graph)
    a = np.array([-1.0, 2.0, -3.0, 4.0, -5.0, 6.0], np.float32)
    for count in (2, 5, 0):
        (got,) = compiled.run(
            [Tensor.from_numpy(a), Tensor.from_numpy(np.array([count], np.int32))]
        )
        np.testing.assert_array_equal(got.numpy(), np.abs(a[:count]))
    assert placements[:2] == [TensorPlacement.kOnDeviceHbm, TensorPlacement.kOnHost]
    node.attrs["_custom_op_non_tensor_kind_base"] = (AttrType.INT, 4)
    placements.clear()
    compile_graph(graph).run(
        [Tensor.from_numpy(a), Tensor.from_numpy(np.array([1], np.int32))]
    )
    assert placements == [TensorPlacement.kOnDeviceHbm, TensorPlacement.kOnDeviceHbm]
