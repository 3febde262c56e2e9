"""Callback contexts (docs/ge-compat.md, "Schema-bound signatures"): get_*_ctx() outside callbacks,
every execute-context method inside a real run, the compile and
declare_launch_args contexts, infer_meta's context, and borrowed-object
lifetime (use after the callback returns raises RuntimeError)."""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Iterator
from typing import Any, List, Optional, Tuple

import numpy as np
import pytest
from _rt_support import float_op, ge_api, registries, unique  # noqa: F401

import ge.es._op_api as api
from ge.custom_op import (
    AnnotatedKernelLaunchInfo,
    WorkspaceAddr,
    get_compile_ctx,
    get_compile_platform_info,
    get_declare_launch_args_ctx,
    get_execute_ctx,
    get_infer_meta_ctx,
    register_op,
    register_op_impl,
)
from ge.custom_op.infer import output_count
from ge.device import rt
from ge.device.kernels import build_kernel
from ge.es import GraphBuilder
from ge.ge_global import GeApi
from ge.graph import DataType, Format, Placement
from ge.graph import Tensor as GraphTensor
from ge.runtime import (
    Shape,
    StorageFormat,
    StorageShape,
    Tensor,
    TensorDesc,
    TensorPlacement,
)
from ge.session import CompileError, ExecuteError, Session

KERNELS = r"""
#include "ge_kernel.h"

/* y = a * x + b over n floats */
GE_KERNEL(ctx_axpy,
          GE_IN(float, GE_COUNT_OF(3)),
          GE_IN(float, GE_COUNT_OF(3)),
          GE_OUT(float, GE_COUNT_OF(3)),
          GE_SCALAR(),
          GE_SCALAR()) {
  const float *x = GE_PTR(const float, 0);
  const float *b = GE_PTR(const float, 1);
  float *y = GE_PTR(float, 2);
  uint64_t n = args[3];
  double a = ge_arg_double(args, 4);
  uint64_t lo, hi;
  ge_block_range(block_idx, block_dim, n, &lo, &hi);
  for (uint64_t i = lo; i < hi; ++i) y[i] = (float)(a * x[i]) + b[i];
}

/* y = x over n floats */
GE_KERNEL(ctx_copy,
          GE_IN(float, GE_COUNT_OF(2)),
          GE_OUT(float, GE_COUNT_OF(2)),
          GE_SCALAR()) {
  const float *x = GE_PTR(const float, 0);
  float *y = GE_PTR(float, 1);
  uint64_t n = args[2];
  uint64_t lo, hi;
  ge_block_range(block_idx, block_dim, n, &lo, &hi);
  for (uint64_t i = lo; i < hi; ++i) y[i] = x[i];
}
"""


@functools.lru_cache(maxsize=1)
def kernel_bin() -> bytes:
    return build_kernel(KERNELS, name="ctx_kernels")


def kernel(name: str) -> Any:
    return rt.binary_load(kernel_bin()).get_function(name)


def expect(error: type, call: Any) -> str:
    """Inside a callback: the message ``call`` raises ``error`` with."""
    try:
        call()
    except error as exc:
        return str(exc)
    raise AssertionError(f"{call} did not raise {error.__name__}")


@pytest.fixture
def session(ge_api: GeApi, registries: None) -> Iterator[Session]:
    yield Session({"my.option": "on"})


# --- outside any callback ------------------------------------------------------


@pytest.mark.parametrize(
    "getter",
    [
        get_execute_ctx,
        get_compile_ctx,
        get_compile_platform_info,
        get_declare_launch_args_ctx,
        get_infer_meta_ctx,
    ],
)
def test_getters_outside_their_callback_raise(getter: Any) -> None:
    with pytest.raises(
        RuntimeError,
        match=rf"^{getter.__name__}\(\) is only available inside its callback$",
    ):
        getter()


def test_output_count_helper_needs_infer_meta() -> None:
    with pytest.raises(RuntimeError, match="get_infer_meta_ctx"):
        output_count(0)


# --- the execute context, method by method --------------------------------------------

FULL = unique("CtxFull")
COPY = unique("CtxCopy")
ATTRS = (
    api.Attr("alpha", "float", required=True),
    api.Attr("n", "int"),
    api.Attr("flag", "bool"),
    api.Attr("mode", "str"),
    api.Attr("dt", "dtype"),
    api.Attr("axes", "list_int"),
    api.Attr("scales", "list_float"),
    api.Attr("names", "list_str"),
    api.Attr("flags", "list_bool"),
    api.Attr("dts", "list_dtype"),
    api.Attr("grid", "list_list_int"),
)
FULL_OP = api.OpDef(
    FULL,
    inputs=(
        api.Input("x", "float32"),
        api.Input("bias", "float32", optional=True),
        api.Input("xs", "float32", dynamic=True),
    ),
    outputs=(api.Output("y", "float32"), api.Output("w", "float32")),
    attrs=ATTRS,
)
COPY_OP = api.OpDef(
    COPY, inputs=(api.Input("x", "float32"),), outputs=(api.Output("y", "float32"),)
)
ATTR_VALUES = {
    "alpha": 0.5,
    "n": -7,
    "flag": True,
    "mode": "fast",
    "dt": DataType.DT_BF16,
    "axes": [0, 2],
    "scales": [0.25, 1.5],
    "names": ["a", "b"],
    "flags": [False, True],
    "dts": [DataType.DT_INT8, DataType.DT_FLOAT],
    "grid": [[1], [], [2, 3]],
}


def _register_full(record: dict[str, Any]) -> None:
    @register_op(op_type=FULL, output_names=("y", "w"))
    def infer(
        x: TensorDesc,
        bias: Optional[TensorDesc],
        xs: List[TensorDesc],
        *,
        alpha: float,
        n: int = 0,
        flag: bool = False,
        mode: str = "",
        dt: DataType = DataType.DT_FLOAT,
        axes: List[int] = (),
        scales: List[float] = (),
        names: List[str] = (),
        flags: List[bool] = (),
        dts: List[DataType] = (),
        grid: List[List[int]] = (),
    ) -> Tuple[TensorDesc, TensorDesc]:
        ctx = get_infer_meta_ctx()
        record["infer"] = (ctx.get_node_name(), ctx.get_output_num(), len(xs), bias)
        return TensorDesc(x.shape, x.data_type), TensorDesc(x.shape, x.data_type)

    @register_op_impl(op_type=FULL)
    class Full:
        def execute(
            self,
            x: Tensor,
            bias: Optional[Tensor],
            xs: List[Tensor],
            *,
            alpha: float,
            n: int,
            flag: bool,
            mode: str,
            dt: DataType,
            axes: List[int],
            scales: List[float],
            names: List[str],
            flags: List[bool],
            dts: List[DataType],
            grid: List[List[int]],
        ) -> None:
            ctx = get_execute_ctx()
            attrs = ctx.get_attrs()
            record["kwargs"] = dict(
                alpha=alpha, n=n, flag=flag, mode=mode, dt=dt, axes=axes, scales=scales,
                names=names, flags=flags, dts=dts, grid=grid,
            )  # fmt: skip
            record["attrs"] = [
                attrs.get_attr_num(),
                [attrs.get_name(i) for i in range(attrs.get_attr_num())],
                attrs.get_float(0),
                attrs.get_int(1),
                attrs.get_bool(2),
                attrs.get_str(3),
                attrs.get_data_type(4),
                attrs.get_list_int(5),
                attrs.get_list_float(6),
                attrs.get_list_str(7),
                attrs.get_list_bool(8),
                attrs.get_list_data_type(9),
                attrs.get_list_list_int(10),
            ]
            record["attr_errors"] = [
                expect(TypeError, lambda: attrs.get_int(0)),
                expect(IndexError, lambda: attrs.get_int(11)),
                expect(IndexError, lambda: attrs.get_int(-1)),
                expect(IndexError, lambda: attrs.get_name(-1)),
                expect(IndexError, lambda: attrs.get_list_int(True)),
            ]
            count = ctx.get_input_num()
            record["layout"] = {
                "node": ctx.get_node_name(),
                "inputs": count,
                "outputs": ctx.get_output_num(),
                "dynamic": [ctx.get_dynamic_input_num(i) for i in range(3)],
                "flat_is_args": [ctx.get_input_tensor(i) for i in range(count)]
                == [x, bias, *xs],
                "required": ctx.get_required_input_tensor(0) is x,
                "optional": ctx.get_optional_input_tensor(1) is bias,
                "dynamic_rel": [
                    ctx.get_dynamic_input_tensor(2, k) for k in range(len(xs))
                ]
                == xs,
                "stream": ctx.get_stream(),
            }
            record["input_errors"] = [
                expect(IndexError, lambda: ctx.get_input_tensor(count)),
                expect(IndexError, lambda: ctx.get_dynamic_input_num(3)),
                expect(IndexError, lambda: ctx.get_dynamic_input_num(-1)),
                expect(IndexError, lambda: ctx.get_dynamic_input_tensor(2, len(xs))),
                expect(IndexError, lambda: ctx.get_required_input_tensor(3)),
            ]
            if bias is None:
                record["input_errors"].append(
                    expect(RuntimeError, lambda: ctx.get_required_input_tensor(1))
                )
            record["x"] = {
                "addr": x.addr,
                "size": x.size,
                "dims": x.storage_shape.dims,
                "origin": x.origin_shape.dims,
                "shape_size": x.shape_size,
                "dtype": x.data_type,
                "format": (
                    x.origin_format,
                    x.storage_format,
                    x.format.expand_dims_type.rule,
                ),
                "placement": x.placement,
            }
            record["before_alloc"] = expect(
                RuntimeError, lambda: ctx.get_output_tensor(0)
            )
            record["alloc_errors"] = [
                expect(IndexError, lambda: ctx.malloc_output_tensor(2, x.shape, x.format, x.data_type)),
                expect(IndexError, lambda: ctx.malloc_output_tensor(True, x.shape, x.format, x.data_type)),
                expect(TypeError, lambda: ctx.malloc_output_tensor(0, "5", x.format, x.data_type)),
                expect(TypeError, lambda: ctx.malloc_output_tensor(0, x.shape, "ND", x.data_type)),
                expect(TypeError, lambda: ctx.malloc_output_tensor(0, x.shape, x.format, 0)),
                expect(ValueError, lambda: ctx.malloc_output_tensor(0, [x.shape_size + 1], x.format, x.data_type)),
                expect(ValueError, lambda: ctx.malloc_output_tensor(0, x.shape, x.format, DataType.DT_INT32)),
                expect(ValueError, lambda: ctx.malloc_workspace(-1)),
                expect(ValueError, lambda: ctx.malloc_workspace(1.5)),
            ]  # fmt: skip
            y = ctx.malloc_output_tensor(0, x.shape, x.format, x.data_type)
            record["y"] = (y.addr, y.size, y.storage_shape.dims, y.data_type)
            record["get_output"] = ctx.get_output_tensor(0) is y
            record["double_alloc"] = expect(
                RuntimeError, lambda: ctx.malloc_output_tensor(0, [x.shape_size], Format.FORMAT_ND, x.data_type)
            )  # fmt: skip
            workspace = ctx.malloc_workspace(x.size)
            record["workspace"] = workspace
            size = x.shape_size
            blocks = max(1, math.ceil(size / 2))
            axpy = kernel("ctx_axpy")
            # workspace = alpha * x + xs[0]; y = workspace + xs[1] (+ bias)
            rt.launch(
                axpy,
                blocks,
                ctx.get_stream(),
                [x.addr, xs[0].addr, workspace, size, alpha],
            )
            rt.launch(
                axpy, 1, ctx.get_stream(), [workspace, xs[1].addr, y.addr, size, 1.0]
            )
            if bias is not None:
                rt.launch(
                    axpy, 1, ctx.get_stream(), [y.addr, bias.addr, y.addr, size, 1.0]
                )
            record["ref_errors"] = [
                expect(IndexError, lambda: ctx.make_output_ref_input(1, count)),
                expect(IndexError, lambda: ctx.make_output_ref_input(2, 0)),
            ]
            w = ctx.make_output_ref_input(1, 0)
            record["w"] = (w.addr == x.addr, ctx.get_output_tensor(1) is w)
            record["ref_errors"].append(
                expect(RuntimeError, lambda: ctx.make_output_ref_input(1, 0))
            )
            record["kept"] = (ctx, x, x.shape, x.format, x.origin_shape, attrs, y, w)

    @register_op(op_type=COPY, output_names=("y",))
    def copy_infer(x: TensorDesc) -> TensorDesc:
        return TensorDesc(x.shape, x.data_type)

    @register_op_impl(op_type=COPY)
    class Copy:
        def execute(self, x: Tensor) -> None:
            ctx = get_execute_ctx()
            y = ctx.malloc_output_tensor(0, x.shape, x.format, x.data_type)
            rt.launch(
                kernel("ctx_copy"), 1, ctx.get_stream(), [x.addr, y.addr, x.shape_size]
            )


def _full_graph(with_bias: bool, shape: list[int]) -> Any:
    builder = GraphBuilder(unique("full"))
    x = builder.create_input(0, name="x", shape=shape)
    a = builder.create_input(1, name="a", shape=shape)
    b = builder.create_input(2, name="b", shape=shape)
    bias = builder.create_input(3, name="bias", shape=shape) if with_bias else None
    y, w = FULL_OP.build(
        inputs={"x": x, "bias": bias, "xs": [a, b]},
        attrs=ATTR_VALUES,
        name="full",
        result=lambda *outs: outs,
    )
    z = COPY_OP.build(inputs={"x": w}, name="copy")
    return builder.build_and_reset([y, z])


@pytest.mark.parametrize("with_bias", [False, True])
def test_every_execute_context_method_in_a_real_run(
    session: Session, with_bias: bool
) -> None:
    record: dict[str, Any] = {}
    _register_full(record)
    shape = [2, 3]
    session.add_graph(1, _full_graph(with_bias, shape))
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(shape).astype(np.float32) for _ in range(4)]
    inputs = [GraphTensor.from_numpy(a) for a in arrays[: 4 if with_bias else 3]]
    y, z = session.run_graph(1, inputs)

    x, a, b, bias = arrays
    expected = np.float32(0.5) * x + a + b + (bias if with_bias else 0)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-6)
    np.testing.assert_array_equal(z.numpy(), x)  # w shared x's memory

    assert record["infer"][:3] == ("full", 2, 2)
    assert (record["infer"][3] is None) is (not with_bias)
    assert record["kwargs"] == ATTR_VALUES
    assert record["attrs"] == [
        11,
        [a.name for a in ATTRS],
        0.5,
        -7,
        True,
        "fast",
        DataType.DT_BF16,
        [0, 2],
        [0.25, 1.5],
        ["a", "b"],
        [False, True],
        [DataType.DT_INT8, DataType.DT_FLOAT],
        [[1], [], [2, 3]],
    ]
    assert record["attr_errors"] == [
        "attr 0 (alpha) is float, not int",
        "attr index 11 out of range (11 attrs)",
        "attr index -1 out of range (11 attrs)",
        "attr index -1 out of range (11 attrs)",
        "attr index True out of range (11 attrs)",
    ]
    assert record["layout"] == {
        "node": "full",
        "inputs": 4,  # x, the bias slot (present or not), two xs
        "outputs": 2,
        "dynamic": [1, 1, 2],
        "flat_is_args": True,
        "required": True,
        "optional": True,
        "dynamic_rel": True,
        "stream": rt.DEFAULT_STREAM,
    }
    errors = record["input_errors"]
    assert errors[:5] == [
        "input index 4 out of range (4 inputs)",
        "IR index 3 out of range (3 IR inputs)",
        "IR index -1 out of range (3 IR inputs)",
        "instance 2 out of range for xs (2 instances)",
        "IR index 3 out of range (3 IR slots)",
    ]
    if not with_bias:
        assert errors[5] == "input 1 is absent"
    assert record["x"] == {
        "addr": record["x"]["addr"],
        "size": 24,
        "dims": [2, 3],
        "origin": [2, 3],
        "shape_size": 6,
        "dtype": DataType.DT_FLOAT,
        "format": (Format.FORMAT_ND, Format.FORMAT_ND, ""),
        "placement": TensorPlacement.kOnDeviceHbm,
    }
    assert record["x"]["addr"] != 0
    assert (
        record["before_alloc"] == "output 0 is not allocated yet (malloc_output_tensor)"
    )
    alloc = record["alloc_errors"]
    assert alloc[0] == "output index 2 out of range (2 outputs)"
    assert alloc[1] == "output index True out of range (2 outputs)"
    assert alloc[2] == "shape must be a StorageShape, Shape or list, got str"
    assert alloc[3] == "format must be a StorageFormat or Format, got str"
    assert alloc[4] == "data_type must be a DataType, got int"
    assert alloc[5] == (
        "node 'full' output 0: infer_meta said float32[2,3], execute asked for float32[7]"
    )
    assert alloc[6] == (
        "node 'full' output 0: infer_meta said float32[2,3], execute asked for int32[2, 3]"
    )
    assert alloc[7] == "workspace size must be an int >= 0, got -1"
    assert alloc[8] == "workspace size must be an int >= 0, got 1.5"
    y_addr, y_size, y_dims, y_dtype = record["y"]
    assert (y_size, y_dims, y_dtype) == (24, [2, 3], DataType.DT_FLOAT) and y_addr != 0
    assert record["get_output"] is True
    assert record["double_alloc"] == "output 0 is already allocated"
    assert record["w"] == (True, True)
    assert record["ref_errors"] == [
        "input index 4 out of range (4 inputs)",
        "output index 2 out of range (2 outputs)",
        "output 1 is already allocated",
    ]


def test_a_ref_output_shares_the_inputs_memory(session: Session) -> None:
    addresses: list[int] = []

    def execute(self: Any, x: Tensor) -> None:
        ctx = get_execute_ctx()
        out = ctx.make_output_ref_input(0, 0)
        zeros = ctx.malloc_workspace(x.size)
        # In place, as GE's ref ops do: x = 2 * x + 0, written through x.
        rt.launch(
            kernel("ctx_axpy"),
            1,
            ctx.get_stream(),
            [x.addr, zeros, x.addr, x.shape_size, 2.0],
        )
        addresses.extend([out.addr, x.addr])

    op = float_op(unique("InPlace"), execute)
    (out,) = _run_one(session, op)
    assert out.data == [0.0, 2.0, 4.0, 6.0]
    assert addresses[0] == addresses[1]


def test_borrowed_objects_expire_when_the_callback_returns(session: Session) -> None:
    record: dict[str, Any] = {}
    _register_full(record)
    session.add_graph(1, _full_graph(False, [4]))
    session.run_graph(1, [GraphTensor(np.ones(4, np.float32)) for _ in range(3)])
    ctx, x, shape, fmt, origin, attrs, y, w = record["kept"]
    expired = (
        "is no longer valid: borrowed objects may only be used inside the callback"
    )
    for use in (
        ctx.get_input_num,
        ctx.get_node_name,
        ctx.get_stream,
        ctx.get_attrs,
        lambda: ctx.get_input_tensor(0),
        lambda: ctx.get_output_tensor(0),
        lambda: ctx.get_dynamic_input_num(2),
        lambda: ctx.malloc_workspace(8),
        lambda: ctx.malloc_output_tensor(0, [4], Format.FORMAT_ND, DataType.DT_FLOAT),
        lambda: ctx.make_output_ref_input(1, 0),
        lambda: x.addr,
        lambda: x.size,
        lambda: x.shape_size,
        lambda: x.data_type,
        lambda: y.addr,
        lambda: w.storage_shape,
        lambda: shape.storage_shape,
        lambda: shape.dims,
        lambda: fmt.origin_format,
        lambda: fmt.expand_dims_type,
        lambda: origin.dims,
        lambda: origin.get_shape_size(),
        lambda: attrs.get_float(0),
        lambda: attrs.get_attr_num(),
    ):
        with pytest.raises(RuntimeError, match=expired):
            use()
    with pytest.raises(
        RuntimeError,
        match="EagerOpExecutionContext was borrowed from the execute callback of node 'full'",
    ):
        ctx.get_input_num()
    # Views passed back into a later run's API are refused too.
    with pytest.raises(RuntimeError, match=expired):
        StorageShape(origin)


def test_each_run_gets_fresh_views(session: Session) -> None:
    record: dict[str, Any] = {}
    _register_full(record)
    session.add_graph(1, _full_graph(False, [4]))
    inputs = [GraphTensor(np.full(4, i, np.float32)) for i in (1, 2, 3)]
    session.run_graph(1, inputs)
    first = record["kept"]
    y, z = session.run_graph(1, inputs)
    assert record["kept"][0] is not first[0]
    with pytest.raises(RuntimeError):
        first[1].addr  # noqa: B018
    np.testing.assert_array_equal(y.numpy(), np.full(4, 0.5 + 2 + 3, np.float32))
    np.testing.assert_array_equal(z.numpy(), np.full(4, 1, np.float32))


def test_the_stream_of_an_async_run_reaches_execute(session: Session) -> None:
    record: dict[str, Any] = {}
    _register_full(record)
    session.add_graph(1, _full_graph(False, [3]))
    stream = rt.create_stream()
    try:
        inputs = [GraphTensor(np.ones(3, np.float32)) for _ in range(3)]
        outputs = [GraphTensor(np.zeros(3, np.float32)) for _ in range(2)]
        session.run_graph_with_stream_async(1, stream, inputs, outputs)
        assert record["layout"]["stream"] == stream
        np.testing.assert_array_equal(outputs[0].numpy(), np.full(3, 2.5, np.float32))
    finally:
        rt.destroy_stream(stream)


# --- what execute may not do ---------------------------------------------------------------


def _run_one(
    session: Session, op: api.OpDef, runs: int = 1, shape: tuple[int, ...] = (4,)
) -> list[Any]:
    builder = GraphBuilder(unique("one"))
    x = builder.create_input(0, shape=list(shape))
    session.add_graph(
        1, builder.build_and_reset([op.build(inputs={"x": x}, name="node")])
    )
    data = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
    outputs = []
    for _ in range(runs):
        outputs = session.run_graph(1, [GraphTensor(data)])
    return outputs


def _copy_execute(self: Any, x: Tensor) -> None:
    ctx = get_execute_ctx()
    y = ctx.malloc_output_tensor(0, x.shape, x.format, x.data_type)
    rt.launch(kernel("ctx_copy"), 1, ctx.get_stream(), [x.addr, y.addr, x.shape_size])


def test_execute_that_returns_a_value_is_an_error(session: Session) -> None:
    def execute(self: Any, x: Tensor) -> None:
        _copy_execute(self, x)
        return True  # type: ignore[return-value]

    op = float_op(unique("Returns"), execute)
    with pytest.raises(
        ExecuteError,
        match=f"^node 'node' \\({op.op_type}\\): execute must return None, got bool$",
    ):
        _run_one(session, op)


def test_execute_that_allocates_no_output_is_an_error(session: Session) -> None:
    op = float_op(unique("Lazy"), lambda self, x: None)
    with pytest.raises(
        ExecuteError,
        match=rf"^node 'node' \({op.op_type}\): execute did not allocate output\(s\) \[0\] "
        r"\(malloc_output_tensor or make_output_ref_input\)$",
    ):
        _run_one(session, op)


def test_execute_that_raises_names_the_node(session: Session) -> None:
    def execute(self: Any, x: Tensor) -> None:
        raise KeyError("inner problem")

    op = float_op(unique("Raises"), execute)
    with pytest.raises(
        ExecuteError,
        match=rf"node 'node' \({op.op_type}\): execute failed: KeyError: 'inner problem'",
    ) as info:
        _run_one(session, op)
    assert isinstance(info.value.__cause__, KeyError)


def test_launches_may_only_use_this_nodes_memory(session: Session) -> None:
    """Inside execute, pointers must lie in the node's tensors or workspaces:
    other device memory, and a workspace of an earlier call, are refused
    before the kernel runs."""
    stranger = GraphTensor(
        np.zeros(4, np.float32), placement=Placement.PLACEMENT_DEVICE
    )
    state: dict[str, Any] = {}

    def execute(self: Any, x: Tensor) -> None:
        ctx = get_execute_ctx()
        y = ctx.malloc_output_tensor(0, x.shape, x.format, x.data_type)
        copy = kernel("ctx_copy")
        if "workspace" not in state:
            state["workspace"] = ctx.malloc_workspace(x.size)
            # Holding the (expired) context keeps that memory allocated, so no
            # later buffer can take its address.
            state["ctx"] = ctx
            state["stranger"] = expect(
                rt.LaunchError,
                lambda: rt.launch(
                    copy, 1, ctx.get_stream(), [x.addr, stranger.addr, 4]
                ),
            )
            rt.launch(copy, 1, ctx.get_stream(), [x.addr, y.addr, 4])
        else:  # a workspace address kept from the previous call
            rt.launch(copy, 1, ctx.get_stream(), [x.addr, state["workspace"], 4])

    op = float_op(unique("Scoped"), execute)
    with pytest.raises(
        ExecuteError,
        match=r"execute failed: LaunchError: ctx_copy argument 1 \(0x[0-9a-f]+\) does not point "
        "into a tensor or workspace of this node",
    ):
        _run_one(session, op, runs=2)
    assert state["stranger"].startswith("ctx_copy argument 1 (0x")
    assert state["stranger"].endswith(
        "does not point into a tensor or workspace of this node"
    )
    assert stranger.data == [0.0] * 4


def test_outside_a_callback_a_launch_needs_device_memory() -> None:
    copy = kernel("ctx_copy")
    source = GraphTensor(
        np.arange(4, dtype=np.float32), placement=Placement.PLACEMENT_DEVICE
    )
    target = GraphTensor(np.zeros(4, np.float32), placement=Placement.PLACEMENT_DEVICE)
    host = GraphTensor(np.zeros(4, np.float32))
    with pytest.raises(rt.LaunchError, match="does not point into device memory"):
        rt.launch(copy, 1, rt.DEFAULT_STREAM, [source.addr, host.addr, 4])
    rt.launch(copy, 1, rt.DEFAULT_STREAM, [source.addr, target.addr, 4])
    assert target.data == [0.0, 1.0, 2.0, 3.0]


def test_nested_runs_restore_the_outer_context(session: Session) -> None:
    inner_op_type, outer_op_type = unique("Inner"), unique("Outer")
    seen: dict[str, Any] = {}
    inner = float_op(inner_op_type, _copy_execute)

    builder = GraphBuilder(unique("inner"))
    x = builder.create_input(0, shape=[4])
    session.add_graph(
        7, builder.build_and_reset([inner.build(inputs={"x": x}, name="in")])
    )

    def outer_execute(self: Any, x: Tensor) -> None:
        ctx = get_execute_ctx()
        (result,) = session.run_graph(7, [GraphTensor(np.ones(4, np.float32))])
        seen["inner_result"] = result.data
        seen["restored"] = get_execute_ctx() is ctx
        _copy_execute(self, x)

    outer = float_op(outer_op_type, outer_execute)
    (out,) = _run_one(session, outer)
    assert seen == {"inner_result": [1.0] * 4, "restored": True}
    assert out.data == [0.0, 1.0, 2.0, 3.0]


# --- infer_meta's context ---------------------------------------------------------------------


def test_infer_meta_context_and_dynamic_output_counts(session: Session) -> None:
    op_type = unique("Split")
    op = api.OpDef(
        op_type,
        inputs=(api.Input("x", "float32"),),
        outputs=(api.Output("parts", "float32", dynamic=True),),
    )
    seen: dict[str, Any] = {}

    @register_op(op_type=op_type, output_names=("parts",))
    def infer(x: TensorDesc) -> List[TensorDesc]:
        ctx = get_infer_meta_ctx()
        count = output_count(0)
        seen["ctx"] = (
            ctx.get_node_name(),
            ctx.get_output_num(),
            ctx.get_dynamic_output_num(0),
        )
        seen["error"] = expect(IndexError, lambda: ctx.get_dynamic_output_num(1))
        dims = x.shape.origin_shape.dims
        return [TensorDesc([dims[0] // count], x.data_type) for _ in range(count)]

    @register_op_impl(op_type=op_type)
    class Split:
        def execute(self, x: Tensor) -> None:
            ctx = get_execute_ctx()
            step = x.shape_size // ctx.get_output_num()
            for i in range(ctx.get_output_num()):
                part = ctx.malloc_output_tensor(i, [step], x.format, x.data_type)
                rt.launch(
                    kernel("ctx_copy"),
                    1,
                    ctx.get_stream(),
                    [x.addr + 4 * step * i, part.addr, step],
                )

    builder = GraphBuilder(unique("split"))
    x = builder.create_input(0, shape=[6])
    parts = op.build(inputs={"x": x}, counts={"parts": 3}, name="split")
    session.add_graph(1, builder.build_and_reset(parts))
    outs = session.run_graph(1, [GraphTensor(np.arange(6, dtype=np.float32))])
    assert [o.data for o in outs] == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    assert seen["ctx"] == ("split", 3, 3)
    assert seen["error"] == "output IR index 1 out of range"


# --- compile and declare_launch_args contexts ------------------------------------------------


def test_compile_and_declare_launch_args_contexts(session: Session) -> None:
    op_type = unique("Annotated")
    op = api.OpDef(
        op_type,
        inputs=(api.Input("x", "float32"), api.Input("b", "float32")),
        outputs=(api.Output("y", "float32"),),
        attrs=(api.Attr("alpha", "float", required=True),),
    )
    seen: dict[str, Any] = {"compile": 0, "declare": 0}

    @register_op(op_type=op_type, output_names=("y",))
    def infer(x: TensorDesc, b: TensorDesc, *, alpha: float) -> TensorDesc:
        return TensorDesc(x.shape, x.data_type)

    @register_op_impl(op_type=op_type)
    class Annotated:
        def compile(self, x: Tensor, b: Tensor, y: Tensor, *, alpha: float) -> None:
            seen["compile"] += 1
            options = get_compile_ctx()
            platform = get_compile_platform_info()
            seen["options"] = (
                options.get_option("ge.exec.deviceId"),
                options.get_option("my.option"),
                options.get_option("graph.option"),
                options.get_option("missing"),
            )
            seen["platform"] = {
                "soc": platform.get_soc_version(),
                "cores": platform.get_core_num(),
                "ai_cores": platform.get_ai_core_num(),
                "cube": platform.get_core_num("Cube"),
                "group": platform.get_platform_resource_group("SoCInfo"),
                "resource": platform.get_platform_resource("SoCInfo", "ai_core_cnt"),
                "missing": expect(RuntimeError, lambda: platform.get_platform_resource("SoCInfo", "nope")),
                "missing_group": expect(RuntimeError, lambda: platform.get_platform_resource_group("Nope")),
            }  # fmt: skip
            seen["no_execute_ctx"] = expect(RuntimeError, get_execute_ctx)
            seen["compile_views"] = (x.storage_shape.dims, y.data_type, alpha)
            seen["kept_compile"] = (options, platform, x)

        def declare_launch_args(
            self, x: Tensor, b: Tensor, y: Tensor, *, alpha: float
        ) -> None:
            seen["declare"] += 1
            ctx = get_declare_launch_args_ctx()
            seen["no_compile_ctx"] = expect(RuntimeError, get_compile_ctx)
            workspace = ctx.malloc_workspace(64)
            seen["workspace"] = (type(workspace), workspace.index, workspace.size)
            args = ctx.create_kernel_args()
            seen["arg_errors"] = [
                expect(IndexError, lambda: args.append_input(2, x)),
                expect(IndexError, lambda: args.append_output(1, y)),
                expect(ValueError, lambda: args.append_input(0, b)),
                expect(TypeError, lambda: args.append_input(0, "x")),
                expect(TypeError, lambda: args.append_workspace(64)),
                expect(TypeError, lambda: args.append_scalar("1")),
            ]
            scratch = ctx.create_kernel_args()  # never launched
            scratch.append_scalar(np.bool_(True))
            scratch.append_scalar(np.int32(-1))
            scratch.append_scalar(DataType.DT_BF16)
            scratch.append_scalar(0.5)
            seen["scalars"] = [slot.value for slot in scratch.slots]
            args.append_input(0, x)
            args.append_input(1, b)
            args.append_output(0, y)
            args.append_scalar(x.shape_size)
            args.append_scalar(alpha)
            info = AnnotatedKernelLaunchInfo(
                kernel_name="ctx_axpy",
                kernel_bin=kernel_bin(),
                block_dim=2,
                stream_id=ctx.get_stream_id(),
            )
            ctx.add_launch(info, args)
            seen["reuse"] = [
                expect(RuntimeError, lambda: args.append_scalar(1)),
                expect(RuntimeError, lambda: ctx.add_launch(info, args)),
            ]
            seen["kept_declare"] = (ctx, args, workspace, x)

    builder = GraphBuilder(unique("annotated"))
    x = builder.create_input(0, shape=[5])
    b = builder.create_input(1, shape=[5])
    y = op.build(inputs={"x": x, "b": b}, attrs={"alpha": 2.0}, name="ann")
    session.add_graph(1, builder.build_and_reset([y]), {"graph.option": "g"})
    session.compile_graph(1)
    assert (seen["compile"], seen["declare"]) == (1, 1)
    for i in range(3):
        xs = np.arange(5, dtype=np.float32) + i
        (out,) = session.run_graph(
            1, [GraphTensor(xs), GraphTensor(np.ones(5, np.float32))]
        )
        np.testing.assert_allclose(out.numpy(), 2 * xs + 1)
    assert (seen["compile"], seen["declare"]) == (1, 1)  # runs refresh addresses only

    assert seen["options"] == ("0", "on", "g", None)
    platform = seen["platform"]
    assert platform["soc"].startswith("CPU-")
    assert platform["cores"] == platform["ai_cores"] == (os.cpu_count() or 1)
    assert platform["cube"] == 0
    assert (
        platform["group"]["ai_core_cnt"]
        == platform["resource"]
        == str(platform["cores"])
    )
    assert platform["missing"] == "platform resource SoCInfo/nope is not defined"
    assert platform["missing_group"] == "platform resource group Nope is not defined"
    assert (
        seen["no_execute_ctx"]
        == "get_execute_ctx() is only available inside its callback"
    )
    assert (
        seen["no_compile_ctx"]
        == "get_compile_ctx() is only available inside its callback"
    )
    assert seen["compile_views"] == ([5], DataType.DT_FLOAT, 2.0)
    assert seen["workspace"] == (WorkspaceAddr, 0, 64)
    errors = seen["arg_errors"]
    assert errors[0] == "input index 2 out of range: node ann has 2 flattened inputs"
    assert errors[1] == "output index 1 out of range: node ann has 1 flattened outputs"
    assert errors[2] == "the tensor given is not input 0 of node ann"
    assert errors[3] == "append_input takes a ge.runtime.Tensor, got str"
    assert errors[4] == "append_workspace takes a WorkspaceAddr from this context"
    assert errors[5] == "a scalar argument is an int, float, bool or DataType, got str"
    assert seen["scalars"] == [1, 2**64 - 1, 27, 0x3FE0000000000000]
    consumed = "these kernel args were consumed by add_launch; create new ones"
    assert seen["reuse"] == [consumed, consumed]

    expired = "is no longer valid"
    options, platform_info, compile_x = seen["kept_compile"]
    ctx, args, workspace, declare_x = seen["kept_declare"]
    for use in (
        lambda: options.get_option("ge.exec.deviceId"),
        platform_info.get_soc_version,
        platform_info.get_core_num,
        lambda: compile_x.addr,
        ctx.create_kernel_args,
        ctx.get_stream_id,
        lambda: ctx.malloc_workspace(8),
        lambda: args.append_scalar(1),
        lambda: workspace.addr,
        lambda: workspace.index,
        lambda: workspace.size,
        lambda: declare_x.storage_shape,
    ):
        with pytest.raises(RuntimeError, match=expired):
            use()


def _annotated_one(op_type: str, methods: dict[str, Any]) -> api.OpDef:
    op = api.OpDef(
        op_type,
        inputs=(api.Input("x", "float32"),),
        outputs=(api.Output("y", "float32"),),
    )

    def infer(x: TensorDesc) -> TensorDesc:
        return TensorDesc(x.shape, x.data_type)

    register_op(op_type=op_type, output_names=("y",))(infer)
    register_op_impl(op_type=op_type)(type("Impl", (), methods))
    return op


def _declare_copy(self: Any, x: Tensor, y: Tensor) -> None:
    ctx = get_declare_launch_args_ctx()
    args = ctx.create_kernel_args()
    args.append_input(0, x)
    args.append_output(0, y)
    args.append_scalar(x.shape_size)
    info = AnnotatedKernelLaunchInfo(
        kernel_name="ctx_copy", kernel_bin=kernel_bin(), block_dim=1, stream_id=0
    )
    ctx.add_launch(info, args)


def _compile_returns_one(self: Any, x: Tensor, y: Tensor) -> None:
    return 1  # type: ignore[return-value]


def _declare_returns_text(self: Any, x: Tensor, y: Tensor) -> None:
    _declare_copy(self, x, y)
    return "done"  # type: ignore[return-value]


def _compile_raises(self: Any, x: Tensor, y: Tensor) -> None:
    raise KeyError(0)


@pytest.mark.parametrize(
    ("methods", "message"),
    [
        (
            {"compile": _compile_returns_one, "declare_launch_args": _declare_copy},
            "compile must return None",
        ),
        (
            {"declare_launch_args": _declare_returns_text},
            "declare_launch_args must return None",
        ),
        (
            {"compile": _compile_raises, "declare_launch_args": _declare_copy},
            "compile failed: KeyError: 0",
        ),
    ],
)
def test_compile_time_callbacks_must_return_none(
    session: Session, methods: dict[str, Any], message: str
) -> None:
    op = _annotated_one(unique("CompileReturns"), methods)
    builder = GraphBuilder(unique("cr"))
    x = builder.create_input(0, shape=[2])
    session.add_graph(1, builder.build_and_reset([op.build(inputs={"x": x}, name="c")]))
    with pytest.raises(CompileError, match=rf"^node 'c' \({op.op_type}\): {message}$"):
        session.compile_graph(1)


def test_compile_runs_for_execute_nodes_too(session: Session) -> None:
    """GE compiles a CompilableOp whatever runs it: once per key, at compile
    time, before any execute."""
    calls: list[str] = []

    def compile(self: Any, x: Tensor, y: Tensor) -> None:
        calls.append("compile")

    op = _annotated_one(
        unique("ExecAndCompile"), {"compile": compile, "execute": _copy_execute}
    )
    (out,) = _run_one(session, op)
    assert out.data == [0.0, 1.0, 2.0, 3.0]
    assert calls == ["compile"]


def test_an_annotated_node_compiles_once_per_key(session: Session) -> None:
    calls: list[list[int]] = []

    def compile(self: Any, x: Tensor, y: Tensor) -> None:
        calls.append(x.storage_shape.dims)

    op = _annotated_one(
        unique("PerKey"), {"compile": compile, "declare_launch_args": _declare_copy}
    )
    builder = GraphBuilder(unique("perkey"))
    x = builder.create_input(0, shape=[-1])
    session.add_graph(1, builder.build_and_reset([op.build(inputs={"x": x}, name="k")]))
    for n in (3, 5, 3, 5, 3):
        (out,) = session.run_graph(1, [GraphTensor(np.arange(n, dtype=np.float32))])
        assert out.data == list(range(n))
    assert calls == [[3], [5]]


def test_declare_launch_args_errors_are_compile_errors(session: Session) -> None:
    op_type = unique("DeclareFails")
    op = api.OpDef(
        op_type,
        inputs=(api.Input("x", "float32"),),
        outputs=(api.Output("y", "float32"),),
    )

    @register_op(op_type=op_type, output_names=("y",))
    def infer(x: TensorDesc) -> TensorDesc:
        return TensorDesc(x.shape, x.data_type)

    @register_op_impl(op_type=op_type)
    class Impl:
        def declare_launch_args(self, x: Tensor, y: Tensor) -> None:
            get_declare_launch_args_ctx().create_kernel_args().append_input(3, x)

    builder = GraphBuilder(unique("df"))
    x = builder.create_input(0, shape=[2])
    session.add_graph(1, builder.build_and_reset([op.build(inputs={"x": x}, name="d")]))
    with pytest.raises(
        CompileError,
        match=rf"node 'd' \({op_type}\): declare_launch_args failed: IndexError: input index 3 "
        "out of range: node d has 1 flattened inputs",
    ):
        session.compile_graph(1)


def test_launch_info_is_owned_and_checked() -> None:
    info = AnnotatedKernelLaunchInfo(
        kernel_name="k", kernel_bin=bytearray(b"\x7fELF"), block_dim=4, stream_id=0
    )
    assert (info.kernel_name, info.kernel_bin, info.block_dim, info.stream_id) == (
        "k",
        b"\x7fELF",
        4,
        0,
    )
    assert repr(info) == (
        "AnnotatedKernelLaunchInfo(kernel_name='k', kernel_bin=<4 bytes>, block_dim=4, stream_id=0)"
    )
    for kwargs, error, message in [
        ({"kernel_name": ""}, TypeError, "kernel_name must be a non-empty str"),
        ({"kernel_bin": "elf"}, TypeError, "kernel_bin must be bytes, got str"),
        ({"block_dim": 0}, ValueError, "block_dim must be an int in 1..65535, got 0"),
        (
            {"block_dim": True},
            ValueError,
            "block_dim must be an int in 1..65535, got True",
        ),
        (
            {"block_dim": 65536},
            ValueError,
            "block_dim must be an int in 1..65535, got 65536",
        ),
        ({"stream_id": -1}, ValueError, "stream_id must be an int >= 0, got -1"),
    ]:
        args = {
            "kernel_name": "k",
            "kernel_bin": b"",
            "block_dim": 1,
            "stream_id": 0,
            **kwargs,
        }
        with pytest.raises(error, match=message):
            AnnotatedKernelLaunchInfo(**args)
    with pytest.raises(TypeError):
        AnnotatedKernelLaunchInfo("k", b"", 1, 0)  # type: ignore[misc]


@pytest.mark.parametrize(
    "form",
    [
        (StorageShape([2, 2]), StorageFormat(Format.FORMAT_ND)),
        (Shape([2, 2]), Format.FORMAT_ND),
        ([2, 2], Format.FORMAT_ND),
        ((2, 2), StorageFormat(Format.FORMAT_ND, Format.FORMAT_ND)),
    ],
)
def test_malloc_output_tensor_accepts_shape_and_format_forms(
    session: Session, form: Any
) -> None:
    seen: dict[str, Any] = {}

    def execute(self: Any, x: Tensor) -> None:
        ctx = get_execute_ctx()
        y = ctx.malloc_output_tensor(0, form[0], form[1], DataType.DT_FLOAT)
        seen["y"] = (y.storage_shape.dims, y.origin_format, y.data_type)
        rt.launch(
            kernel("ctx_copy"), 1, ctx.get_stream(), [x.addr, y.addr, x.shape_size]
        )

    op = float_op(unique("Forms"), execute)
    (out,) = _run_one(session, op, shape=(2, 2))
    assert out.numpy().tolist() == [[0.0, 1.0], [2.0, 3.0]]
    assert seen["y"] == ([2, 2], Format.FORMAT_ND, DataType.DT_FLOAT)
