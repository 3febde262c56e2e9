"""GE's REG_OP grammar as gen-ops writes it: which macro each element gets,
how dtypes are spelled, and what the macros declare, so clashes are caught
before g++ (docs/ge-compat.md, "REG_OP").

Each element macro pastes the element's name into member names (GE's
operator_reg.h): INPUT(x, t) declares ``name_in_x``, ``set_input_x``, ...
and a private ``__input_x``. Two elements that paste to the same member, or a
member that the system headers define as a macro, make the header fail.

Dtype arguments are always a quoted type variable or a parenthesised
``TensorType(...)`` expression, never bare braces, because REG_OP's macros
would split a brace list at its commas. The same text is GE's dtype symbol
(the stringified macro argument) in the history export.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from ge_ir.attrs import AttrType
from ge_ir.types import DataType
from gen_ops.base.diagnostics import Span
from gen_ops.lowering.cpp_reserved import SYSTEM_MACROS
from gen_ops.spec.model import (
    Attr,
    DtypeConstraint,
    DtypeKind,
    DtypeSet,
    Input,
    InputKind,
    OpSpec,
    Output,
    Subgraph,
    TypeVar,
    TypeVarKind,
)


class RegOpMacro(enum.Enum):
    """The element macros of REG_OP, in the order gen-ops writes elements
    (inputs, outputs, attrs, graphs, type variables); the value is the
    macro's name."""

    INPUT = "INPUT"
    OPTIONAL_INPUT = "OPTIONAL_INPUT"
    DYNAMIC_INPUT = "DYNAMIC_INPUT"
    OUTPUT = "OUTPUT"
    DYNAMIC_OUTPUT = "DYNAMIC_OUTPUT"
    ATTR = "ATTR"
    REQUIRED_ATTR = "REQUIRED_ATTR"
    GRAPH = "GRAPH"
    DYNAMIC_GRAPH = "DYNAMIC_GRAPH"
    DATATYPE = "DATATYPE"

    @property
    def words(self) -> str:
        """``optional input``: the element kind in messages."""
        return self.name.lower().replace("_", " ")

    @property
    def members(self) -> tuple[str, ...]:
        """The member names the macro declares, ``{}`` for the element's name."""
        return _MEMBERS[self]


_MEMBERS = {
    RegOpMacro.INPUT: (
        "name_in_{}",
        "set_input_{}",
        "set_input_{}_by_name",
        "get_input_desc_{}",
        "update_input_desc_{}",
        "__input_{}",
    ),
    RegOpMacro.OPTIONAL_INPUT: (
        "name_in_{}",
        "set_input_{}",
        "set_input_{}_by_name",
        "get_input_desc_{}",
        "update_input_desc_{}",
        "__optional_input_{}",
    ),
    RegOpMacro.DYNAMIC_INPUT: (
        "create_dynamic_input_{}",
        "create_dynamic_input_byindex_{}",
        "get_dynamic_input_desc_{}",
        "update_dynamic_input_desc_{}",
        "set_dynamic_input_{}",
        "__dy_input_{}",
    ),
    RegOpMacro.OUTPUT: (
        "name_out_{}",
        "get_output_desc_{}",
        "update_output_desc_{}",
        "__out_{}",
    ),
    RegOpMacro.DYNAMIC_OUTPUT: (
        "create_dynamic_output_{}",
        "get_dynamic_output_desc_{}",
        "update_dynamic_output_desc_{}",
        "__dy_output_{}",
    ),
    RegOpMacro.ATTR: ("name_attr_{}", "get_attr_{}", "set_attr_{}", "__attr_{}"),
    RegOpMacro.REQUIRED_ATTR: (
        "name_attr_{}",
        "get_attr_{}",
        "set_attr_{}",
        "__required_attr_{}",
    ),
    RegOpMacro.GRAPH: (
        "name_graph_{}",
        "get_subgraph_builder_{}",
        "set_subgraph_builder_{}",
        "get_subgraph_{}",
        "__graph_{}",
    ),
    RegOpMacro.DYNAMIC_GRAPH: (
        "name_graph_{}",
        "create_dynamic_subgraph_{}",
        "get_dynamic_subgraph_builder_{}",
        "get_dynamic_subgraph_{}",
        "set_dynamic_subgraph_builder_{}",
        "__graph_{}",
    ),
    RegOpMacro.DATATYPE: ("__datatype_{}",),
}

# Note [Names REG_OP refers to]: REG_OP(x) declares class x in namespace
# ge::op, and every op's expansion refers to GE's names from inside its class
# or from namespace op (tests/cpp/graph/operator_reg.h expands as GE does).
# An op class named like one of them hides it there: in its own header, and
# in every header after it in the translation unit (the module's proto .cc
# includes them all), so an op type may not take one whatever its own
# elements are (E304):
# - REG_OP and OP_END_FACTORY_REG: Operator (the creator lambda's return
#   type, at namespace scope), OpReg, AscendString, OperatorCreatorRegister;
# - tensor elements: TensorDesc; graphs: SubgraphBuilder, Graph;
# - DATATYPE's ranges: TensorType, ListTensorType, Promote;
# - attr defaults: Tensor() and the DataType enumerators.
# Each attr's value type is Op<Type>, a member of Operator, which the op's
# class finds in its base before namespace op: only an op of that name with
# an attr of that type in its REG_OP hides it (``ge_names_of``). Names REG_OP
# never refers to (Shape, Format, DataType, ...) are fine: GE declares
# REG_OP(Shape). NamedAttrs is one of them: only a NamedAttrs attr's default
# would name it, and REG_OP declares no such attr (Note [NamedAttrs in
# REG_OP]), so neither NamedAttrs nor OpNamedAttrs is refused for REG_OP.
GE_NAMES = frozenset("""
    Operator OpReg AscendString OperatorCreatorRegister TensorDesc
    SubgraphBuilder Graph TensorType ListTensorType Promote Tensor
    """.split()) | frozenset(dt.name for dt in DataType)


def ge_names_of(op: OpSpec) -> frozenset[str]:
    """The GE names ``op``'s class must not take (Note [Names REG_OP refers
    to]): GE_NAMES, and the Op<Type> of each attr its REG_OP declares."""
    return GE_NAMES | {f"Op{a.type.ir_name}" for a in op.attrs if declares(a)}


_INPUT_MACRO = {
    InputKind.REQUIRED: RegOpMacro.INPUT,
    InputKind.OPTIONAL: RegOpMacro.OPTIONAL_INPUT,
    InputKind.DYNAMIC: RegOpMacro.DYNAMIC_INPUT,
}

Item = Input | Output | Attr | Subgraph | TypeVar


@dataclass(frozen=True)
class Element:
    """One REG_OP element: its macro, its name and the spec item behind it."""

    macro: RegOpMacro
    name: str
    item: Item


def macro_of(item: Item) -> RegOpMacro:
    """The macro an element gets: by input kind; dynamic or not for outputs
    and graphs; ATTR with a default, REQUIRED_ATTR without one (derived attrs
    included, since REG_OP cannot derive)."""
    if isinstance(item, Input):
        return _INPUT_MACRO[item.kind]
    if isinstance(item, Output):
        return RegOpMacro.DYNAMIC_OUTPUT if item.dynamic else RegOpMacro.OUTPUT
    if isinstance(item, Attr):
        return RegOpMacro.REQUIRED_ATTR if item.default is None else RegOpMacro.ATTR
    if isinstance(item, Subgraph):
        return RegOpMacro.DYNAMIC_GRAPH if item.dynamic else RegOpMacro.GRAPH
    return RegOpMacro.DATATYPE


# Note [NamedAttrs in REG_OP]: GE's external headers declare class
# NamedAttrs (operator.h) and never define it; only GE's internal headers do.
# REG_OP therefore cannot declare an attr of type NamedAttrs or
# ListNamedAttrs in a header built against them (tests/cpp/ge_external
# proves it), whatever its default: ATTR's and REQUIRED_ATTR's getter
# returns Op<Type> by value, ATTR constructs Op<Type>(default...), and a
# std::vector<NamedAttrs> is never complete enough to construct or destroy.
# gen-ops leaves such attrs out of the REG_OP chain, says so in the header's
# comment and warns (W905); everything else (builders, prototypes, graph and
# model files, docs, the history export) keeps them. In a GE graph they are
# attrs outside the IR, which Operator::SetAttr accepts for NamedAttrs.
UNDECLARABLE_ATTR_TYPES = frozenset({AttrType.NAMED_ATTRS, AttrType.LIST_NAMED_ATTRS})


def declares(item: Item) -> bool:
    """Whether REG_OP declares ``item`` (Note [NamedAttrs in REG_OP])."""
    return not (isinstance(item, Attr) and item.type in UNDECLARABLE_ATTR_TYPES)


def elements(op: OpSpec) -> tuple[Element, ...]:
    """Every REG_OP element of ``op``, in the order the header declares them
    (attrs REG_OP cannot declare left out: Note [NamedAttrs in REG_OP])."""
    items: Iterable[Item] = (
        *op.inputs,
        *op.outputs,
        *op.attrs,
        *op.graphs,
        *op.type_vars,
    )
    return tuple(
        Element(macro_of(item), item.name, item) for item in items if declares(item)
    )


def tensor_type(written: DtypeSet) -> str:
    """A set as GE's TensorType writes it: ``TensorType::NumberType()`` for
    a named set alone, ``TensorType({DT_A, DT_B})`` for dtypes (in the
    spec's order, Note [Dtype order]). A union of named sets and dtypes
    (``[BasicType, bool]``) is written with its members, ``TensorType({
    DT_COMPLEX128, ..., DT_BOOL})``: GE's TensorType has a constructor from
    a DataType and one from a list of them, and no union of a set and
    dtypes, so the spelling ``TensorType({BasicType(), DT_BOOL})`` of some
    real headers is no C++ expression. Written so, an element's argument
    compiles as GE's headers evaluate it (``bench/type_expressions.py``)
    and means the same where the macros only stringify it."""
    if written.set_name:
        return f"TensorType::{written.set_name}()"
    return "TensorType({" + ", ".join(d.name for d in written.dtypes) + "})"


def type_var_range(var: TypeVar) -> str:
    """DATATYPE's range: ``TensorType(...)``, ``ListTensorType(TensorType(...))``
    or ``Promote({"T1", "T2"})``."""
    if var.kind is TypeVarKind.PROMOTE:
        return "Promote({" + ", ".join(f'"{name}"' for name in var.promote) + "})"
    range_ = tensor_type(var.written)
    return f"ListTensorType({range_})" if var.kind is TypeVarKind.LIST else range_


def dtype_symbol(dtype: DtypeConstraint) -> str:
    """GE's dtype symbol of an input or output: a type variable's name, or
    its range expression (the history export stores this text)."""
    if dtype.var is not None:
        return dtype.var.name
    assert dtype.written is not None
    return tensor_type(dtype.written)


def dtype_argument(dtype: DtypeConstraint) -> str:
    """The dtype argument of INPUT(x, <this>): the symbol, quoted when it is
    a type variable."""
    symbol = dtype_symbol(dtype)
    return f'"{symbol}"' if dtype.kind is DtypeKind.VAR else symbol


@dataclass(frozen=True)
class MemberClash:
    """A member REG_OP would declare that cannot compile: declared twice
    (``other`` says for what), or a system macro (``other`` is None)."""

    member: str
    span: Span
    other: str | None


@lru_cache(maxsize=4096)
def _declared(macro: RegOpMacro, name: str) -> tuple[str, tuple[str, ...]]:
    """The element as messages name it, and the members ``macro`` declares
    for it (the same names come back in spec after spec: each pair is
    spelled once)."""
    label = f"{macro.words} '{name}'"
    return label, tuple(pattern.format(name) for pattern in macro.members)


def member_clashes(op: OpSpec) -> list[MemberClash]:
    """Every member REG_OP would declare twice or that is a system macro."""
    own = f"__{op.op_type}"
    seen: dict[str, str] = {own: f"op {op.op_type}"}
    problems: list[MemberClash] = []
    if own in SYSTEM_MACROS:
        problems.append(MemberClash(own, op.span, None))
    for element in elements(op):
        label, members = _declared(element.macro, element.name)
        for member in members:
            if member in SYSTEM_MACROS:
                problems.append(MemberClash(member, element.item.span, None))
            elif member in seen and seen[member] != label:
                problems.append(MemberClash(member, element.item.span, seen[member]))
            seen.setdefault(member, label)
    return problems
