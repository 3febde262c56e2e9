"""GeApi and Session (docs/ge-compat.md, "ES graph building"): initialisation rules, graph ids,
compile and run, caller-provided outputs, input checks, compile errors that
name the node, and graphs whose inputs have unknown dims."""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any, List

import numpy as np
import pytest
from _rt_support import ge_api, registries, unique  # noqa: F401

import ge.es._op_api as api
import ge.ge_global as ge_global
from ge.custom_op import get_execute_ctx, register_op, register_op_impl
from ge.device import rt
from ge.device.kernels import build_kernel
from ge.es import GraphBuilder
from ge.ge_global import GeApi, is_initialized
from ge.graph import DataType, Format, Graph, Placement, Tensor
from ge.runtime import Tensor as RuntimeTensor
from ge.runtime import TensorDesc
from ge.session import CompileError, ExecuteError, Session

SCALE_SOURCE = r"""
#include "ge_kernel.h"
GE_KERNEL(ses_scale, GE_IN(float, GE_COUNT_OF(2)), GE_OUT(float, GE_COUNT_OF(2)),
          GE_SCALAR(), GE_SCALAR()) {
  const float *x = GE_PTR(const float, 0);
  float *y = GE_PTR(float, 1);
  uint64_t n = args[2];
  double a = ge_arg_double(args, 3);
  uint64_t lo, hi;
  ge_block_range(block_idx, block_dim, n, &lo, &hi);
  for (uint64_t i = lo; i < hi; ++i) y[i] = (float)(a * x[i]);
}
"""


@functools.lru_cache(maxsize=1)
def scale_kernel() -> Any:
    return rt.binary_load(build_kernel(SCALE_SOURCE, name="ses_scale")).get_function(
        "ses_scale"
    )


SCALE = unique("SesScale")
SCALE_OP = api.OpDef(
    SCALE,
    type_vars={"T": ("float32",)},
    inputs=(api.Input("x", "T"),),
    outputs=(api.Output("y", "T"),),
    attrs=(api.Attr("alpha", "float", required=True),),
)


def register_scale(calls: list[Any] | None = None) -> None:
    @register_op(op_type=SCALE, output_names=("y",))
    def infer(x: TensorDesc, *, alpha: float) -> TensorDesc:
        return TensorDesc(x.shape, x.data_type)

    @register_op_impl(op_type=SCALE)
    class Scale:
        def execute(self, x: RuntimeTensor, *, alpha: float) -> None:
            ctx = get_execute_ctx()
            if calls is not None:
                calls.append(x.storage_shape.dims)
            y = ctx.malloc_output_tensor(0, x.shape, x.format, x.data_type)
            rt.launch(
                scale_kernel(),
                2,
                ctx.get_stream(),
                [x.addr, y.addr, x.shape_size, alpha],
            )


def scale_graph(
    shape: list[int] | None, alpha: float = 2.0, name: str | None = None
) -> Graph:
    builder = GraphBuilder(name or unique("scale"))
    x = builder.create_input(0, name="x", shape=shape)
    y = SCALE_OP.build(inputs={"x": x}, attrs={"alpha": alpha}, name="scale")
    return builder.build_and_reset([y])


@pytest.fixture
def session(ge_api: GeApi, registries: None) -> Iterator[Session]:
    register_scale()
    yield Session()


# --- GeApi ------------------------------------------------------------------------------


def test_ge_initialize_needs_a_non_empty_dict_of_strings(
    ge_api: GeApi,
) -> None:
    for options in ({}, None, [("ge.exec.deviceId", "0")], "ge.exec.deviceId=0"):
        with pytest.raises(
            ValueError, match="^ge_initialize needs a non-empty dict of options$"
        ):
            ge_api.ge_initialize(options)  # type: ignore[arg-type]
    for options in ({"ge.exec.deviceId": 0}, {1: "0"}):
        with pytest.raises(
            TypeError, match="^ge_initialize options are str keys and str values$"
        ):
            ge_api.ge_initialize(options)  # type: ignore[arg-type]
    assert is_initialized()  # the failed calls changed nothing
    assert ge_global.global_options() == {
        "ge.exec.deviceId": "0",
        "ge.graphRunMode": "1",
    }


def test_a_session_needs_ge_initialize(ge_api: GeApi) -> None:
    ge_api.ge_finalize()
    assert not is_initialized()
    with pytest.raises(
        RuntimeError,
        match=r"^call GeApi\(\)\.ge_initialize\(options\) before creating a Session$",
    ):
        Session()
    GeApi().ge_initialize({"ge.exec.deviceId": "1"})
    assert ge_global.global_options() == {"ge.exec.deviceId": "1"}
    assert isinstance(Session({"k": "v"}), Session)


def test_session_options(ge_api: GeApi) -> None:
    with pytest.raises(TypeError, match="Session options are a dict of str to str"):
        Session([("a", "b")])  # type: ignore[arg-type]
    Session(None)
    Session({})


# --- graph ids ------------------------------------------------------------------------------


def test_add_remove_and_ids(session: Session) -> None:
    graph = scale_graph([3])
    session.add_graph(0, graph)
    session.add_graph(5, graph, {"ge.graph.option": "x"})  # one graph, two ids
    with pytest.raises(ValueError, match="^graph id 0 is already in this session$"):
        session.add_graph(0, scale_graph([3]))
    for bad in (-1, True, "1", 1.0, None):
        with pytest.raises(TypeError, match="graph_id must be an int >= 0"):
            session.add_graph(bad, graph)  # type: ignore[arg-type]
    with pytest.raises(
        TypeError, match="^add_graph takes a ge.graph.Graph, got GraphBuilder$"
    ):
        session.add_graph(9, GraphBuilder())  # type: ignore[arg-type]
    x = Tensor([1.0, 2.0, 3.0])
    assert session.run_graph(5, [x])[0].data == [2.0, 4.0, 6.0]
    session.remove_graph(5)
    for call in (
        lambda: session.run_graph(5, [x]),
        lambda: session.compile_graph(5),
        lambda: session.remove_graph(5),
        lambda: session.run_graph_with_stream_async(5, rt.DEFAULT_STREAM, [x]),
    ):
        with pytest.raises(ValueError, match="^graph id 5 is not in this session$"):
            call()
    session.add_graph(5, scale_graph([3], alpha=3.0))  # the id is free again
    assert session.run_graph(5, [x])[0].data == [3.0, 6.0, 9.0]
    assert session.run_graph(0, [x])[0].data == [2.0, 4.0, 6.0]


def test_sessions_are_independent(ge_api: GeApi, registries: None) -> None:
    register_scale()
    first, second = Session(), Session()
    first.add_graph(1, scale_graph([2], alpha=2.0))
    second.add_graph(1, scale_graph([2], alpha=5.0))
    x = Tensor([1.0, 1.0])
    assert first.run_graph(1, [x])[0].data == [2.0, 2.0]
    assert second.run_graph(1, [x])[0].data == [5.0, 5.0]


# --- compile and run ------------------------------------------------------------------------


def test_compile_then_run_many_times(session: Session) -> None:
    calls: list[Any] = []
    session.add_graph(1, scale_graph([4], alpha=-1.5))
    session.compile_graph(1)
    session.compile_graph(1)  # compiled once; again is a no-op
    outputs = []
    for i in range(3):
        data = np.arange(4, dtype=np.float32) + i
        (out,) = session.run_graph(1, [Tensor.from_numpy(data)])
        outputs.append(out)
        np.testing.assert_array_equal(out.numpy(), -1.5 * data)
        assert out.shape == [4] and out.data_type is DataType.DT_FLOAT
        assert (
            out.format is Format.FORMAT_ND and out.placement is Placement.PLACEMENT_HOST
        )
    # Each run returns new tensors: earlier results are not overwritten.
    np.testing.assert_array_equal(
        outputs[0].numpy(), -1.5 * np.arange(4, dtype=np.float32)
    )
    assert len({o.addr for o in outputs}) == 3
    assert calls == []


def test_run_graph_accepts_a_tuple_and_any_placement(session: Session) -> None:
    session.add_graph(1, scale_graph([2]))
    device = Tensor([1.0, 2.0], placement=Placement.PLACEMENT_DEVICE)
    assert session.run_graph(1, (device,))[0].data == [2.0, 4.0]
    assert session.run_graph(1, [Tensor([3.0, 4.0])])[0].data == [6.0, 8.0]


def test_graphs_without_op_nodes_run(session: Session) -> None:
    builder = GraphBuilder(unique("plain"))
    x = builder.create_input(0, shape=[2], data_type=DataType.DT_INT32)
    c = builder.create_const_int64([[1, 2], [3, 4]])
    s = builder.create_input(1)  # a float32 scalar
    session.add_graph(1, builder.build_and_reset([c, x, s, x]))
    outs = session.run_graph(
        1, [Tensor([7, 8], data_type=DataType.DT_INT32), Tensor(2.5)]
    )
    assert (
        outs[0].numpy().tolist() == [[1, 2], [3, 4]]
        and outs[0].data_type is DataType.DT_INT64
    )
    assert outs[1].data == [7, 8] and outs[3].data == [7, 8]
    assert outs[2].shape == [] and outs[2].data == [2.5]


def test_wrong_inputs_are_value_errors(session: Session) -> None:
    session.add_graph(1, scale_graph([3], name="g3"))
    good = Tensor([1.0, 2.0, 3.0])
    cases = [
        ([], ValueError, r"^graph 'g3' takes 1 input\(s\), got 0$"),
        ([good, good], ValueError, r"^graph 'g3' takes 1 input\(s\), got 2$"),
        (
            [Tensor([1, 2, 3], data_type=DataType.DT_INT32)],
            ValueError,
            r"^graph 'g3' input 0 must be float32\[3\], got int32\[3\]$",
        ),
        (
            [Tensor([1.0, 2.0])],
            ValueError,
            r"^graph 'g3' input 0 must be float32\[3\], got float32\[2\]$",
        ),
        (
            [Tensor([[1.0, 2.0, 3.0]])],
            ValueError,
            r"must be float32\[3\], got float32\[1, 3\]",
        ),
        (
            [np.ones(3, np.float32)],
            TypeError,
            "^input 0 must be a ge.graph.Tensor, got ndarray$",
        ),
    ]
    for inputs, error, message in cases:
        with pytest.raises(error, match=message):
            session.run_graph(1, inputs)
    with pytest.raises(
        TypeError, match="^run_graph inputs are a list of ge.graph.Tensor$"
    ):
        session.run_graph(1, good)  # type: ignore[arg-type]
    assert session.run_graph(1, [good])[0].data == [2.0, 4.0, 6.0]


def test_run_with_stream_writes_caller_outputs_in_place(session: Session) -> None:
    session.add_graph(1, scale_graph([3], name="async"))
    stream = rt.create_stream()
    try:
        for placement in (Placement.PLACEMENT_DEVICE, Placement.PLACEMENT_HOST):
            out = Tensor(np.zeros(3, np.float32), placement=placement)
            address = out.addr
            x = Tensor([1.0, 2.0, 3.0], placement=Placement.PLACEMENT_DEVICE)
            result = session.run_graph_with_stream_async(1, stream, [x], [out])
            rt.synchronize_stream(stream)
            assert len(result) == 1 and result[0] is out
            assert out.addr == address and out.data == [2.0, 4.0, 6.0]
            x.writable_view()[:] = [5.0, 6.0, 7.0]  # inputs are read in place
            session.run_graph_with_stream_async(1, stream, [x], [out])
            assert out.data == [10.0, 12.0, 14.0]
        fresh = session.run_graph_with_stream_async(
            1, stream, [Tensor([1.0, 1.0, 1.0])]
        )
        assert fresh[0].data == [2.0, 2.0, 2.0]
    finally:
        rt.destroy_stream(stream)


def test_a_stream_that_is_not_live_is_refused(session: Session) -> None:
    builder = GraphBuilder(unique("pass"))
    x = builder.create_input(0, shape=[2])
    session.add_graph(1, builder.build_and_reset([x]))
    stream = rt.create_stream()
    rt.destroy_stream(stream)
    with pytest.raises((ValueError, RuntimeError), match="not a live stream"):
        session.run_graph_with_stream_async(1, stream, [Tensor([1.0, 2.0])])


def test_caller_outputs_are_checked(session: Session) -> None:
    session.add_graph(1, scale_graph([3], name="outs"))
    x = Tensor([1.0, 2.0, 3.0])
    cases = [
        ([], ValueError, r"^graph 'outs' has 1 output\(s\), got 0 output tensors$"),
        (
            [Tensor([0.0, 0.0])],
            ValueError,
            r"^graph 'outs' output 0 must be float32\[3\], got float32\[2\]$",
        ),
        (
            [Tensor([0, 0, 0], data_type=DataType.DT_INT32)],
            ValueError,
            r"output 0 must be float32\[3\], got int32\[3\]",
        ),
        (
            [np.zeros(3, np.float32)],
            TypeError,
            "^output 0 must be a ge.graph.Tensor, got ndarray$",
        ),
    ]
    for outputs, error, message in cases:
        with pytest.raises(error, match=message):
            session.run_graph_with_stream_async(1, rt.DEFAULT_STREAM, [x], outputs)


def test_unknown_dims_compile_per_input_shape(ge_api: GeApi, registries: None) -> None:
    calls: list[Any] = []
    register_scale(calls)
    session = Session()
    session.add_graph(1, scale_graph([-1], name="dyn"))
    session.compile_graph(1)  # nothing to compile before the shapes are known
    for n in (3, 5, 3):
        (out,) = session.run_graph(1, [Tensor(np.ones(n, np.float32))])
        assert out.shape == [n] and out.data == [2.0] * n
    assert calls == [[3], [5], [3]]
    assert len(session._graphs[1].compiled) == 2  # one compiled form per shape
    with pytest.raises(
        CompileError,
        match=r"graph input 0 \(x\) is declared float32\[-1\]; it cannot take float32\[2,2\]",
    ):
        session.run_graph(1, [Tensor(np.ones((2, 2), np.float32))])


def test_partially_known_dims(session: Session) -> None:
    session.add_graph(1, scale_graph([2, -1], name="partial"))
    assert session.run_graph(1, [Tensor(np.ones((2, 3), np.float32))])[0].shape == [
        2,
        3,
    ]
    with pytest.raises(
        CompileError, match=r"declared float32\[2,-1\]; it cannot take float32\[3,3\]"
    ):
        session.run_graph(1, [Tensor(np.ones((3, 3), np.float32))])


def test_unknown_rank_inputs_take_any_shape(session: Session) -> None:
    session.add_graph(1, scale_graph([-2], name="rank"))
    assert session.run_graph(1, [Tensor([1.0, 2.0])])[0].data == [2.0, 4.0]


def test_plugins_are_loaded_before_compiling(
    ge_api: GeApi,
    registries: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """GE's PreRun: each compile loads ASCEND_CUSTOM_OPP_PATH first."""
    module = tmp_path / "scale_ops.py"
    module.write_text(textwrap.dedent(f"""
            from ge.custom_op import get_execute_ctx, register_op, register_op_impl
            from ge.device import rt
            from ge.device.kernels import build_kernel
            from ge.runtime import TensorDesc

            SOURCE = {SCALE_SOURCE!r}

            @register_op(op_type={SCALE!r}, output_names=("y",))
            def infer(x: TensorDesc, *, alpha: float) -> TensorDesc:
                return TensorDesc(x.shape, x.data_type)

            @register_op_impl(op_type={SCALE!r})
            class Scale:
                def execute(self, x, *, alpha) -> None:
                    ctx = get_execute_ctx()
                    y = ctx.malloc_output_tensor(0, x.shape, x.format, x.data_type)
                    binary = build_kernel(SOURCE, name="ses_scale")
                    kernel = rt.binary_load(binary).get_function("ses_scale")
                    rt.launch(kernel, 1, ctx.get_stream(), [x.addr, y.addr, x.shape_size, alpha])
            """))
    session = Session()
    session.add_graph(1, scale_graph([2]))
    with pytest.raises(CompileError, match="no prototype is registered"):
        session.compile_graph(1)
    monkeypatch.setenv("ASCEND_CUSTOM_OPP_PATH", str(module))
    assert session.run_graph(1, [Tensor([1.0, 2.0])])[0].data == [2.0, 4.0]


# --- compile errors name the node ----------------------------------------------------------------


def _compile(session: Session, graph: Graph) -> None:
    session.add_graph(99, graph)
    session.compile_graph(99)


def _node_graph(
    op: api.OpDef, attrs: dict | None = None, dtype: DataType = DataType.DT_FLOAT
) -> Graph:
    builder = GraphBuilder(unique("errors"))
    x = builder.create_input(0, shape=[2], data_type=dtype)
    return builder.build_and_reset(
        [op.build(inputs={"x": x}, attrs=attrs or {}, name="bad")]
    )


def _plain_op(op_type: str, **kwargs: Any) -> api.OpDef:
    return api.OpDef(
        op_type,
        inputs=kwargs.pop("inputs", (api.Input("x", "float32"),)),
        outputs=kwargs.pop("outputs", (api.Output("y", "float32"),)),
        **kwargs,
    )


def _impl(op_type: str, inputs: int = 1) -> None:
    """An implementation that is never run (the tests fail at compile)."""
    execute = (lambda self, x: None) if inputs == 1 else (lambda self, x, w: None)
    register_op_impl(op_type=op_type)(type("Impl", (), {"execute": execute}))


def test_a_node_without_a_prototype(session: Session) -> None:
    op = _plain_op(unique("NoProto"))
    with pytest.raises(
        CompileError,
        match=rf"^node 'bad' \({op.op_type}\): no prototype is registered for {op.op_type}; "
        "import its op module or list it in ASCEND_CUSTOM_OPP_PATH$",
    ):
        _compile(session, _node_graph(op))
    assert issubclass(CompileError, RuntimeError)


def test_a_node_without_an_implementation(session: Session) -> None:
    op = _plain_op(unique("NoImpl"))
    register_op(op_type=op.op_type)(_same)
    with pytest.raises(
        CompileError,
        match=rf"^node 'bad' \({op.op_type}\): no implementation is registered for "
        rf"{op.op_type} \(register_op_impl\)$",
    ):
        _compile(session, _node_graph(op))


def _same(x: TensorDesc) -> TensorDesc:
    return TensorDesc(x.shape, x.data_type)


@pytest.mark.parametrize(
    ("infer_body", "message"),
    [
        (
            "raise ZeroDivisionError('no shape')",
            "infer_meta failed: ZeroDivisionError: no shape",
        ),
        (
            "return [x.shape]",
            "infer_meta returned list for output 'output0', not TensorDesc",
        ),
        (
            "return None",
            "infer_meta returned NoneType for output 'output0', not TensorDesc",
        ),
    ],
)
def test_infer_meta_failures(session: Session, infer_body: str, message: str) -> None:
    op = _plain_op(unique("BadInfer"), outputs=(api.Output("output0", "float32"),))
    namespace: dict[str, Any] = {"TensorDesc": TensorDesc}
    exec(f"def infer(x: TensorDesc) -> TensorDesc:\n    {infer_body}\n", namespace)
    register_op(op_type=op.op_type)(namespace["infer"])
    _impl(op.op_type)
    with pytest.raises(CompileError, match=rf"^node 'bad' \({op.op_type}\): {message}"):
        _compile(session, _node_graph(op))


def test_infer_meta_must_return_one_result_per_output(session: Session) -> None:
    op = _plain_op(
        unique("TwoOut"),
        outputs=(api.Output("output0", "float32"), api.Output("output1", "float32")),
    )

    @register_op(op_type=op.op_type)
    def infer(x: TensorDesc) -> tuple[TensorDesc, TensorDesc]:
        return (x,)  # type: ignore[return-value]

    _impl(op.op_type)
    builder = GraphBuilder(unique("two"))
    x = builder.create_input(0, shape=[2])
    op.build(inputs={"x": x}, name="bad")
    builder.set_graph_output(x, 0)
    with pytest.raises(
        CompileError,
        match=rf"^node 'bad' \({op.op_type}\): infer_meta must return 2 results \(one per "
        r"output\), got tuple$",
    ):
        _compile(session, builder.build_and_reset())


def test_dtype_constraints_are_checked_at_compile(session: Session) -> None:
    op = _plain_op(
        unique("Floats"),
        type_vars={"T": ("float32", "float16")},
        inputs=(api.Input("x", "T"), api.Input("w", "T")),
        outputs=(api.Output("y", "T"),),
    )

    @register_op(op_type=op.op_type, output_names=("y",))
    def infer(x: TensorDesc, w: TensorDesc) -> TensorDesc:
        return TensorDesc(x.shape, DataType.DT_INT32)

    _impl(op.op_type, inputs=2)
    builder = GraphBuilder(unique("dtypes"))
    x = builder.create_input(0, shape=[2])
    w = builder.create_input(1, shape=[2])
    y = op.build(inputs={"x": x, "w": w}, name="bad")
    x.set_data_type(DataType.DT_INT8)  # after the builder checked it
    graph = builder.build_and_reset([y])
    with pytest.raises(
        CompileError,
        match=rf"^node 'bad' \({op.op_type}\): input 'x' is int8; T \(float32, float16\) allowed$",
    ):
        _compile(session, graph)

    builder = GraphBuilder(unique("dtypes"))
    x = builder.create_input(0, shape=[2])
    w = builder.create_input(1, shape=[2])
    y = op.build(inputs={"x": x, "w": w}, name="bad")
    w.set_data_type(DataType.DT_FLOAT16)
    session.remove_graph(99)
    with pytest.raises(
        CompileError,
        match=r"input 'w' is float16 but input 'x' is float32; both are type variable T",
    ):
        _compile(session, builder.build_and_reset([y]))

    builder = GraphBuilder(unique("dtypes"))
    x = builder.create_input(0, shape=[2])
    y = op.build(inputs={"x": x, "w": x}, name="bad")
    session.remove_graph(99)
    with pytest.raises(
        CompileError, match=r"output 'y' is int32; T \(float32, float16\) allowed$"
    ):
        _compile(session, builder.build_and_reset([y]))


@pytest.mark.parametrize(
    ("node_op", "proto_source", "message"),
    [
        (
            lambda t: _plain_op(t),
            "def infer(x: TensorDesc, w: TensorDesc) -> TensorDesc: ...",
            r"its inputs \[\('x', 'required'\)\] differ from the registered prototype's "
            r"\[\('x', 'required'\), \('w', 'required'\)\]",
        ),
        (
            lambda t: _plain_op(t),
            "def infer(x: Optional[TensorDesc]) -> TensorDesc: ...",
            r"its inputs \[\('x', 'required'\)\] differ from the registered prototype's "
            r"\[\('x', 'optional'\)\]",
        ),
        (
            lambda t: _plain_op(t),
            "def infer(x: TensorDesc) -> List[TensorDesc]: ...",
            r"its outputs \[\('y', False\)\] differ from the registered prototype's "
            r"\[\('output0', True\)\]",
        ),
        (
            lambda t: _plain_op(t, attrs=(api.Attr("k", "int", required=True),)),
            "def infer(x: TensorDesc) -> TensorDesc: ...",
            "attr 'k' is not an attr of the registered prototype",
        ),
        (
            lambda t: _plain_op(t, attrs=(api.Attr("k", "int", required=True),)),
            "def infer(x: TensorDesc, *, k: float) -> TensorDesc: ...",
            "attr 'k' is int on the node but float in the prototype",
        ),
        (
            lambda t: _plain_op(t),
            "def infer(x: TensorDesc, *, k: int) -> TensorDesc: ...",
            "required attr 'k' is missing",
        ),
    ],
)
def test_node_ir_must_match_the_registered_prototype(
    session: Session, node_op: Any, proto_source: str, message: str
) -> None:
    op = node_op(unique("Mismatch"))
    namespace: dict[str, Any] = {
        "TensorDesc": TensorDesc,
        "List": List,
        "Optional": __import__("typing").Optional,
    }
    exec(proto_source, namespace)
    register_op(op_type=op.op_type)(namespace["infer"])
    attrs = {"k": 3} if op.attrs else {}
    with pytest.raises(CompileError, match=rf"^node 'bad' \({op.op_type}\): {message}"):
        _compile(session, _node_graph(op, attrs))


def test_a_cycle_is_a_compile_error(session: Session) -> None:
    builder = GraphBuilder(unique("cycle"))
    a = SCALE_OP.build(
        inputs={"x": builder.create_input(0, shape=[1])}, attrs={"alpha": 1.0}, name="a"
    )
    b = SCALE_OP.build(inputs={"x": a}, attrs={"alpha": 1.0}, name="b")
    builder.add_control_dependency(a, [b])
    graph = builder.build_and_reset([b])
    with pytest.raises(
        CompileError, match=rf"^graph '{graph.name}' has a cycle through a, b$"
    ):
        _compile(session, graph)


def test_a_compile_error_is_raised_again_on_the_next_try(session: Session) -> None:
    op = _plain_op(unique("Late"))
    session.add_graph(1, _node_graph(op))
    with pytest.raises(CompileError, match="no prototype"):
        session.run_graph(1, [Tensor([1.0, 2.0])])
    register_op(op_type=op.op_type, output_names=("y",))(_same)

    @register_op_impl(op_type=op.op_type)
    class Impl:
        def execute(self, x: RuntimeTensor) -> None:
            ctx = get_execute_ctx()
            y = ctx.malloc_output_tensor(0, x.shape, x.format, x.data_type)
            rt.launch(scale_kernel(), 1, ctx.get_stream(), [x.addr, y.addr, 2, 1.0])

    assert session.run_graph(1, [Tensor([1.0, 2.0])])[0].data == [1.0, 2.0]


# --- engine bugs kept visible ------------------------------------------------------------------------


def test_a_ref_output_that_is_a_graph_output_has_the_inputs_data(
    session: Session,
) -> None:
    op = _plain_op(unique("RefOut"))
    register_op(op_type=op.op_type, output_names=("y",))(_same)

    @register_op_impl(op_type=op.op_type)
    class Impl:
        def execute(self, x: RuntimeTensor) -> None:
            get_execute_ctx().make_output_ref_input(0, 0)

    session.add_graph(1, _node_graph(op))
    assert session.run_graph(1, [Tensor([1.5, 2.5])])[0].data == [1.5, 2.5]
    assert session.run_graph(1, [Tensor([3.0, 4.0])])[0].data == [3.0, 4.0]


def test_a_ref_output_feeds_later_nodes(session: Session) -> None:
    """A node after the ref output reads the input's data, run after run."""
    op = _plain_op(unique("RefMid"))
    register_op(op_type=op.op_type, output_names=("y",))(_same)

    @register_op_impl(op_type=op.op_type)
    class Impl:
        def execute(self, x: RuntimeTensor) -> None:
            get_execute_ctx().make_output_ref_input(0, 0)

    builder = GraphBuilder(unique("ref_mid"))
    x = builder.create_input(0, shape=[2])
    mid = op.build(inputs={"x": x}, attrs={}, name="ref")
    y = SCALE_OP.build(inputs={"x": mid}, attrs={"alpha": 3.0}, name="scale")
    session.add_graph(1, builder.build_and_reset([y, mid]))
    for values in ([1.0, 2.0], [-4.0, 0.5]):
        got = session.run_graph(1, [Tensor(values)])
        assert got[0].data == [3 * v for v in values]
        assert got[1].data == values


def test_execute_errors_name_the_node(session: Session) -> None:
    op = _plain_op(unique("Boom"))
    register_op(op_type=op.op_type, output_names=("y",))(_same)

    @register_op_impl(op_type=op.op_type)
    class Impl:
        def execute(self, x: RuntimeTensor) -> None:
            raise RuntimeError("kernel exploded")

    session.add_graph(1, _node_graph(op))
    with pytest.raises(
        ExecuteError,
        match=rf"^node 'bad' \({op.op_type}\): execute failed: RuntimeError: kernel exploded$",
    ):
        session.run_graph(1, [Tensor([1.0, 2.0])])


def test_a_data_node_without_outputs_is_a_clear_error(ge_api: GeApi) -> None:
    """Was an IndexError from add_graph (issue 8); add_graph checks the Data
    nodes as the compiler does (issue 21, finding 8), so the error comes
    there, and compiling a graph that got in some other way says the same."""
    from ge.engine.compiler import compile_graph
    from ge.graph.attrs import AttrType
    from ge.graph.graph import Node

    graph = Graph("no_outputs")
    graph.nodes.append(
        Node("x", "Data", attrs={"index": (AttrType.INT, 0)})  # no output
    )
    session = Session()
    with pytest.raises(
        CompileError, match="Data node 'x' has 0 outputs; a Data node has exactly one"
    ):
        session.add_graph(0, graph)
    with pytest.raises(
        CompileError, match="Data node 'x' has 0 outputs; a Data node has exactly one"
    ):
        compile_graph(graph)
