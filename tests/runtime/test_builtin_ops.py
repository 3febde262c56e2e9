"""GE's built-in math ops come with ge-ops (issue 22, finding 1; Note
[Built-in ops] in ge.custom_op.builtin): TensorHolder arithmetic and
ge.es.math compile and run with no ASCEND_CUSTOM_OPP_PATH, and a user op may
not register a built-in type."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from ge.custom_op import (
    bootstrap,
    builtin,
    clear_registered_op_impls,
    clear_registered_op_protos,
    get_registered_op_impl,
    get_registered_op_proto_by_op_type,
    register_op,
    register_op_impl,
)
from ge.engine.errors import CompileError
from ge.runtime import TensorDesc

ROOT = Path(__file__).resolve().parents[2]

# A process that sees no op path: only what ge-ops itself brings.
ARITHMETIC = textwrap.dedent("""
    import numpy as np
    from ge.es import GraphBuilder
    from ge.es.math import Relu
    from ge.ge_global import GeApi
    from ge.graph import DataType, Tensor
    from ge.session import Session

    GeApi().ge_initialize({"ge.exec.deviceId": "0"})
    builder = GraphBuilder("builtin")
    x = builder.create_input(0, data_type=DataType.DT_FLOAT, shape=[2, 3])
    y = builder.create_input(1, data_type=DataType.DT_FLOAT, shape=[3])
    graph = builder.build_and_reset([Relu(x * 2.0 + y)])
    session = Session({})
    session.add_graph(0, graph)
    a = np.arange(-3, 3, dtype=np.float32).reshape(2, 3)
    b = np.array([0.5, -1.0, 2.0], dtype=np.float32)
    (out,) = session.run_graph(0, [Tensor.from_numpy(a), Tensor.from_numpy(b)])
    assert np.array_equal(out.numpy(), np.maximum(a * 2.0 + b, 0)), out.numpy()
    print("builtin ok")
    """)


def test_arithmetic_runs_with_no_op_path(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ASCEND_CUSTOM_OPP_PATH"}
    result = subprocess.run(
        [sys.executable, "-c", ARITHMETIC],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "builtin ok" in result.stdout


def test_the_table_is_the_math_specs() -> None:
    ops = set()
    for spec in (ROOT / "specs").glob("math_*.yaml"):
        data = yaml.safe_load(spec.read_text())
        assert data["module"] == builtin.MODULE
        ops.add(data["op"])
    assert ops == builtin.OP_TYPES


def test_the_library_is_found_and_registered_by_its_own_files() -> None:
    where = builtin.locations()
    assert where is not None
    assert (where.ops / "add.py").is_file()
    assert (where.impl / "add.py").is_file()
    assert (where.builders / "add.py").is_file()
    bootstrap.load_builtin_ops()
    for op_type in builtin.OP_TYPES:
        proto = get_registered_op_proto_by_op_type(op_type)
        impl = get_registered_op_impl(op_type)
        assert proto is not None and impl is not None, op_type
        assert builtin.is_builtin_source(proto.source), proto.source
        assert builtin.is_builtin_source(impl.source), impl.source


@pytest.fixture
def cleared() -> Iterator[None]:
    """Registries emptied before and after; the built-ins come back on use."""
    clear_registered_op_protos()
    clear_registered_op_impls()
    yield
    clear_registered_op_protos()
    clear_registered_op_impls()


def test_cleared_registries_get_the_builtins_back(cleared: None) -> None:
    assert get_registered_op_proto_by_op_type("Mul") is None
    assert bootstrap.load_builtin_ops()  # imported again
    assert get_registered_op_proto_by_op_type("Mul") is not None
    assert get_registered_op_impl("Mul") is not None
    assert bootstrap.load_builtin_ops() == []  # once


def test_a_user_prototype_of_a_builtin_type_is_refused(cleared: None) -> None:
    with pytest.raises(ValueError) as caught:

        @register_op(op_type="Add", output_names=("y",))
        def my_add(x1: TensorDesc, x2: TensorDesc) -> TensorDesc:
            return x1

    message = str(caught.value)
    assert "Add is a built-in op of ge-ops" in message
    assert "test_builtin_ops.py" in message
    assert "AddCustom" in message
    assert get_registered_op_proto_by_op_type("Add") is None


def test_a_user_implementation_of_a_builtin_type_is_refused(cleared: None) -> None:
    with pytest.raises(ValueError, match="Relu is a built-in op of ge-ops"):

        @register_op_impl(op_type="Relu")
        class MyRelu:
            def execute(self) -> None:
                pass

    assert get_registered_op_impl("Relu") is None


def test_an_op_path_module_of_a_builtin_type_fails_its_load(
    cleared: None, tmp_path: Path
) -> None:
    (tmp_path / "my_mul.py").write_text(textwrap.dedent("""
            from ge.custom_op import register_op
            from ge.runtime import TensorDesc

            @register_op(op_type="Mul", output_names=("y",))
            def mul(x1: TensorDesc, x2: TensorDesc) -> TensorDesc:
                return x1
            """))
    with pytest.raises(ValueError, match="Mul is a built-in op of ge-ops") as caught:
        bootstrap.load_custom_op_plugins(str(tmp_path), installed=False)
    assert any("my_mul.py" in note for note in caught.value.__notes__)
    assert get_registered_op_proto_by_op_type("Mul") is None
    # the built-in is untouched by the failed load
    bootstrap.load_builtin_ops()
    proto = get_registered_op_proto_by_op_type("Mul")
    assert proto is not None and builtin.is_builtin_source(proto.source)


def _runs_table() -> dict[str, frozenset[str]]:
    """ops/math/_runs.py's RUNS, read from the built-in library as loaded."""
    bootstrap.load_builtin_ops()
    impl = get_registered_op_impl("Add")
    assert impl is not None
    package = impl.module_name.rpartition(".")[0]
    runs: dict[str, frozenset[str]] = sys.modules[f"{package}._runs"].RUNS
    return runs


def _members(name: str) -> set[str]:
    """A dtype name, or a named set's members (GE's TensorType::ALL() ...)."""
    from ge_ir.types import NAMED_TENSOR_TYPES

    named = NAMED_TENSOR_TYPES.get(name)
    return {name} if named is None else {d.spec_name for d in named.types}


def test_every_dtype_that_runs_is_declared_and_the_rest_is_listed() -> None:
    runs = _runs_table()
    assert set(runs) == builtin.OP_TYPES
    docs = (ROOT / "docs" / "math-ops.md").read_text()
    for spec in (ROOT / "specs").glob("math_*.yaml"):
        data = yaml.safe_load(spec.read_text())
        declared = {
            expanded
            for values in data["dtypes"].values()
            for name in ([values] if isinstance(values, str) else values)
            for expanded in _members(name)
        }
        for slot in data["inputs"] + data["outputs"]:
            if isinstance(slot["dtype"], list):  # a slot's own set
                declared |= {d for n in slot["dtype"] for d in _members(n)}
            elif slot["dtype"] not in data["dtypes"]:  # one dtype or a named set
                declared |= _members(slot["dtype"])
        assert runs[data["op"]] <= declared, data["op"]
        assert f"`{data['op']}`" in docs


@pytest.mark.parametrize(
    "op_type, data_type, name",
    [
        ("Add", "DT_COMPLEX64", "x1"),
        ("Sub", "DT_BOOL", "x1"),
        ("Exp", "DT_COMPLEX128", "x"),
    ],
)
def test_a_declared_dtype_the_cpu_cannot_run_is_refused_at_compile(
    op_type: str, data_type: str, name: str
) -> None:
    import ge.es.math as math_ops
    from ge.es import GraphBuilder
    from ge.ge_global import GeApi, is_initialized
    from ge.graph import DataType
    from ge.session import Session

    dtype = DataType[data_type]
    builder = GraphBuilder(f"refused_{op_type}")
    x = builder.create_input(0, data_type=dtype, shape=[4])
    op = getattr(math_ops, op_type)
    node = op(x, x) if name == "x1" else op(x)  # the builder takes GE's set
    graph = builder.build_and_reset([node])
    initialised_here = not is_initialized()
    if initialised_here:
        GeApi().ge_initialize({"ge.exec.deviceId": "0"})
    try:
        session = Session({})
        session.add_graph(7, graph)
        with pytest.raises(CompileError) as caught:
            session.compile_graph(7)
    finally:
        if initialised_here:
            GeApi().ge_finalize()
    message = str(caught.value)
    assert f"{op_type}: input {name} is {dtype.spec_name}" in message, message
    assert "CPU device cannot run yet" in message


def _conv_or_matmul(op_type: str, data_type: str) -> Any:
    """A graph of one Conv2D or BatchMatMulV2 on inputs of ``data_type``,
    and that node's output holder."""
    import ge.es.math as math_ops
    from ge.es import GraphBuilder
    from ge.graph import DataType

    dtype = DataType[data_type]
    builder = GraphBuilder(f"own_set_{op_type}")
    if op_type == "Conv2D":
        x = builder.create_input(0, data_type=dtype, shape=[1, 2, 4, 4])
        f = builder.create_input(1, data_type=dtype, shape=[2, 2, 1, 1])
        y = math_ops.Conv2D(
            x, f, strides=[1, 1, 1, 1], pads=[0, 0, 0, 0], data_format="NCHW"
        )
    else:
        x1 = builder.create_input(0, data_type=dtype, shape=[2, 3, 4])
        x2 = builder.create_input(1, data_type=dtype, shape=[2, 4, 5])
        y = math_ops.BatchMatMulV2(x1, x2)
    return builder, y


@pytest.mark.parametrize(
    "op_type, data_type, inferred",
    [
        ("Conv2D", "DT_FLOAT16", "DT_FLOAT16"),
        ("Conv2D", "DT_BF16", "DT_BF16"),
        ("Conv2D", "DT_INT8", "DT_INT32"),
        ("BatchMatMulV2", "DT_FLOAT", "DT_FLOAT"),
        ("BatchMatMulV2", "DT_INT32", "DT_INT32"),
        ("BatchMatMulV2", "DT_INT8", "DT_INT32"),
        ("BatchMatMulV2", "DT_INT4", "DT_INT32"),
    ],
)
def test_conv_and_batch_matmul_outputs_have_ges_own_set(
    op_type: str, data_type: str, inferred: str
) -> None:
    """GE declares Conv2D's and BatchMatMulV2's y with a set of its own (no
    int8 or int4, int32 instead): the builder leaves y's dtype unknown, and
    inference gives the input's dtype, int32 for the quantised inputs
    (docs/math-ops.md, "Output dtype")."""
    from ge.engine.passes.custom_rewrite import infer_metas
    from ge.graph import DataType

    bootstrap.load_builtin_ops()
    builder, y = _conv_or_matmul(op_type, data_type)
    assert y.data_type is DataType.DT_UNDEFINED
    graph = builder.build_and_reset([y])
    infer_metas(graph)
    (node,) = [n for n in graph.nodes if n.type == op_type]
    assert node.outputs[0].dtype is DataType[inferred]


# GE's built-in ops whose CPU implementation is numpy inside execute
# (ops/math/_host.py): their compile refuses what RUNS leaves out.
HOST_OPS = (
    "Identity",
    "TensorMove",
    "Split",
    "Concat",
    "ConcatV2",
    "Transpose",
    "Conv2D",
    "GEMM",
    "BatchMatMulV2",
)


def _host_op_graph(op_type: str, data_type: Any, bias: Any = None) -> Any:
    """A graph of one node named 'op' of ``op_type`` whose data inputs
    (those of its type variable T) are ``data_type``; Conv2D's bias is
    ``bias`` when given. Returns the graph and the input the refusal names."""
    import ge.es.math as m
    from ge.es import GraphBuilder

    b = GraphBuilder(f"host_refused_{op_type}_{data_type.spec_name}")

    def data(index: int, shape: list[int], dtype: Any = data_type) -> Any:
        return b.create_input(index, data_type=dtype, shape=shape)

    name = "x"
    if op_type in ("Identity", "TensorMove"):
        outs = [getattr(m, op_type)(data(0, [2, 3]), name="op")]
    elif op_type == "Split":
        outs = m.Split(1, data(0, [2, 4]), 2, num_split=2, name="op")
    elif op_type == "Concat":
        name = "x[0]"
        outs = [m.Concat(0, [data(0, [2, 3]), data(1, [2, 3])], N=2, name="op")]
    elif op_type == "ConcatV2":
        name = "x[0]"
        outs = [m.ConcatV2([data(0, [2, 3]), data(1, [2, 3])], 1, N=2, name="op")]
    elif op_type == "Transpose":
        outs = [m.Transpose(data(0, [2, 3]), [1, 0], name="op")]
    elif op_type == "Conv2D":
        extra = {} if bias is None else {"bias": data(2, [2], bias)}
        if bias is not None:
            name = "bias"
        outs = [
            m.Conv2D(
                data(0, [1, 2, 4, 4]),
                data(1, [2, 2, 1, 1]),
                strides=[1, 1, 1, 1],
                pads=[0, 0, 0, 0],
                data_format="NCHW",
                name="op",
                **extra,
            )
        ]
    elif op_type == "GEMM":
        name = "a"
        shapes = ([2, 3], [3, 4], [4], [1], [1])
        outs = [m.GEMM(*(data(i, s) for i, s in enumerate(shapes)), name="op")]
    else:
        name = "x1"
        outs = [m.BatchMatMulV2(data(0, [2, 3, 4]), data(1, [2, 4, 5]), name="op")]
    return b.build_and_reset(list(outs)), name


def _compile_error(graph: Any, graph_id: int) -> str | None:
    """The CompileError's message compiling ``graph`` gives, None if it compiles."""
    from ge.session import Session

    session = Session({})
    session.add_graph(graph_id, graph)
    try:
        session.compile_graph(graph_id)
    except CompileError as exc:
        return str(exc)
    finally:
        session.remove_graph(graph_id)
    return None


def _declared(op_type: str, type_var: str) -> set[str]:
    """The members of ``type_var`` in the op's spec."""
    for spec in (ROOT / "specs").glob("math_*.yaml"):
        data = yaml.safe_load(spec.read_text())
        if data["op"] == op_type:
            values = data["dtypes"][type_var]
            names = [values] if isinstance(values, str) else values
            return {d for n in names for d in _members(n)}
    raise AssertionError(f"no spec of {op_type}")


@pytest.fixture
def initialised() -> Iterator[None]:
    from ge.ge_global import GeApi, is_initialized

    initialised_here = not is_initialized()
    if initialised_here:
        GeApi().ge_initialize({"ge.exec.deviceId": "0"})
    yield
    if initialised_here:
        GeApi().ge_finalize()


@pytest.mark.parametrize("op_type", HOST_OPS)
def test_a_host_op_refuses_a_declared_dtype_it_cannot_run_at_compile(
    op_type: str, initialised: None
) -> None:
    """Every dtype of T the op declares and the CPU does not run is a
    CompileError when the graph is compiled, before anything runs, naming
    the node, the op, the input and the dtype (Note [Declared and run
    dtypes]); int8 (and int4) Conv2D and BatchMatMulV2, whose y GE declares
    int32, included."""
    from ge_ir.types import dtype_from_spec_name

    refused = sorted(_declared(op_type, "T") - _runs_table()[op_type])
    assert refused, op_type
    wrong = []
    for k, spec_name in enumerate(refused):
        dtype = dtype_from_spec_name(spec_name)
        graph, name = _host_op_graph(op_type, dtype)
        message = _compile_error(graph, 900 + k)
        wants = [
            "node 'op'",
            f"{op_type}: input {name} is {spec_name}",
            "CPU device cannot run yet",
        ]
        if spec_name == "string":  # no graph carries one to the op on this device
            wants = ["(Data) output 0 (string", "DT_STRING has no fixed element size"]
        if message is None or not all(w in message for w in wants):
            wrong.append(f"{spec_name}: {message}")
    assert not wrong, "\n".join(wrong)


def test_a_conv_bias_of_a_declared_dtype_it_cannot_run_is_refused_at_compile(
    initialised: None,
) -> None:
    """Conv2D's bias has a type variable of its own (TBias): int32 is
    declared, and the CPU runs float biases only."""
    from ge.graph import DataType

    assert "int32" in _declared("Conv2D", "TBias") - _runs_table()["Conv2D"]
    graph, name = _host_op_graph("Conv2D", DataType.DT_FLOAT, DataType.DT_INT32)
    message = _compile_error(graph, 950)
    assert message is not None
    assert "node 'op'" in message
    assert "Conv2D: input bias is int32" in message, message


@pytest.mark.parametrize("op_type", HOST_OPS)
def test_a_host_op_still_compiles_and_runs_what_it_runs(
    op_type: str, initialised: None
) -> None:
    """float32 (int32 too for GEMM and BatchMatMulV2) passes compile."""
    from ge.graph import DataType

    for dtype in (DataType.DT_FLOAT, DataType.DT_INT32):
        if dtype.spec_name not in _runs_table()[op_type]:
            continue
        graph, _ = _host_op_graph(op_type, dtype)
        assert _compile_error(graph, 960) is None, (op_type, dtype)
