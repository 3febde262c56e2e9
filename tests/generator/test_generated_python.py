"""The generated Python, imported and called: builder signatures, defaults,
dtype checks, derived attrs and counts, results, and the impl modules."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest
from helpers import ROOT, load_ops

import ge.es.control as control
import ge.es.custom as custom
import ge.es.custom.attr_zoo_custom as zoo_module
from ge.es import GraphBuilder, TensorHolder
from ge.es._op_api import NO_DEFAULT
from ge.graph import DataType, Graph, NamedAttrs, Tensor
from gen_ops.spec.model import InputKind

OPS = {op.op_type: op for op in load_ops(ROOT / "specs")[0]}


def _builder_modules() -> list[str]:
    names = []
    for package in (custom, control):
        for info in pkgutil.iter_modules(package.__path__):
            names.append(f"{package.__name__}.{info.name}")
    return sorted(names)


@pytest.mark.parametrize("module_name", _builder_modules())
def test_every_builder_module_imports_and_matches_its_spec(module_name: str) -> None:
    module = importlib.import_module(module_name)
    (op_type,) = [n for n in dir(module) if n in OPS]
    spec = OPS[op_type]
    function = getattr(module, op_type)
    params = list(inspect.signature(function).parameters.values())
    # Inputs first, positional, in IR order.
    for param, item in zip(params, spec.inputs):
        assert param.kind is param.POSITIONAL_OR_KEYWORD
        assert param.name.endswith(item.name)
    keyword = [p for p in params if p.kind is p.KEYWORD_ONLY]
    assert keyword[-1].name == "name" and keyword[-1].default is None
    given = [a for a in spec.attrs if a.derive is None]
    required = [a for a in given if a.required]
    optional = [a for a in given if not a.required]
    assert [p.name for p in keyword[:-1]] == [a.name for a in required + optional]
    for param, attr in zip(keyword[: len(required)], required):
        assert param.default is inspect.Parameter.empty, attr.name
    for param, attr in zip(keyword[len(required) : -1], optional):
        assert attr.default is not None
        assert param.default == attr.default.value, attr.name
    # Derived attrs are never parameters; count-ruled outputs need no _num.
    names = {p.name for p in params}
    for attr in spec.attrs:
        if attr.derive is not None:
            assert attr.name not in names
    for output in spec.outputs:
        assert (f"{output.name}_num" in names) == (
            output.dynamic and output.count is None
        )
    assert spec.doc.splitlines()[0] in (function.__doc__ or "")
    assert op_type in importlib.import_module(module_name.rsplit(".", 1)[0]).__all__


EXPECTED_SIGNATURES = {
    "AnnotatedAddCustom": "(x1: 'TensorHolder | TensorLike', x2: 'TensorHolder | TensorLike', *, name: 'str | None' = None) -> 'TensorHolder'",
    "LayerNormCustom": "(x: 'TensorHolder | TensorLike', gamma: 'TensorHolder | TensorLike | None' = None, beta: 'TensorHolder | TensorLike | None' = None, *, begin_norm_axis: 'int' = -1, epsilon: 'float' = 1e-05, name: 'str | None' = None) -> 'LayerNormCustomOutput'",
    "ConcatCustom": "(x: 'Sequence[TensorHolder | TensorLike]', *, concat_dim: 'int' = 0, name: 'str | None' = None) -> 'TensorHolder'",
    "SplitCustom": "(x: 'TensorHolder | TensorLike', *, num_split: 'int', split_dim: 'int' = 0, name: 'str | None' = None) -> 'list[TensorHolder]'",
    "FillCustom": "(owner_graph_builder: 'GraphBuilder', *, shape: 'Sequence[int]', dtype: 'DataType' = <DataType.DT_FLOAT: 0>, value: 'float' = 0.0, name: 'str | None' = None) -> 'TensorHolder'",
    "IfCustom": "(cond: 'TensorHolder | TensorLike', input: 'Sequence[TensorHolder | TensorLike]', output_num: 'int', then_branch: 'Graph', else_branch: 'Graph', *, name: 'str | None' = None) -> 'list[TensorHolder]'",
    "CastCustom": "(x: 'TensorHolder | TensorLike', *, dst_type: 'DataType', truncate: 'bool' = False, name: 'str | None' = None) -> 'TensorHolder'",
}


@pytest.mark.parametrize("op_type", sorted(EXPECTED_SIGNATURES))
def test_exact_signatures(op_type: str) -> None:
    module = custom if hasattr(custom, op_type) else control
    assert (
        str(inspect.signature(getattr(module, op_type))) == EXPECTED_SIGNATURES[op_type]
    )


def _inputs(
    builder: GraphBuilder,
    n: int,
    dtype: DataType = DataType.DT_FLOAT,
    shape: list[int] | None = None,
) -> list[TensorHolder]:
    return [
        builder.create_input(i, data_type=dtype, shape=shape or [4]) for i in range(n)
    ]


def test_a_node_per_call_with_the_ir_layout() -> None:
    b = GraphBuilder("g")
    x, y = _inputs(b, 2)
    z = custom.AnnotatedAddCustom(x, y, name="add")
    assert isinstance(z, TensorHolder) and z.name == "add"
    node = z.node
    assert node.type == "AnnotatedAddCustom"
    assert [e.node.name for e in node.inputs] == ["input_0", "input_1"]
    assert z.data_type is DataType.DT_FLOAT  # T bound by the inputs


def test_dtype_constraints_and_type_variables_are_checked_at_build_time() -> None:
    b = GraphBuilder()
    x = b.create_input(0, data_type=DataType.DT_FLOAT)
    h = b.create_input(1, data_type=DataType.DT_FLOAT16)
    i = b.create_input(2, data_type=DataType.DT_INT32)
    with pytest.raises(
        ValueError, match=r"AddCustom: input 'y'.*float16.*type variable T"
    ):
        custom.AddCustom(x, h)
    with pytest.raises(ValueError, match=r"AddCustom: input 'x'.*int32 is not allowed"):
        custom.AddCustom(i, i)
    assert custom.AddCustom(h, h).data_type is DataType.DT_FLOAT16


def test_wrong_argument_types_name_the_op_and_parameter() -> None:
    b = GraphBuilder()
    (x,) = _inputs(b, 1)
    with pytest.raises(
        TypeError, match=r"AddCustom: input 'y': expected a TensorHolder"
    ):
        custom.AddCustom(x, "text")  # type: ignore[arg-type]
    with pytest.raises(
        TypeError, match=r"SplitCustom: attr 'num_split': expected int, got str"
    ):
        custom.SplitCustom(x, num_split="2")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"ConcatCustom: input 'x': expected a list"):
        custom.ConcatCustom(x)  # type: ignore[arg-type]
    with pytest.raises(
        TypeError, match=r"LayerNormCustom: input 'x': is required, got None"
    ):
        custom.LayerNormCustom(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        custom.SplitCustom(x)  # type: ignore[call-arg]  # num_split is required


def test_literals_become_constants_of_the_peer_dtype() -> None:
    b = GraphBuilder()
    (h,) = _inputs(b, 1, DataType.DT_FLOAT16)
    z = custom.AddCustom(h, 2)
    const = z.node.inputs[1].node
    assert const.type == "Const"
    assert const.get_attr("value").data_type is DataType.DT_FLOAT16
    with pytest.raises(ValueError, match="irregular"):
        custom.AddCustom(h, [[1, 2], [3]])


def test_derived_attrs_and_count_rules() -> None:
    b = GraphBuilder()
    xs = _inputs(b, 3)
    y = custom.ConcatCustom(xs, concat_dim=1)
    assert y.node.get_attr("N") == 3 and y.node.get_attr("concat_dim") == 1
    assert [ir.count for ir in y.node.ir_inputs] == [3]
    parts = custom.SplitCustom(y, num_split=4)
    assert isinstance(parts, list) and len(parts) == 4
    assert [p.index for p in parts] == [0, 1, 2, 3]
    cast = custom.CastCustom(xs[0], dst_type=DataType.DT_FLOAT16)
    assert cast.node.get_attr("src_type") is DataType.DT_FLOAT
    # The output dtype comes from dst_type (infer_meta: attr(dst_type)).
    assert cast.data_type is DataType.DT_FLOAT16
    back = custom.CastCustom(cast, dst_type=DataType.DT_INT64)
    assert back.node.get_attr("src_type") is DataType.DT_FLOAT16
    with pytest.raises(
        ValueError,
        match=r"CastCustom: attr 'dst_type': gives output 'y' dtype bool, which is "
        r"not one of DstT \(float32, float16, int32, int64\)",
    ):
        custom.CastCustom(xs[0], dst_type=DataType.DT_BOOL)
    fill = custom.FillCustom(b, shape=[2], value=1, dtype=DataType.DT_INT64)
    assert fill.data_type is DataType.DT_INT64
    unknown = custom.SplitCustom(xs[0], num_split=1)[0]
    unknown.node.outputs[0].dtype = DataType.DT_UNDEFINED
    with pytest.raises(ValueError, match="CastCustom: attr 'src_type'.*set_data_type"):
        custom.CastCustom(unknown, dst_type=DataType.DT_FLOAT)


def test_several_outputs_come_back_as_a_named_tuple() -> None:
    b = GraphBuilder()
    (x,) = _inputs(b, 1)
    result = custom.LayerNormCustom(x, epsilon=1e-6)
    y, mean, rstd = result
    assert result.y is y and result.mean is mean and result.rstd is rstd
    assert type(result).__name__ == "LayerNormCustomOutput"
    node = y.node
    assert node.inputs[1] is None and node.inputs[2] is None  # absent optionals
    assert len(node.inputs) == 3
    assert node.get_attr("epsilon") == 1e-6
    assert "begin_norm_axis" not in node.attrs  # at its default: off the node
    assert mean.data_type is DataType.DT_FLOAT


def test_attr_defaults_are_exact_and_immutable() -> None:
    b = GraphBuilder()
    (x,) = _inputs(b, 1)
    node = custom.AttrZooCustom(x, required_i=7).node
    # Note [Defaults stay off the node]: only the required attr is written;
    # the op table holds each default, exactly.
    assert set(node.attrs) == {"required_i"}
    table = {a.name: a.default for a in zoo_module._OP.attrs}
    assert table["i"] == -(2**63)
    assert table["f"] == 1e-8
    assert table["s"] == 'tab\there "quoted" \\ ünïcode'
    assert table["dt"] is DataType.DT_BF16
    assert table["by"] == b"\x00\x01ab"
    assert table["lli"] == ((), (2, 3), (4,))
    assert table["ldt"] == (DataType.DT_FLOAT, DataType.DT_INT64)
    assert table["t"] is NO_DEFAULT and table["na"] is NO_DEFAULT  # empty
    given = custom.AttrZooCustom(
        x, required_i=7, i=-(2**63) + 1, f=-1e-8, lli=[[], [2, 3], [4]]
    ).node
    assert set(given.attrs) == {"required_i", "i", "f"}  # lli equals its default
    defaults = inspect.signature(custom.AttrZooCustom).parameters
    assert all(not isinstance(p.default, (list, dict)) for p in defaults.values())
    named = NamedAttrs("conv", {"k": 3})
    node2 = custom.AttrZooCustom(
        x, required_i=1, na=named, t=Tensor([1.0]), li=[4]
    ).node
    assert node2.get_attr("na") == named and node2.get_attr("li") == (4,)


def test_no_inputs_takes_owner_graph_builder_and_zero_outputs_returns_a_handle() -> (
    None
):
    """gen_esb's name for an op without inputs (keyword callers pass it)."""
    b = GraphBuilder()
    y = custom.FillCustom(b, shape=[2, 3], dtype=DataType.DT_INT32, value=1.0)
    assert y.node.inputs == [] and y.get_owner_builder() is b
    z = custom.FillCustom(owner_graph_builder=b, shape=[1])
    assert z.get_owner_builder() is b
    with pytest.raises(TypeError, match="parameter 'owner_graph_builder'"):
        custom.FillCustom("not a builder", shape=[1])  # type: ignore[arg-type]


def test_subgraphs_are_owned_by_one_node() -> None:
    b = GraphBuilder()
    cond = b.create_input(0, data_type=DataType.DT_INT32, shape=[])
    a = b.create_input(1, shape=[4])
    then_g, else_g = Graph("then"), Graph("else")
    outs = control.IfCustom(cond, [a], 1, then_g, else_g)
    assert len(outs) == 1 and outs[0].node.subgraphs["then_branch"] == (then_g,)
    with pytest.raises(ValueError, match="IfCustom: subgraph 'then_branch'.*already"):
        control.IfCustom(cond, [a], 1, then_g, Graph("e2"))
    branches = [Graph("b0"), Graph("b1"), Graph("b2")]
    case = control.CaseCustom(b.create_scalar_int32(1), [a], 2, branches)
    assert len(case) == 2 and case[0].node.subgraphs["branches"] == tuple(branches)


def test_cross_builder_use_and_used_builders_are_refused() -> None:
    b1, b2 = GraphBuilder("one"), GraphBuilder("two")
    (x,) = _inputs(b1, 1)
    (y,) = _inputs(b2, 1)
    with pytest.raises(
        ValueError, match=r"AddCustom: input 'y': belongs to graph builder 'two'"
    ):
        custom.AddCustom(x, y)
    b1.set_graph_output(custom.AddCustom(x, x), 0)
    b1.build_and_reset()
    with pytest.raises(RuntimeError, match="already been built"):
        custom.AddCustom(x, x)


def test_node_names_are_unique() -> None:
    b = GraphBuilder()
    (x,) = _inputs(b, 1)
    custom.AddCustom(x, x, name="n")
    with pytest.raises(ValueError, match="already has a node named 'n'"):
        custom.AddCustom(x, x, name="n")


def _impl_modules() -> list[str]:
    import ge_impl.custom  # the control ops have neither infer_meta nor impl

    return sorted(
        f"ge_impl.custom.{info.name}"
        for info in pkgutil.iter_modules(ge_impl.custom.__path__)
    )


@pytest.mark.parametrize("module_name", _impl_modules())
def test_every_impl_module_registers_its_prototype(module_name: str) -> None:
    from ge.custom_op import get_registered_op_proto_by_op_type

    module = importlib.import_module(module_name)
    spec = OPS[module.OP_TYPE]
    proto = get_registered_op_proto_by_op_type(spec.op_type)
    assert proto is not None
    kinds = {
        InputKind.REQUIRED: "required",
        InputKind.OPTIONAL: "optional",
        InputKind.DYNAMIC: "dynamic",
    }
    assert [(i.name, i.kind) for i in proto.inputs] == [
        (i.name, kinds[i.kind]) for i in spec.inputs
    ]
    assert [o.name for o in proto.outputs] == [o.name for o in spec.outputs]
    assert [(a.name, a.type, a.required) for a in proto.attrs] == [
        (a.name, a.type, a.default is None) for a in spec.attrs
    ]
    base = getattr(module, f"{spec.op_type}Base", None)
    if spec.impl is None:
        assert base is None
        return
    assert inspect.isabstract(base)
    for capability in spec.impl.capabilities:
        method = getattr(base, capability.value)
        params = list(inspect.signature(method).parameters.values())
        keyword = [p.name for p in params if p.kind is p.KEYWORD_ONLY]
        assert keyword == [a.name for a in spec.attrs]
        positional = len(params) - 1 - len(keyword)
        outputs = 0 if capability.value == "execute" else len(spec.outputs)
        assert positional == len(spec.inputs) + outputs
