"""An output that may reuse an input's memory (Note [Reuse input] in
ge.engine.reuse): the memory plan shares the two only when nothing can see
it, and every result is numpy's.

The graphs use AnnotatedAddCustom (its spec says ``reuse_input: x1``) and
the math library's Add (``reuse_input: x1``, with broadcasting), and ops
registered here with and without ``reuse_inputs`` to compare plans."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _rt_support import device, unique
from math_harness import math_session

import ge.es._op_api as api
from ge.custom_op import (
    bootstrap,
    get_execute_ctx,
    get_registered_op_proto_by_op_type,
    register_op,
    register_op_impl,
)
from ge.device import rt
from ge.device.kernels import build_kernel
from ge.engine.compiled import CompiledGraph
from ge.engine.layout import ARENA
from ge.es import GraphBuilder, TensorHolder
from ge.ge_global import GeApi
from ge.graph import Graph, Tensor
from ge.runtime import Tensor as RuntimeTensor
from ge.runtime import TensorDesc
from ge.session import Session

ROOT = Path(__file__).resolve().parents[2]
ADD_OPS = ROOT / "examples/annotated_args_refresh/add_ops.py"
N = 4096  # AnnotatedAddCustom's kernel adds blocks of 1024 floats
NBYTES = 4 * N

KERNEL = r"""
#include "ge_kernel.h"

/* z = x + y over n floats */
GE_KERNEL(reuse_add,
          GE_IN(float, GE_COUNT_OF(3)),
          GE_IN(float, GE_COUNT_OF(3)),
          GE_OUT(float, GE_COUNT_OF(3)),
          GE_SCALAR()) {
  const float *x = GE_PTR(const float, 0), *y = GE_PTR(const float, 1);
  float *z = GE_PTR(float, 2);
  for (uint64_t i = 0; i < args[3]; ++i) z[i] = x[i] + y[i];
}
"""


@pytest.fixture(autouse=True)
def _unfused(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests plan the memory of the math library's kernels one by one:
    element-wise fusion (docs/compiler.md) would keep the intermediates they
    look at in registers."""
    monkeypatch.setenv("GE_CPU_FUSION", "0")


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    bootstrap.load_custom_op_plugins(str(ADD_OPS))
    GeApi().ge_initialize({"ge.exec.deviceId": "0"})
    yield Session({})


def data(seed: int, n: int = N) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(n).astype(np.float32)


_ids = iter(range(9000, 10000))


def compiled(session: Session, graph: Graph, arrays: list[np.ndarray]) -> Any:
    """Run ``graph`` on ``arrays``: (its outputs as numpy arrays, the
    compiled graph)."""
    graph_id = next(_ids)
    session.add_graph(graph_id, graph)
    outputs = session.run_graph(graph_id, [device(a) for a in arrays])
    return [o.numpy() for o in outputs], session.compiled(graph_id)


def placed(graph: CompiledGraph, producer: str) -> tuple[int, int]:
    """(buffer, offset) of the output of node ``producer``."""
    (info,) = [t for t in graph.tensors if t.producer == producer]
    return info.buffer, info.offset


def test_the_prototype_carries_the_spec_key() -> None:
    bootstrap.load_custom_op_plugins(str(ADD_OPS))
    proto = get_registered_op_proto_by_op_type("AnnotatedAddCustom")
    assert proto is not None
    assert [(o.name, o.reuse_input) for o in proto.outputs] == [("output0", "x1")]
    assert proto.as_dict()["outputs"][0]["reuse_input"] == "x1"


def test_a_chain_runs_in_one_arena_tensor(session: Session) -> None:
    from ge.es.custom import AnnotatedAddCustom

    builder = GraphBuilder(unique("chain"))
    a, b = builder.create_input(0, shape=[N]), builder.create_input(1, shape=[N])
    y = a
    for i in range(6):
        y = AnnotatedAddCustom(y, b, name=f"add{i}")
    graph = builder.build_and_reset([y])
    x1, x2 = data(1), data(2)
    (out,), plan = compiled(session, graph, [x1, x2])
    expected = x1
    for _ in range(6):
        expected = expected + x2
    np.testing.assert_array_equal(out, expected)
    # add0..add4 are intermediates: one tensor's memory, not two alternating.
    assert {placed(plan, f"add{i}") for i in range(5)} == {(ARENA, 0)}
    assert plan.arena.size == NBYTES
    assert placed(plan, "add5")[0] != ARENA  # the graph output's buffer


def test_an_input_read_later_is_not_reused(session: Session) -> None:
    """t2 = t1 + b cannot take t1's memory: t3 = t1 + t2 reads t1 after it.
    t3 may take t1's (its last reader), and t4 = t3 + t2 t3's."""
    from ge.es.custom import AnnotatedAddCustom

    builder = GraphBuilder(unique("branch"))
    a, b = builder.create_input(0, shape=[N]), builder.create_input(1, shape=[N])
    t1 = AnnotatedAddCustom(a, b, name="t1")
    t2 = AnnotatedAddCustom(t1, b, name="t2")
    t3 = AnnotatedAddCustom(t1, t2, name="t3")
    t4 = AnnotatedAddCustom(t3, t2, name="t4")
    graph = builder.build_and_reset([AnnotatedAddCustom(t4, b, name="out")])
    x1, x2 = data(3), data(4)
    (out,), plan = compiled(session, graph, [x1, x2])
    e1 = x1 + x2
    e2 = e1 + x2
    np.testing.assert_array_equal(out, ((e1 + e2) + e2) + x2)
    assert placed(plan, "t2") != placed(plan, "t1")
    assert placed(plan, "t3") == placed(plan, "t1") == placed(plan, "t4")
    assert plan.arena.size == 2 * NBYTES


def test_graph_inputs_outputs_and_constants_are_never_reused(
    session: Session,
) -> None:
    """The first add reads a graph input, the second a constant, the third
    a tensor that is also a graph output: each output gets memory of its
    own, and the caller's input, the constant and the first output keep
    their values."""
    from ge.es.custom import AnnotatedAddCustom

    builder = GraphBuilder(unique("kept"))
    a, b = builder.create_input(0, shape=[N]), builder.create_input(1, shape=[N])
    c = builder.create_const(Tensor(np.arange(N, dtype=np.float32)))
    first = AnnotatedAddCustom(a, b, name="first")
    second = AnnotatedAddCustom(c, first, name="second")
    third = AnnotatedAddCustom(second, b, name="third")
    fourth = AnnotatedAddCustom(third, b, name="fourth")
    graph = builder.build_and_reset([third, AnnotatedAddCustom(fourth, b)])
    x1, x2 = data(5), data(6)
    keep = x1.copy()
    session_inputs = [device(x1), device(x2)]
    graph_id = next(_ids)
    session.add_graph(graph_id, graph)
    for _ in range(2):  # the constant is read again by the second run
        outs = [o.numpy() for o in session.run_graph(graph_id, session_inputs)]
        e_third = (np.arange(N, dtype=np.float32) + (x1 + x2)) + x2
        np.testing.assert_array_equal(outs[0], e_third)
        np.testing.assert_array_equal(outs[1], (e_third + x2) + x2)
        np.testing.assert_array_equal(session_inputs[0].numpy(), keep)
    plan = session.compiled(graph_id)
    # first reads a graph input and second a constant: arena memory of
    # their own; third is a graph output, so fourth may not take it.
    assert placed(plan, "first")[0] == ARENA
    assert placed(plan, "second")[0] == ARENA
    assert placed(plan, "third")[0] != ARENA
    assert placed(plan, "fourth")[0] == ARENA


def test_a_broadcast_output_bigger_than_its_input_is_not_reused() -> None:
    """Add's output reuses x1 only when it fits: [2, N] + [N] can, [N] + [2, N]
    (x1 broadcast) cannot."""
    from ge.es.math import Add

    with math_session() as session:
        builder = GraphBuilder(unique("broadcast"))
        a = builder.create_input(0, shape=[2, N])
        b = builder.create_input(1, shape=[N])
        fits = Add(Add(a, a, name="wide"), b, name="fits")
        small = Add(Add(b, b, name="narrow"), a, name="grows")
        graph = builder.build_and_reset([Add(fits, small)])
        x1 = data(7, 2 * N).reshape(2, N)
        x2 = data(8)
        (out,), plan = compiled(session, graph, [x1, x2])
        np.testing.assert_array_equal(out, ((x1 + x1) + x2) + ((x2 + x2) + x1))
        assert placed(plan, "fits") == placed(plan, "wide")
        assert placed(plan, "grows") != placed(plan, "narrow")


def _add_op(reuse: bool) -> api.OpDef:
    """z = x + y by a C kernel on the execute path; with or without
    ``reuse_inputs={"z": "x"}``."""
    kernel = rt.binary_load(build_kernel(KERNEL, name="reuse_kernels")).get_function(
        "reuse_add"
    )
    op_type = unique("ReuseAdd" if reuse else "PlainAdd")
    op = api.OpDef(
        op_type,
        inputs=(api.Input("x", "float32"), api.Input("y", "float32")),
        outputs=(api.Output("z", "float32"),),
    )

    @register_op(
        op_type=op_type, output_names=("z",), reuse_inputs={"z": "x"} if reuse else None
    )
    def infer(x: TensorDesc, y: TensorDesc) -> TensorDesc:
        return TensorDesc(x.shape, x.data_type)

    def execute(self: Any, x: RuntimeTensor, y: RuntimeTensor) -> None:
        ctx = get_execute_ctx()
        z = ctx.malloc_output_tensor(0, x.shape, x.format, x.data_type)
        rt.launch(kernel, 1, ctx.get_stream(), [x.addr, y.addr, z.addr, x.shape_size])

    register_op_impl(op_type=op_type)(type("Impl", (), {"execute": execute}))
    return op


def _chain(op: api.OpDef, length: int) -> Graph:
    builder = GraphBuilder(unique("exec_chain"))
    y: TensorHolder = builder.create_input(0, shape=[N])
    b = builder.create_input(1, shape=[N])
    for i in range(length):
        y = op.build(inputs={"x": y, "y": b}, name=f"node{i}")
    return builder.build_and_reset([y])


def test_the_plan_is_smaller_with_reuse_and_the_numbers_are_the_same(
    session: Session,
) -> None:
    x1, x2 = data(9), data(10)
    expected = x1
    for _ in range(5):
        expected = expected + x2
    arenas = {}
    for reuse in (False, True):
        (out,), plan = compiled(session, _chain(_add_op(reuse), 5), [x1, x2])
        np.testing.assert_array_equal(out, expected)
        arenas[reuse] = plan.arena.size
    assert arenas == {False: 2 * NBYTES, True: NBYTES}


def test_an_absent_optional_input_is_not_reused(session: Session) -> None:
    """An optional input named by reuse_inputs: reused when given, and the
    output gets its own memory when it is absent."""
    op_type = unique("OptReuse")
    op = api.OpDef(
        op_type,
        inputs=(api.Input("x", "float32"), api.Input("b", "float32", optional=True)),
        outputs=(api.Output("y", "float32"),),
    )

    @register_op(op_type=op_type, output_names=("y",), reuse_inputs={"y": "b"})
    def infer(x: TensorDesc, b: TensorDesc | None) -> TensorDesc:
        return TensorDesc(x.shape, x.data_type)

    def execute(self: Any, x: RuntimeTensor, b: RuntimeTensor | None) -> None:
        ctx = get_execute_ctx()
        y = ctx.malloc_output_tensor(0, x.shape, x.format, x.data_type)
        bias = 0 if b is None else b.numpy()  # read before y is written
        y.copy_from(x.numpy() * 2 + bias)

    register_op_impl(op_type=op_type)(type("Impl", (), {"execute": execute}))
    builder = GraphBuilder(unique("optional"))
    a = builder.create_input(0, shape=[N])
    t = op.build(inputs={"x": a, "b": None}, name="absent")
    u = op.build(inputs={"x": a, "b": t}, name="given")
    graph = builder.build_and_reset([op.build(inputs={"x": u, "b": None})])
    x1 = data(11)
    (out,), plan = compiled(session, graph, [x1])
    np.testing.assert_array_equal(out, (x1 * 2 + x1 * 2) * 2)
    assert placed(plan, "given") == placed(plan, "absent")


@pytest.mark.parametrize(
    ("reuse", "message"),
    [
        (
            {"v": "x"},
            "reuse_inputs names output 'v', which the prototype does not have "
            "(outputs: z, w, k)",
        ),
        (
            {"z": "q"},
            "reuse_inputs: output 'z' names input 'q', which the prototype does "
            "not have (inputs: x, xs, k)",
        ),
        (
            {"z": "xs"},
            "reuse_inputs: output 'z' and input 'xs' must both be single tensors "
            "(not dynamic)",
        ),
        (
            {"k": "x"},
            "reuse_inputs: output 'k' is a ref output of input 'k', which shares "
            "its memory already",
        ),
        (
            {"z": "x", "w": "x"},
            "reuse_inputs: outputs 'z' and 'w' both take input 'x'; one input's "
            "memory can hold one output",
        ),
    ],
)
def test_register_op_refuses_reuse_it_cannot_honour(
    reuse: dict[str, str], message: str
) -> None:
    op_type = unique("BadReuse")
    with pytest.raises(ValueError) as caught:

        @register_op(op_type=op_type, output_names=("z", "w", "k"), reuse_inputs=reuse)
        def infer(
            x: TensorDesc, xs: list[TensorDesc], k: TensorDesc
        ) -> tuple[TensorDesc, TensorDesc, TensorDesc]:
            return x, x, k

    assert str(caught.value) == f"register_op op_type '{op_type}' failed: {message}"
    assert get_registered_op_proto_by_op_type(op_type) is None


def test_register_op_wants_a_dict_of_names() -> None:
    with pytest.raises(TypeError, match="reuse_inputs must be a dict of output name"):

        @register_op(
            op_type=unique("BadReuse"), reuse_inputs=[("output0", "x")]  # type: ignore[arg-type]
        )
        def infer(x: TensorDesc) -> TensorDesc:
            return x


def test_the_model_file_keeps_the_shared_plan(tmp_path: Path) -> None:
    """A model file stores the plan: the chain runs in one arena tensor there
    too, with the same numbers."""
    from ge.es.custom import AnnotatedAddCustom
    from ge.offline import compile_model
    from ge.offline.model import load_model_bytes

    bootstrap.load_custom_op_plugins(str(ADD_OPS))
    builder = GraphBuilder(unique("model_chain"))
    a, b = builder.create_input(0, shape=[N]), builder.create_input(1, shape=[N])
    y = a
    for _ in range(4):
        y = AnnotatedAddCustom(y, b)
    model = load_model_bytes(compile_model(builder.build_and_reset([y])))
    x1, x2 = data(12), data(13)
    out = Tensor(np.zeros(N, np.float32))
    model.execute([Tensor(x1), Tensor(x2)], [out])
    np.testing.assert_array_equal(out.numpy(), (((x1 + x2) + x2) + x2) + x2)
