"""GE's forms beyond one TensorType per slot, as the golden specs declare
them (tests/golden/specs: promote, list_types, ge_names, shape, while): the
committed generated code is imported, its builders called, and graphs of
each op compiled and run on the CPU device, results compared with numpy.

- Promote (``T3: {promote: [T1, T2]}``): the builder, the generated
  infer_meta and the compile-time dtype rules all give the promotion of
  ge_ir.promotion's table.
- ListTensorType (``T: {list: ...}``): each instance of a dynamic slot has
  its own dtype, and an output of the variable takes them position by
  position.
- Names GE's headers use: ``_GeNamesOp``, an attr ``_kernel``, an input
  called ``name`` (the node-name keyword is then ``node_name``), a dtype attr
  defaulting to DT_UNDEFINED; an op named ``Shape``; an op ``While``, whose
  module is ``while_``.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from types import ModuleType

import numpy as np
import pytest
from _rt_support import ge_api, registries, unique  # noqa: F401
from helpers import ROOT, import_file

from ge.custom_op import DtypeRules, get_execute_ctx, register_op, register_op_impl
from ge.es import GraphBuilder
from ge.es import _op_api as api
from ge.ge_global import GeApi
from ge.graph import DataType, Graph, Tensor
from ge.graph.air import graph_bytes, graph_from_bytes
from ge.graph.numpy_dtypes import to_numpy_dtype
from ge.runtime import Tensor as RuntimeTensor
from ge.runtime import TensorDesc
from ge.session import CompileError, Session
from ge_ir.dtype_rules import SlotDtype
from ge_ir.promotion import PROMOTION, promote_pair

GOLDEN = ROOT / "tests/golden/expected/python"
D = DataType


def _builder(stem: str) -> ModuleType:
    return import_file(GOLDEN / f"ge/es/golden/{stem}.py")


def _impl(stem: str) -> ModuleType:
    return import_file(GOLDEN / f"ge_impl/golden/{stem}.py")


@pytest.fixture
def session(ge_api: GeApi, registries: None) -> Iterator[Session]:
    yield Session()


def _run(session: Session, graph: Graph, *arrays: np.ndarray) -> list[Tensor]:
    graph_id = abs(hash(graph.name)) % 10_000
    session.add_graph(graph_id, graph)
    return list(session.run_graph(graph_id, [Tensor.from_numpy(a) for a in arrays]))


# -- Promote -------------------------------------------------------------------


PROMOTED = [
    (D.DT_INT32, D.DT_FLOAT16, D.DT_FLOAT16),
    (D.DT_UINT8, D.DT_INT8, D.DT_INT16),
    (D.DT_BOOL, D.DT_INT64, D.DT_INT64),
    (D.DT_FLOAT16, D.DT_BF16, D.DT_FLOAT),
    (D.DT_INT32, D.DT_BF16, D.DT_BF16),
    (D.DT_FLOAT, D.DT_INT8, D.DT_FLOAT),
    (D.DT_BOOL, D.DT_INT8, D.DT_INT8),
]


@pytest.mark.parametrize("left, right, promoted", PROMOTED)
def test_the_builder_gives_the_promoted_dtype(
    left: DataType, right: DataType, promoted: DataType
) -> None:
    mul = _builder("mul_promote_op")
    builder = GraphBuilder()
    x1 = builder.create_input(0, data_type=left, shape=[2])
    x2 = builder.create_input(1, data_type=right, shape=[2])
    y = mul.MulPromoteOp(x1, x2)
    assert y.data_type is promoted is promote_pair(left, right)
    assert promote_pair(right, left) is promoted  # the table is symmetric


def test_the_promoted_dtype_waits_for_both_inputs() -> None:
    mul = _builder("mul_promote_op")
    builder = GraphBuilder()
    x1 = builder.create_input(0, data_type=D.DT_INT32, shape=[2])
    unknown = builder.create_input(1, data_type=D.DT_UNDEFINED, shape=[2])
    assert mul.MulPromoteOp(x1, unknown).data_type is D.DT_UNDEFINED
    # A literal binds its variable (float32 first), then the promotion.
    assert mul.MulPromoteOp(x1, 2.5).data_type is D.DT_FLOAT
    with pytest.raises(ValueError, match=r"input 'x2': dtype int32 is not allowed"):
        mul.MulPromoteOp(x1, x1)


def test_a_pair_without_a_promoted_dtype_is_refused_at_build() -> None:
    op = api.OpDef(
        unique("NoPromotion"),
        type_vars={"A": ("uint16",), "B": ("int8",), "P": {"promote": ("A", "B")}},
        inputs=(api.Input("a", "A"), api.Input("b", "B")),
        outputs=(api.Output("y", "P"),),
    )
    builder = GraphBuilder()
    a = builder.create_input(0, data_type=D.DT_UINT16, shape=[1])
    b = builder.create_input(1, data_type=D.DT_INT8, shape=[1])
    with pytest.raises(
        ValueError,
        match=r"output 'y': type variable P promotes A \(uint16\), B \(int8\), "
        "which have no promoted dtype",
    ):
        op.build(inputs={"a": a, "b": b})
    assert builder.build_and_reset([a]).nodes[-1].type != op.op_type


def _register_mul(mul: ModuleType) -> None:
    @register_op_impl(op_type="MulPromoteOp")
    class Mul(mul.MulPromoteOpBase):  # type: ignore[misc, name-defined]
        def execute(self, x1: RuntimeTensor, x2: RuntimeTensor) -> None:
            ctx = get_execute_ctx()
            dtype = promote_pair(x1.data_type, x2.data_type)
            assert dtype is not None
            target = to_numpy_dtype(dtype)
            product = x1.numpy().astype(target) * x2.numpy().astype(target)
            out = ctx.malloc_output_tensor(0, list(product.shape), x1.format, dtype)
            out.copy_from(product)


@pytest.mark.parametrize(
    "left, right",
    [(np.int32, np.float16), (np.uint8, np.int8), (np.bool_, np.int64)],
)
def test_a_promoting_graph_runs_and_matches_numpy(
    session: Session, left: type, right: type
) -> None:
    _register_mul(_impl("mul_promote_op"))
    mul = _builder("mul_promote_op")
    builder = GraphBuilder(unique("promote"))
    a = np.array([[1, 2, 3], [4, 5, 0]]).astype(left)
    b = np.array([3, 1, 2]).astype(right)
    x1 = builder.create_input(0, data_type=_dtype(a), shape=list(a.shape))
    x2 = builder.create_input(1, data_type=_dtype(b), shape=list(b.shape))
    graph = builder.build_and_reset([mul.MulPromoteOp(x1, x2)])
    (out,) = _run(session, graph, a, b)
    promoted = promote_pair(_dtype(a), _dtype(b))
    assert out.data_type is promoted
    expected = a.astype(to_numpy_dtype(promoted)) * b.astype(to_numpy_dtype(promoted))
    assert out.numpy().dtype == expected.dtype
    assert np.array_equal(out.numpy(), expected)


def _dtype(array: np.ndarray) -> DataType:
    from ge.graph.numpy_dtypes import from_numpy_dtype

    return from_numpy_dtype(array.dtype)


def test_the_generated_infer_meta_promotes() -> None:
    impl = _impl("mul_promote_op")
    y = impl.mul_promote_op_infer_meta(
        TensorDesc([2, 1], D.DT_INT32), TensorDesc([3], D.DT_FLOAT16)
    )
    assert (list(y.shape.origin_shape.dims), y.data_type) == ([2, 3], D.DT_FLOAT16)


def test_the_rules_hold_the_promotion_in_graph_files_and_at_compile(
    session: Session,
) -> None:
    """A prototype whose infer_meta gives another dtype than the promotion
    is refused at compile, by the rules the node carries too."""
    mul = _builder("mul_promote_op")
    builder = GraphBuilder(unique("wrong"))
    x1 = builder.create_input(0, data_type=D.DT_INT32, shape=[2])
    x2 = builder.create_input(1, data_type=D.DT_FLOAT16, shape=[2])
    graph = builder.build_and_reset([mul.MulPromoteOp(x1, x2)])
    (node,) = [n for n in graph.nodes if n.type == "MulPromoteOp"]
    assert node.dtype_rules is not None
    assert node.dtype_rules.promotions == {"T3": ("T1", "T2")}
    again = graph_from_bytes(graph_bytes(graph))
    (loaded,) = [n for n in again.nodes if n.type == "MulPromoteOp"]
    assert loaded.dtype_rules == node.dtype_rules
    assert node.dtype_rules.as_json()["promote"] == {"T3": ["T1", "T2"]}

    @register_op(
        op_type="MulPromoteOp",
        output_names=("y",),
        dtype_rules=node.dtype_rules,
    )
    def wrong(x1: TensorDesc, x2: TensorDesc) -> TensorDesc:
        return TensorDesc([2], D.DT_FLOAT)

    session.add_graph(1, again)
    with pytest.raises(
        CompileError,
        match=r"output 'y' is float32, but type variable T3 promotes T1 \(int32\), "
        r"T2 \(float16\) to float16",
    ):
        session.compile_graph(1)


def test_the_table_is_the_documented_one() -> None:
    """docs/spec-reference.md prints PROMOTION; the two must agree."""
    text = (ROOT / "docs/spec-reference.md").read_text(encoding="utf-8")
    section = text.split("### Type promotion", 1)[1].split("\n## ", 1)[0]
    rows = [
        [cell.strip().strip("`") for cell in line.strip("|").split("|")]
        for line in section.splitlines()
        if line.startswith("| ") and "---" not in line
    ]
    header, *body = rows
    names = {
        dt.spec_name: dt for dt in DataType if dt not in (D.DT_MAX, D.DT_UNDEFINED)
    }
    documented = {
        (names[row[0]], names[column]): names[cell]
        for row in body
        for column, cell in zip(header[1:], row[1:])
        if cell not in ("", "–", "-")
    }
    assert documented == {(a, b): c for (a, b), c in PROMOTION.items()} | {
        (dt, dt): dt for dt in {a for a, _ in PROMOTION}
    }


# -- ListTensorType ------------------------------------------------------------


def test_each_instance_has_its_own_dtype_and_the_output_follows() -> None:
    identity = _builder("identity_n_op")
    builder = GraphBuilder()
    f = builder.create_input(0, data_type=D.DT_FLOAT, shape=[2])
    i = builder.create_input(1, data_type=D.DT_INT32, shape=[3])
    ys = identity.IdentityNOp([f, i, True])
    assert [y.data_type for y in ys] == [D.DT_FLOAT, D.DT_INT32, D.DT_BOOL]
    with pytest.raises(ValueError, match=r"input 'x'\[1\]: dtype complex64"):
        identity.IdentityNOp(
            [f, builder.create_input(2, data_type=D.DT_COMPLEX64, shape=[1])]
        )
    # The union of a named set and a dtype (mask: [bool, IndexNumberType]).
    identity.IdentityNOp([f], builder.create_input(3, data_type=D.DT_INT64))
    with pytest.raises(ValueError, match=r"input 'mask': dtype float32"):
        identity.IdentityNOp([f], f)


def test_list_variables_agree_by_position_and_count() -> None:
    op = api.OpDef(
        unique("Lists"),
        type_vars={"L": {"list": ("float32", "int32")}},
        inputs=(
            api.Input("a", "L", dynamic=True),
            api.Input("b", "L", dynamic=True),
        ),
        outputs=(api.Output("y", "L", dynamic=True),),
    )
    builder = GraphBuilder()
    f = builder.create_input(0, data_type=D.DT_FLOAT, shape=[1])
    i = builder.create_input(1, data_type=D.DT_INT32, shape=[1])
    ys = op.build(inputs={"a": [f, i], "b": [f, 7]}, counts={"y": 2})
    assert [y.data_type for y in ys] == [D.DT_FLOAT, D.DT_INT32]
    assert ys[1].node.inputs[3].node.type == "Const"  # 7 became an int32 constant
    with pytest.raises(ValueError, match=r"input 'b'\[0\]: dtype int32 differs"):
        op.build(inputs={"a": [f, i], "b": [i, i]}, counts={"y": 2})
    with pytest.raises(ValueError, match=r"input 'b': has 1 instance\(s\) but"):
        op.build(inputs={"a": [f, i], "b": [f]}, counts={"y": 2})
    with pytest.raises(ValueError, match=r"output 'y': has 3 instance\(s\) but"):
        op.build(inputs={"a": [f, i], "b": [f, i]}, counts={"y": 3})
    rules = op.rules
    assert rules.inputs["a"].per_instance
    assert rules.as_json()["inputs"]["a"]["list"] is True
    assert DtypeRules.from_json(rules.as_json()) == rules
    mixed = [
        SlotDtype("input", "a", 0, D.DT_FLOAT),
        SlotDtype("input", "a", 1, D.DT_INT32),
        SlotDtype("input", "b", 0, D.DT_FLOAT),
        SlotDtype("input", "b", 1, D.DT_INT32),
        SlotDtype("output", "y", 0, D.DT_FLOAT),
        SlotDtype("output", "y", 1, D.DT_FLOAT),
    ]
    fine = mixed[:5] + [SlotDtype("output", "y", 1, D.DT_INT32)]
    assert rules.violation(fine) is None
    assert rules.violation(fine[:5]) == (
        "output 'y' has 1 instance(s) but input 'a' has 2; both are list type "
        "variable L"
    )
    assert rules.violation(mixed) == (
        "output 'y'[1] is float32 but input 'a'[1] is int32; both are type "
        "variable L at one position"
    )


def _register_identity(identity: ModuleType) -> None:
    @register_op_impl(op_type="IdentityNOp")
    class IdentityN(identity.IdentityNOpBase):  # type: ignore[misc, name-defined]
        @staticmethod
        def infer_shapes(
            x: list[TensorDesc], mask: TensorDesc | None
        ) -> list[list[int]]:
            return [list(d.shape.origin_shape.dims) for d in x]

        def execute(self, x: list[RuntimeTensor], mask: RuntimeTensor | None) -> None:
            ctx = get_execute_ctx()
            for index, tensor in enumerate(x):
                data = tensor.numpy()
                out = ctx.malloc_output_tensor(
                    index, list(data.shape), tensor.format, tensor.data_type
                )
                out.copy_from(data)


def test_an_identity_of_mixed_dtypes_runs(session: Session) -> None:
    _register_identity(_impl("identity_n_op"))
    identity = _builder("identity_n_op")
    arrays = [
        np.arange(6, dtype=np.float32).reshape(2, 3),
        np.array([7, -8], dtype=np.int32),
        np.array([True, False, True]),
        np.array(2.5, dtype=np.float16),
    ]
    builder = GraphBuilder(unique("identity"))
    xs = [
        builder.create_input(i, data_type=_dtype(a), shape=list(a.shape))
        for i, a in enumerate(arrays)
    ]
    graph = builder.build_and_reset(identity.IdentityNOp(xs))
    outputs = _run(session, graph, *arrays)
    for got, want in zip(outputs, arrays, strict=True):
        assert got.data_type is _dtype(want)
        assert np.array_equal(got.numpy(), want)


def test_the_generated_infer_meta_pairs_shapes_and_dtypes() -> None:
    impl = _impl("identity_n_op")
    descs = [TensorDesc([2], D.DT_FLOAT), TensorDesc([1, 4], D.DT_BOOL)]

    class Author(impl.IdentityNOpBase):  # type: ignore[misc, name-defined]
        @staticmethod
        def infer_shapes(
            x: list[TensorDesc], mask: TensorDesc | None
        ) -> list[list[int]]:
            return [[9], [8, 7]]

        def execute(self, x: list[RuntimeTensor], mask: RuntimeTensor | None) -> None:
            raise AssertionError("not run here")

    got = impl.identity_n_op_infer_meta(descs, None)
    assert [(list(d.shape.origin_shape.dims), d.data_type) for d in got] == [
        ([9], D.DT_FLOAT),
        ([8, 7], D.DT_BOOL),
    ]


# -- names GE's headers use ------------------------------------------------------


def test_ge_names_keep_their_names_and_the_node_name_yields() -> None:
    names = _builder("_ge_names_op")
    function = names._GeNamesOp
    assert str(inspect.signature(function)) == (
        "(_x: 'TensorHolder | TensorLike', name: 'TensorHolder | TensorLike', *, "
        "_kernel: 'str' = '', out_type: 'DataType' = <DataType.DT_UNDEFINED: 28>, "
        "node_name: 'str | None' = None) -> 'TensorHolder'"
    )
    builder = GraphBuilder()
    x = builder.create_input(0, data_type=D.DT_FLOAT, shape=[2])
    y = function(x, name=x, node_name="cast", _kernel="k")
    node = y.node
    assert node.name == "cast" and [e.node.name for e in node.inputs] == [
        "input_0",
        "input_0",
    ]
    assert "out_type" not in node.attrs  # at its default (DT_UNDEFINED): off the node
    assert node.attrs["_kernel"][1] == "k"
    with pytest.raises(TypeError, match=r"_GeNamesOp: parameter 'node_name'"):
        function(x, x, node_name=3)
    loaded = graph_from_bytes(graph_bytes(builder.build_and_reset([y])))
    (again,) = [n for n in loaded.nodes if n.type == "_GeNamesOp"]
    assert "out_type" not in again.attrs


def _register_ge_names(impl: ModuleType) -> None:
    @register_op_impl(op_type="_GeNamesOp")
    class GeNames(impl._GeNamesOpBase):  # type: ignore[misc, name-defined]
        @staticmethod
        def infer_meta(
            _x: TensorDesc, name: TensorDesc, *, _kernel: str, out_type: DataType
        ) -> TensorDesc:
            dtype = _x.data_type if out_type is D.DT_UNDEFINED else out_type
            return TensorDesc(list(_x.shape.origin_shape.dims), dtype)

        def execute(
            self,
            _x: RuntimeTensor,
            name: RuntimeTensor,
            *,
            _kernel: str,
            out_type: DataType,
        ) -> None:
            dtype = _x.data_type if out_type is D.DT_UNDEFINED else out_type
            total = (_x.numpy() + name.numpy()).astype(to_numpy_dtype(dtype))
            out = get_execute_ctx().malloc_output_tensor(
                0, list(total.shape), _x.format, dtype
            )
            out.copy_from(total)


@pytest.mark.parametrize("out_type", [D.DT_UNDEFINED, D.DT_INT32])
def test_an_op_of_ge_names_runs(session: Session, out_type: DataType) -> None:
    _register_ge_names(_impl("_ge_names_op"))
    names = _builder("_ge_names_op")
    builder = GraphBuilder(unique("names"))
    x = builder.create_input(0, data_type=D.DT_FLOAT, shape=[3])
    graph = builder.build_and_reset([names._GeNamesOp(x, x, out_type=out_type)])
    data = np.array([1.25, 2.5, -3.0], dtype=np.float32)
    (out,) = _run(session, graph, data)
    want = (data + data).astype(np.float32 if out_type is D.DT_UNDEFINED else np.int32)
    assert np.array_equal(out.numpy(), want)


def _register_shape(impl: ModuleType) -> None:
    @register_op_impl(op_type="Shape")
    class ShapeImpl(impl.ShapeBase):  # type: ignore[misc, name-defined]
        @staticmethod
        def infer_shapes(x: TensorDesc, *, dtype: DataType) -> list[int]:
            return [len(x.shape.origin_shape.dims)]

        def execute(self, x: RuntimeTensor, *, dtype: DataType) -> None:
            dims = np.array(x.storage_shape.dims, dtype=to_numpy_dtype(dtype))
            out = get_execute_ctx().malloc_output_tensor(
                0, [len(dims)], x.format, dtype
            )
            out.copy_from(dims)


@pytest.mark.parametrize("dtype", [D.DT_INT32, D.DT_INT64])
def test_an_op_named_shape_runs(session: Session, dtype: DataType) -> None:
    _register_shape(_impl("shape"))
    shape = _builder("shape")
    builder = GraphBuilder(unique("shape"))
    x = builder.create_input(0, data_type=D.DT_FLOAT16, shape=[2, 3, 4])
    y = shape.Shape(x, dtype=dtype)
    assert y.data_type is dtype
    graph = builder.build_and_reset([y])
    (out,) = _run(session, graph, np.zeros((2, 3, 4), dtype=np.float16))
    assert out.data_type is dtype
    assert np.array_equal(out.numpy(), np.array([2, 3, 4], dtype=to_numpy_dtype(dtype)))


def test_while_lives_in_module_while_() -> None:
    module = _builder("while_")
    assert str(inspect.signature(module.While)) == (
        "(input: 'Sequence[TensorHolder | TensorLike]', cond: 'Graph', body: "
        "'Graph', *, parallel_iterations: 'int' = 10, name: 'str | None' = None) "
        "-> 'list[TensorHolder]'"
    )
    builder = GraphBuilder()
    x = builder.create_input(0, shape=[1])
    outputs = module.While([x, x], Graph("cond"), Graph("body"))
    assert len(outputs) == 2 and outputs[0].node.type == "While"
