"""An imported op: frozen dataclasses, in spec terms, ready to be written.

``OpShape`` is everything REG_OP declares and nothing else (no docs, no
positions), so two declarations of an op are the same exactly when their
shapes are equal (``merge``). ``ImportedOp`` adds the docs, the module and
where the declaration stands.

Dtypes are spec names (``float32``), in the order the header lists them;
named sets keep their name. Values are the spec's: a dtype default is its
spec name, a float keeps its spelling (``Number``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from ge_ir.attrs import AttrType
from gen_ops.base.diagnostics import Span


@dataclass(frozen=True)
class VarRef:
    """A type variable declared by DATATYPE (``"T"``)."""

    name: str


@dataclass(frozen=True)
class NamedSet:
    """One of GE's named TensorType sets, kept by name."""

    name: str


@dataclass(frozen=True)
class DtypeList:
    """A list of dtypes by spec name, and of named sets by name (their
    union: ``TensorType({BasicType(), DT_BOOL})``), in header order, each
    once."""

    names: tuple[str, ...]


@dataclass(frozen=True)
class Promote:
    """``Promote({"T1", "T2"})``: the promoted type of those type
    variables."""

    vars: tuple[str, ...]


@dataclass(frozen=True)
class ListOf:
    """``ListTensorType(...)``: per-instance types of a dynamic slot."""

    inner: NamedSet | DtypeList


DtypeRef: TypeAlias = VarRef | NamedSet | DtypeList
Range: TypeAlias = NamedSet | DtypeList | Promote | ListOf


@dataclass(frozen=True)
class TypeVar:
    name: str
    range: Range


@dataclass(frozen=True)
class Slot:
    """An input or an output."""

    name: str
    dtype: DtypeRef
    optional: bool = False
    dynamic: bool = False


@dataclass(frozen=True)
class Number:
    """A float as the header spelled it (``1e-5``, suffix dropped)."""

    text: str


# A default's value in spec form.
Value: TypeAlias = "None | bool | int | str | bytes | Number | tuple[Value, ...]"


@dataclass(frozen=True)
class Default:
    value: Value
    # The DataType enumerators (I304) and GE's named constants (I311) an
    # int default was spelled with (written into the YAML as a comment).
    names: tuple[str, ...] = ()
    # The C++ text of a Float default evaluated as a constant expression
    # (I310), written into the YAML as a comment; the value is the result.
    evaluated: str | None = None


@dataclass(frozen=True)
class Attr:
    name: str
    type: AttrType
    default: Default | None
    # The C++ text of a default that could not be imported (I305): the attr
    # has no default then, and the YAML says why in a comment.
    dropped: str | None = None


@dataclass(frozen=True)
class Graph:
    name: str
    dynamic: bool = False


@dataclass(frozen=True)
class OpShape:
    op_type: str
    type_vars: tuple[TypeVar, ...]
    inputs: tuple[Slot, ...]
    outputs: tuple[Slot, ...]
    attrs: tuple[Attr, ...]
    graphs: tuple[Graph, ...]


@dataclass(frozen=True)
class Place:
    """Where an element of the declaration stands (``gen-ops roundtrip``
    points at it): its name argument, its type argument (an input's or
    output's dtype, a type variable's range, an attr's type; the name for a
    graph) and ATTR's default (None for other elements)."""

    role: str  # input, output, attr, graph, type variable
    name: str
    at: Span
    type_at: Span
    default_at: Span | None = None


@dataclass(frozen=True)
class ImportedOp:
    shape: OpShape
    doc: str
    # (role, name, doc) of each documented parameter; roles are input,
    # output, attr and graph.
    param_docs: tuple[tuple[str, str, str], ...]
    module: str
    span: Span  # the op's name in REG_OP(...)
    places: tuple[Place, ...] = ()  # of the imported elements, in header order

    @property
    def op_type(self) -> str:
        return self.shape.op_type

    def place(self, role: str, name: str) -> Place | None:
        """The first element of that role and name."""
        return next((p for p in self.places if (p.role, p.name) == (role, name)), None)

    def param_doc(self, role: str, name: str) -> str:
        return next(
            (doc for r, n, doc in self.param_docs if (r, n) == (role, name)), ""
        )
