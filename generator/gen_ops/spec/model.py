"""The spec model: frozen dataclasses built only from specs that validated.

Everything later (lowering, templates) reads this model and never re-derives
a rule it already decided. Order is IR order everywhere.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ge_ir.attrs import AttrType
from ge_ir.types import NAMED_TENSOR_TYPES, DataType, dtype_from_spec_name
from gen_ops.base.diagnostics import Span


class InputKind(enum.Enum):
    REQUIRED = "required"  # INPUT
    OPTIONAL = "optional"  # OPTIONAL_INPUT
    DYNAMIC = "dynamic"  # DYNAMIC_INPUT


class DtypeKind(enum.Enum):
    VAR = "var"  # a type variable declared under dtypes
    LIST = "list"  # inline dtypes: a list (a union, with named sets) or one name
    SET = "set"  # one of GE's named TensorType sets, alone


@dataclass(frozen=True)
class DtypeSet:
    """Dtypes as the spec writes them: dtype names and GE's named sets, in
    the spec's order, each once (Note [Dtype order] in semantics.dtypes).
    One named set alone keeps its name (``NumberType``); several items are
    their union (``[BasicType, bool]``)."""

    items: tuple[str, ...]

    @property
    def set_name(self) -> str | None:
        """The named set, when it stands alone."""
        if len(self.items) == 1 and self.items[0] in NAMED_TENSOR_TYPES:
            return self.items[0]
        return None

    @property
    def sets(self) -> tuple[str, ...]:
        return tuple(i for i in self.items if i in NAMED_TENSOR_TYPES)

    @property
    def dtypes(self) -> tuple[DataType, ...]:
        """The members: each named set's in DataType order, each listed
        dtype where the spec lists it; each once."""
        members: list[DataType] = []
        for item in self.items:
            if item in NAMED_TENSOR_TYPES:
                members += sorted(NAMED_TENSOR_TYPES[item].types)
            else:
                members.append(dtype_from_spec_name(item))
        return tuple(dict.fromkeys(members))

    def words(self) -> str:
        """``BasicType, bool``: the items as the spec lists them."""
        return ", ".join(self.items)


class TypeVarKind(enum.Enum):
    """Note [Type variable kinds] in ge_ir/dtype_rules.py."""

    TENSOR = "tensor"  # DATATYPE(T, TensorType(...)): one dtype for all
    LIST = "list"  # DATATYPE(T, ListTensorType(...)): one per instance
    PROMOTE = "promote"  # DATATYPE(T, Promote({...})): the promoted dtype


@dataclass(frozen=True)
class TypeVar:
    """A type variable. ``written`` is its set (TENSOR, LIST; empty for
    PROMOTE), ``promote`` the variables a PROMOTE variable promotes, in
    order, and ``dtypes`` what its slots allow: the set's members, or every
    dtype the promotion can give."""

    name: str
    kind: TypeVarKind
    written: DtypeSet
    promote: tuple[str, ...]
    dtypes: tuple[DataType, ...]
    span: Span

    @property
    def set_name(self) -> str | None:
        return self.written.set_name


@dataclass(frozen=True)
class DtypeConstraint:
    """What an input's or output's ``dtype`` means: a type variable
    (``var``), or dtypes written inline (``written``). ``dtypes`` is always
    the resolved set."""

    kind: DtypeKind
    dtypes: tuple[DataType, ...]
    written: DtypeSet | None = None
    var: TypeVar | None = None

    @property
    def name(self) -> str | None:
        """The type variable's name (VAR) or the named set's (SET)."""
        if self.var is not None:
            return self.var.name
        return self.written.set_name if self.written is not None else None


@dataclass(frozen=True)
class FormerName:
    """An earlier name of an input or attr (``renamed_from:``): the builder
    keeps it as a deprecated keyword alias (docs/releases.md, "Builders that
    keep old calls")."""

    name: str
    release: str  # the release that renamed it
    span: Span  # the old name's value


@dataclass(frozen=True)
class Input:
    name: str
    kind: InputKind
    dtype: DtypeConstraint
    doc: str
    span: Span
    deprecated: str | None = None  # the release that deprecated it
    renamed_from: tuple[FormerName, ...] = ()


class CountKind(enum.Enum):
    LEN = "len"  # len(<dynamic input>)
    ATTR = "attr"  # attr(<int attr>)


@dataclass(frozen=True)
class CountRule:
    """How many instances a dynamic output has."""

    kind: CountKind
    ref: str

    def __str__(self) -> str:
        return f"{self.kind.value}({self.ref})"


@dataclass(frozen=True)
class Output:
    name: str
    dynamic: bool
    count: CountRule | None
    dtype: DtypeConstraint
    doc: str
    span: Span
    # An output named like an input (its generated names take ref_): GE's
    # ref (in-place) pair when both are dynamic or neither (W907 otherwise).
    ref_input: str | None = None
    # ``reuse_input:``: the input whose memory the output may take (GE's
    # TensorUtils::SetReuseInput / SetReuseInputIndex; Note [Reuse input]).
    reuse_input: str | None = None


class DeriveKind(enum.Enum):
    LEN = "len"  # len(<dynamic input>) for an int attr
    DTYPE = "dtype"  # dtype(<input>) for a dtype attr


@dataclass(frozen=True)
class DeriveRule:
    kind: DeriveKind
    input: str

    def __str__(self) -> str:
        return f"{self.kind.value}({self.input})"


@dataclass(frozen=True)
class Default:
    """An attr default, normalised by ``ge_ir.attrs.check_attr_value``.

    ``value`` None means "empty" for tensor and named_attrs attrs.
    ``spellings`` keeps how the spec wrote its floats, so that ``1e-8``
    renders as ``1e-8``: one entry for a float attr, one per item for a
    list_float attr (None where the YAML text is not a number), none for the
    other types.
    """

    value: Any
    spellings: tuple[str | None, ...] = ()


@dataclass(frozen=True)
class Attr:
    name: str
    type: AttrType
    default: Default | None
    derive: DeriveRule | None
    doc: str
    span: Span
    deprecated: str | None = None  # the release that deprecated it
    renamed_from: tuple[FormerName, ...] = ()

    @property
    def required(self) -> bool:
        """REQUIRED_ATTR: the caller must pass it."""
        return self.default is None and self.derive is None


@dataclass(frozen=True)
class Subgraph:
    name: str
    dynamic: bool
    doc: str
    span: Span


class ShapeKind(enum.Enum):
    SAME_AS = "same_as"
    BROADCAST = "broadcast"
    ATTR = "attr"
    LITERAL = "literal"


@dataclass(frozen=True)
class ShapeRule:
    kind: ShapeKind
    refs: tuple[str, ...] = ()
    dims: tuple[int, ...] = ()

    def __str__(self) -> str:
        if self.kind is ShapeKind.LITERAL:
            return "[" + ", ".join(map(str, self.dims)) + "]"
        return f"{self.kind.value}({', '.join(self.refs)})"


class DtypeRuleKind(enum.Enum):
    INPUT = "input"  # the dtype of an input
    FIXED = "fixed"  # a dtype name
    ATTR = "attr"  # the value of a dtype attr
    # The output's own list or promoted type variable (``ref``): per
    # instance, or the promotion; never written, always implied.
    VAR = "var"


@dataclass(frozen=True)
class DtypeRule:
    kind: DtypeRuleKind
    ref: str | None = None
    dtype: DataType | None = None

    def __str__(self) -> str:
        if self.kind is DtypeRuleKind.FIXED:
            assert self.dtype is not None
            return self.dtype.spec_name
        if self.kind is DtypeRuleKind.ATTR:
            return f"attr({self.ref})"
        return str(self.ref)


@dataclass(frozen=True)
class InferOutput:
    """One output's infer_meta rule. A part that is None is inferred by the
    implementation (its ``infer_shapes`` / ``infer_dtypes``); never both."""

    output: str
    shape: ShapeRule | None
    dtype: DtypeRule | None


class Capability(enum.Enum):
    """GE's capabilities, in the order the skeleton declares them."""

    EXECUTE = "execute"  # EagerExecuteOp
    COMPILE = "compile"  # CompilableOp
    DECLARE_LAUNCH_ARGS = "declare_launch_args"  # AnnotatedArgsOp


class LaunchArgKind(enum.Enum):
    INPUT = "input"
    OUTPUT = "output"
    WORKSPACE = "workspace"
    ATTR = "attr"


@dataclass(frozen=True)
class LaunchArg:
    kind: LaunchArgKind
    name: str | None = None
    size: int | None = None


@dataclass(frozen=True)
class Library:
    """impl.library: the kernel is ``function`` of a prebuilt shared library,
    called as ``function(pointer..., stream)`` with ``call_args`` (inputs
    and outputs only) in order."""

    function: str
    call_args: tuple[LaunchArg, ...]


@dataclass(frozen=True)
class Impl:
    capabilities: tuple[Capability, ...]
    kernel: str | None
    launch_args: tuple[LaunchArg, ...]
    # Author module path as written in the spec: relative to the project root,
    # without "..", checked (E704).
    author: str | None
    library: Library | None = None

    def has(self, capability: Capability) -> bool:
        return capability in self.capabilities


@dataclass(frozen=True)
class Reference:
    """``reference:``: a numpy expression over the op's inputs and attrs, or
    a ``module:function`` (docs/opcheck.md)."""

    text: str
    function: bool  # module:function rather than an expression
    span: Span


@dataclass(frozen=True)
class Elementwise:
    """``elementwise:``: the op's scalar expression (Note [Element-wise
    expressions] in ``ge_ir.elementwise``), as written and checked."""

    text: str
    span: Span


# A sample shape: per input, its dims (int sizes or expressions of letters
# and int attrs); None leaves an optional input out; a tuple of dim tuples
# gives a dynamic input's instances.
SampleDims = tuple[int | str, ...]
SampleShape = tuple[tuple[str, SampleDims | tuple[SampleDims, ...] | None], ...]


@dataclass(frozen=True)
class SampleValues:
    range: tuple[float, float] | None = None
    special: tuple[str | float, ...] = ()
    # ``const:``: the input is a Const node of this value (a number, or
    # nested tuples of them), not drawn: an input the op reads when the
    # graph is compiled (Split's split_dim, Transpose's perm).
    const: Any = None


@dataclass(frozen=True)
class ErrorCase:
    """A case the op must refuse, and the exception it must raise."""

    shapes: SampleShape
    dtypes: tuple[tuple[str, str], ...]
    attrs: tuple[tuple[str, Any], ...]
    raises: str
    match: str | None
    span: Span


@dataclass(frozen=True)
class Samples:
    """``samples:``: how gen-ops test draws cases (docs/opcheck.md)."""

    shapes: tuple[SampleShape, ...] = ()
    dims: tuple[int, int] = (1, 6)
    attrs: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    values: SampleValues = SampleValues()
    input_values: tuple[tuple[str, SampleValues], ...] = ()
    errors: tuple[ErrorCase, ...] = ()
    # A subgraph op's sample subgraphs: ``module:function`` (docs/opcheck.md).
    graphs: str | None = None


@dataclass(frozen=True)
class Tolerance:
    dtype: DataType
    atol: float
    rtol: float


@dataclass(frozen=True)
class BreakingMark:
    """An entry of the spec's ``breaking:`` list: the op breaks callers of
    ``release`` (and of every earlier release) on purpose, for ``reason``
    (docs/releases.md, "Marking a break intended")."""

    release: str
    reason: str
    span: Span  # the release's value


@dataclass(frozen=True)
class PastElement:
    """An input, output or subgraph as a release recorded it: its name, GE's
    element type (``INPUT``, ``OPTIONAL_INPUT``, ``DYNAMIC_INPUT``,
    ``OUTPUT``, ``DYNAMIC_OUTPUT``, ``STATIC``, ``DYNAMIC``) and its dtype
    symbol (None for a subgraph, or when not recorded)."""

    name: str
    type: str
    dtype: str | None = None
    # earlier names the release records (renamed_from); not compared
    former: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class PastAttr:
    """An attr as a release recorded it: GE's IR type name (``Int``,
    ``ListFloat``, ...), its required flag and ``default_value`` (a JSON
    literal in a string; None when not recorded)."""

    name: str
    type: str
    required: bool
    default: str | None = None
    former: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class PastOp:
    """The op as one release of the history registry recorded it (gen-ops
    --registry): its elements and attrs in IR order, for the builders' call
    shapes (gen_ops.lowering.call_shapes) and the C++ ES API's overloads
    (gen_ops.lowering.es_overloads)."""

    version: str
    inputs: tuple[PastElement, ...]
    attrs: tuple[PastAttr, ...]
    outputs: tuple[PastElement, ...] = ()
    subgraphs: tuple[PastElement, ...] = ()


@dataclass(frozen=True)
class OpSpec:
    op_type: str
    module: str
    doc: str
    since: str | None
    deprecated: str | None
    type_vars: tuple[TypeVar, ...]
    inputs: tuple[Input, ...]
    outputs: tuple[Output, ...]
    attrs: tuple[Attr, ...]
    graphs: tuple[Subgraph, ...]
    infer_meta: tuple[InferOutput, ...] | None
    impl: Impl | None
    spec_path: str  # the spec file, as diagnostics name it (cwd-relative)
    label: str  # the spec file as banners name it: stable across machines
    file_stem: str  # snake_case name of every per-op file
    span: Span
    # Where author modules are placed from (Note [Project root] in discovery).
    project: Path = Path(".")
    # Breaks of earlier releases made on purpose (gen-ops compat, changelog).
    breaking: tuple[BreakingMark, ...] = ()
    # The op in each release of the registry render was given, oldest first
    # (empty: no registry, or no release had the op).
    past: tuple[PastOp, ...] = ()
    # What the op computes and how to test it (gen-ops test; docs/opcheck.md).
    reference: Reference | None = None
    samples: Samples | None = None
    tolerance: tuple[Tolerance, ...] = ()
    # The op's element-wise expression, when it declares one (fusion).
    elementwise: Elementwise | None = None

    def input(self, name: str) -> Input:
        return next(i for i in self.inputs if i.name == name)

    def attr(self, name: str) -> Attr:
        return next(a for a in self.attrs if a.name == name)

    def output(self, name: str) -> Output:
        return next(o for o in self.outputs if o.name == name)
