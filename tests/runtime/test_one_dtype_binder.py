"""One type-variable binder (ge_ir.dtype_rules.DtypeBinder) for the builder
and the compiler: one table of dtype mismatches drives a generated-style
builder (``OpDef.build``) and the compiler's check (``check_dtypes``, on a
node of the same IR a lax table built).
Both refuse each row with the same Mismatch, made by the binder, and word
it as they always have: the builder after the argument's name, the
compiler after the node's."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from _rt_support import unique

import ge_ir.dtype_rules as dtype_rules
from ge.custom_op.proto import OpProto
from ge.engine.errors import CompileError
from ge.engine.infer import check_dtypes
from ge.es import GraphBuilder
from ge.es import _op_api as api
from ge.es.tensor_holder import TensorHolder
from ge.graph import DataType
from ge.graph.graph import TensorMeta
from ge_ir.dtype_rules import Mismatch

D = DataType
F32, F16, I32, I8, U16 = D.DT_FLOAT, D.DT_FLOAT16, D.DT_INT32, D.DT_INT8, D.DT_UINT16


@dataclass(frozen=True)
class Row:
    name: str
    type_vars: dict[str, Any]
    inputs: tuple[api.Input, ...]
    outputs: tuple[api.Output, ...]
    given: dict[str, DataType | list[DataType]]  # each input's dtype(s)
    output_dtypes: tuple[DataType, ...]  # what the compiler sees the node give
    where: str
    detail: str  # the builder's words, after ``where``
    sentence: str  # the compiler's


T_PAIR = {"T": ("float32", "float16")}
L_LIST = {"L": {"list": ("float32", "int32")}}
LISTS = (api.Input("xs", "L", dynamic=True), api.Input("ys", "L", dynamic=True))
XW = (api.Input("x", "T"), api.Input("w", "T"))

ROWS = [
    Row(
        "a dtype its variable does not allow",
        T_PAIR,
        XW,
        (api.Output("y", "T"),),
        {"x": I32, "w": F32},
        (D.DT_UNDEFINED,),
        "input 'x'",
        "dtype int32 is not allowed; T (float32, float16) allowed",
        "input 'x' is int32; T (float32, float16) allowed",
    ),
    Row(
        "a dtype its slot does not allow",
        {},
        (api.Input("x", "float32"),),
        (api.Output("y", "float32"),),
        {"x": I32},
        (F32,),
        "input 'x'",
        "dtype int32 is not allowed; float32 allowed",
        "input 'x' is int32; float32 allowed",
    ),
    Row(
        "two slots of one variable that differ",
        T_PAIR,
        XW,
        (api.Output("y", "T"),),
        {"x": F32, "w": F16},
        (D.DT_UNDEFINED,),
        "input 'w'",
        "dtype float16 differs from input 'x' (float32); both are type variable T",
        "input 'w' is float16 but input 'x' is float32; both are type variable T",
    ),
    Row(
        "a list variable that differs at one position",
        L_LIST,
        LISTS,
        (api.Output("z", "float32"),),
        {"xs": [F32, I32], "ys": [F32, F32]},
        (F32,),
        "input 'ys'[1]",
        "dtype float32 differs from input 'xs'[1] (int32); both are type variable L",
        "input 'ys'[1] is float32 but input 'xs'[1] is int32; both are type "
        "variable L at one position",
    ),
    Row(
        "slots of a list variable with other counts",
        L_LIST,
        LISTS,
        (api.Output("z", "float32"),),
        {"xs": [F32, F32], "ys": [F32]},
        (F32,),
        "input 'ys'",
        "has 1 instance(s) but input 'xs' has 2; both are list type variable L",
        "input 'ys' has 1 instance(s) but input 'xs' has 2; both are list type "
        "variable L",
    ),
    Row(
        "variables with no promoted dtype",
        {"A": ("uint16",), "B": ("int8",), "P": {"promote": ("A", "B")}},
        (api.Input("a", "A"), api.Input("b", "B")),
        (api.Output("y", "P"),),
        {"a": U16, "b": I8},
        (F32,),
        "output 'y'",
        "type variable P promotes A (uint16), B (int8), which have no promoted dtype",
        "output 'y': type variable P promotes A (uint16), B (int8), which have no "
        "promoted dtype",
    ),
]


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Mismatch]]:
    """Every Mismatch the binder makes while the test runs."""
    found: list[Mismatch] = []

    @dataclass(frozen=True)
    class Recorded(Mismatch):
        def __post_init__(self) -> None:
            found.append(self)

    monkeypatch.setattr(dtype_rules, "Mismatch", Recorded)
    yield found


def _op(row: Row) -> api.OpDef:
    return api.OpDef(
        unique("OneBinder"),
        type_vars=row.type_vars,
        inputs=row.inputs,
        outputs=row.outputs,
    )


def _holders(
    builder: GraphBuilder, row: Row
) -> dict[str, TensorHolder | list[TensorHolder]]:
    """Each input of the row, of its dtype."""
    index = 0

    def holder(dtype: DataType) -> TensorHolder:
        nonlocal index
        index += 1
        return builder.create_input(index - 1, data_type=dtype, shape=[2])

    return {
        name: [holder(d) for d in given] if isinstance(given, list) else holder(given)
        for name, given in row.given.items()
    }


def _built(op: api.OpDef, row: Row) -> None:
    builder = GraphBuilder(unique("g"))
    op.build(inputs=_holders(builder, row))


def _compiled(op: api.OpDef, row: Row) -> None:
    """The compiler's dtype check of the row's node: built by a table of
    the same IR that allows any dtype (a graph file could hold such a
    node), carrying the row's rules as a generated builder records them,
    with the row's dtypes where the compiler infers them."""
    lax = api.OpDef(
        unique("Lax"),
        inputs=[api.Input(i.name, (), dynamic=i.dynamic) for i in row.inputs],
        outputs=[api.Output(o.name, ()) for o in row.outputs],
    )
    builder = GraphBuilder(unique("g"))
    lax.build(inputs=_holders(builder, row), name="n")
    graph = builder.build_and_reset([])
    (node,) = [n for n in graph.nodes if n.type == lax.op_type]
    node.type, node.dtype_rules = op.op_type, op.rules
    inputs: list[TensorMeta | None] = []
    for given in row.given.values():
        for dtype in given if isinstance(given, list) else [given]:
            inputs.append(TensorMeta((2,), dtype))
    outputs = [TensorMeta((2,), dtype) for dtype in row.output_dtypes]
    proto = OpProto(op.op_type, (), (), (), "", "test", lambda: None, False, op.rules)
    check_dtypes(node, proto, inputs, outputs)


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_the_builder_and_the_compiler_refuse_by_one_binder(
    row: Row, made: list[Mismatch]
) -> None:
    op = _op(row)
    with pytest.raises(ValueError) as built:
        _built(op, row)
    assert str(built.value) == f"{op.op_type}: {row.where}: {row.detail}"
    by_builder = made[-1]
    with pytest.raises(CompileError) as compiled:
        _compiled(op, row)
    assert str(compiled.value) == f"node 'n' ({op.op_type}): {row.sentence}"
    by_compiler = made[-1]
    assert by_builder == by_compiler
    assert (by_compiler.where, by_compiler.detail) == (row.where, row.detail)
    assert by_compiler.sentence == row.sentence
