"""Lower an OpSpec to GE's C and C++ ES API, the shapes gen_esb gives them
(docs/es-c-cpp.md; deviations in docs/ge-compat.md, "C and C++ ES API").

Per op: ``es_<Op>_c.h`` (the C declaration, in ``extern "C"``), ``es_<Op>.cpp``
(its body, through ``ge::es::CompliantNodeBuilder`` at the V1 IrDef API level)
and ``es_<Op>.h`` (header-only C++ in ``ge::es`` over the C ABI). Per module
the aggregates ``es_<m>_ops_c.h`` and ``es_<m>_ops.h``, and across modules
``es_all_ops_c.h`` / ``es_all_ops.h``. Every decision is made here: names
(Note [ES names]), parameter order, types, defaults and every expression;
the templates (``templates/es/``) only print them.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import re
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial

from ge_ir.attrs import AttrType
from ge_ir.types import DataType
from gen_ops.emit.literals import cpp_float, cpp_int, cpp_str
from gen_ops.emit.outputs import Shared
from gen_ops.emit.render import render
from gen_ops.lowering import es_overloads, layout
from gen_ops.lowering.facts import OpFacts, by_module
from gen_ops.lowering.names import CPP_KEYWORDS
from gen_ops.spec.model import Attr, InputKind, OpSpec

# --- options -----------------------------------------------------------------

# gen_esb's --h_guard_prefix: inserted into every header guard, so that two
# generations (internal and external ops) can share op names. Set for a run
# by ``guard_prefix`` (``render_run.render``, from ``RenderOptions``'
# ``h_guard_prefix`` field, which puts it in the render cache's key and in
# ``--check``: Note [Render options]).
_GUARD_PREFIX: contextvars.ContextVar[str] = contextvars.ContextVar(
    "es_guard_prefix", default=""
)
GUARD_PREFIX_SHAPE = re.compile(r"[A-Za-z0-9_]*")


@contextlib.contextmanager
def guard_prefix(prefix: str) -> Iterator[None]:
    """Render with ``prefix`` in every ES header guard."""
    if not GUARD_PREFIX_SHAPE.fullmatch(prefix):
        raise ValueError(f"header guard prefix {prefix!r}: letters, digits, _ only")
    token = _GUARD_PREFIX.set(prefix)
    try:
        yield
    finally:
        _GUARD_PREFIX.reset(token)


# The guard every gen_esb header carries, so that a header of ours and one of
# gen_esb for the same op are never both included.
_GUARD_ROOT = "AIR_CXX_COMPILER_GRAPH_EAGER_STYLE_GRAPH_BUILDER"


def _guard(name: str, middle: str, suffix: str) -> str:
    sanitized = re.sub(r"[^A-Za-z0-9]", "_", name)
    return f"{_GUARD_ROOT}{_GUARD_PREFIX.get()}{middle}{sanitized}{suffix}"


# --- which ops --------------------------------------------------------------

# gen_esb's own exclusions (by op type): V1 control ops, and ops the ES base
# API already creates.
V1_CONTROL_OPS = frozenset(
    "Switch StreamSwitch Merge StreamMerge Enter Exit LoopCond NextIteration".split()
)
CREATED_BY_BASE_API = frozenset({"Variable"})
# Attr types GE's ES API has no C type for.
UNSUPPORTED_ATTR_TYPES = frozenset(
    {
        AttrType.NAMED_ATTRS,
        AttrType.LIST_NAMED_ATTRS,
        AttrType.BYTES,
        AttrType.LIST_TENSOR,
    }
)


def unsupported(op: OpSpec) -> str | None:
    """Why the ES API leaves ``op`` out (the aggregates list it), or None."""
    if op.op_type in V1_CONTROL_OPS:
        return "Does not support V1 control Operators"
    if op.op_type in CREATED_BY_BASE_API:
        return "Following Operators already provided creation functions"
    for attr in op.attrs:
        if attr.type in UNSUPPORTED_ATTR_TYPES:
            return f"Unsupported attr type: {attr.type.ir_name}"
        if attr.type is AttrType.TENSOR and attr.default is not None:
            if attr.default.value is not None:
                return "Only support 'Tensor()' as default value for Tensor attr"
    return None


# --- names ------------------------------------------------------------------

# Note [ES names]: gen_esb's rule, kept so that calls written against
# gen_esb's API compile against ours. A C++ keyword takes a prefix by role
# (in_, out_, attr_, subgraph_); an output named like an input is ref_<input
# name>, an attr named like an input attr_<input name>. The names of GE's
# C++ API are the same in C.


# Ours beyond gen_esb: a name the generated functions use for themselves
# (their locals, the owner builder parameter) is renamed the same way, or the
# parameter would clash with it (gen_esb's output does not compile then).
TAKEN = frozenset("""owner_builder owner_graph_builder builder ge_graph node out
    input_subgraph subgraph_idx subgraph_instance sub_graph_node index_value
    subgraph_output_cnt dyn_idx i""".split())


def _renamed(name: str) -> bool:
    return name in CPP_KEYWORDS or name in TAKEN


def in_name(name: str) -> str:
    return f"in_{name}" if _renamed(name) else name


def out_name(op: OpSpec, name: str) -> str:
    if any(i.name == name for i in op.inputs):
        return f"ref_{in_name(name)}"
    return f"out_{name}" if _renamed(name) else name


def attr_name(op: OpSpec, name: str) -> str:
    if any(i.name == name for i in op.inputs):
        return f"attr_{in_name(name)}"
    return f"attr_{name}" if _renamed(name) else name


def graph_name(name: str) -> str:
    return f"subgraph_{name}" if _renamed(name) else name


# --- views ------------------------------------------------------------------


@dataclass(frozen=True)
class IrEntry:
    """``{"<name>", <kind constant>, ""}`` of IrDefInputs / IrDefOutputs."""

    name: str
    kind: str


@dataclass(frozen=True)
class AttrEntry:
    """One IrDefAttrs entry."""

    name: str
    kind: str  # kEsAttrRequired / kEsAttrOptional
    ir_type: str
    value: str  # the AttrValue expression


@dataclass(frozen=True)
class Edge:
    """The edge of one input: ``kind`` required, optional or dynamic."""

    kind: str
    param: str
    index: str
    one: str = ""  # a dynamic input's element variable


@dataclass(frozen=True)
class GraphCheck:
    """The checks of one subgraph before the node takes it."""

    name: str  # the C parameter
    ir_name: str
    dynamic: bool
    input_count: str | None  # the first dynamic input's count, if any
    output_count: str | None  # the first dynamic output's count, if any
    compare_outputs: bool  # its NetOutput must have output_count inputs


@dataclass(frozen=True)
class ReturnItem:
    """One field of the C result: a holder at ``index``, or a dynamic output's
    holders (``holders``, made from ``index`` and ``count``)."""

    dynamic: bool
    index: str
    name: str = ""
    count: str = ""


@dataclass(frozen=True)
class StructField:
    c_type: str
    name: str


@dataclass(frozen=True)
class CppParam:
    decl: str  # type and name
    default: str | None


@dataclass(frozen=True)
class CppOverload:
    """One C++ function of the op (Note [C++ overloads]): its parameters
    and, unless it is a deleted guard, its body's pieces."""

    params: tuple[CppParam, ...]
    guard: es_overloads.Guard | None  # set: ``= delete``, with a message
    resolve: tuple[str, ...] | None  # ResolveBuilder's arguments, when TensorLike
    dynamic_inputs: tuple[str, ...]
    dynamic_graphs: tuple[str, ...]
    args: tuple[str, ...]


@dataclass(frozen=True)
class EsOp:
    op_type: str
    origin: str
    c_guard: str
    cpp_guard: str
    c_header: str
    c_func: str
    c_return: str  # the return type, spelled to be followed by the name
    c_params: tuple[str, ...]
    c_struct: str | None  # Es<Op>Output, for several or dynamic outputs
    c_fields: tuple[StructField, ...]
    no_output: bool
    notes_graphs: tuple[str, ...]
    notes_tensors: tuple[str, ...]
    notes_counts: tuple[tuple[str, str], ...]  # (count parameter, IR output)
    # the .cpp body
    no_inputs: bool
    not_null: tuple[str, ...]
    dynamic_counts: tuple[str, ...]
    resolve_args: tuple[str, ...]
    stored_tensors: tuple[str, ...]
    graphs: tuple[GraphCheck, ...]
    ir_inputs: tuple[IrEntry, ...]
    ir_outputs: tuple[IrEntry, ...]
    ir_attrs: tuple[AttrEntry, ...]
    dynamic_input_nums: tuple[tuple[str, str], ...]
    dynamic_output_nums: tuple[tuple[str, str], ...]
    edges: tuple[Edge, ...]
    set_graphs: tuple[tuple[str, str, bool], ...]  # (IR name, variable, dynamic)
    returns: tuple[ReturnItem, ...]
    return_kind: str  # none, one, multi, dynamic
    # the C++ header
    cpp_includes_like: bool  # es_tensor_like.h and <iostream>
    cpp_includes_log: bool  # es_log.h
    like_note: str | None  # none, "inputs", "inputs or owner"
    like_names: tuple[str, ...]
    cpp_struct: str | None
    cpp_fields: tuple[StructField, ...]
    cpp_return: str
    overloads: tuple[CppOverload, ...]
    warnings: tuple[es_overloads.PlanWarning, ...]
    cpp_dynamic_outs: tuple[str, ...]
    cpp_result: tuple[str, ...]  # the returned fields, for multi and dynamic


_IN_KIND = {
    InputKind.REQUIRED: "kEsIrInputRequired",
    InputKind.OPTIONAL: "kEsIrInputOptional",
    InputKind.DYNAMIC: "kEsIrInputDynamic",
}

# --- attr types -------------------------------------------------------------

_C_TYPE = {
    AttrType.INT: "int64_t ",
    AttrType.FLOAT: "float ",
    AttrType.STR: "const char *",
    AttrType.BOOL: "bool ",
    AttrType.DTYPE: "C_DataType ",
    AttrType.TENSOR: "EsCTensor *",
    AttrType.LIST_INT: "const int64_t *",
    AttrType.LIST_FLOAT: "const float *",
    AttrType.LIST_BOOL: "const bool *",
    AttrType.LIST_DTYPE: "const C_DataType *",
    AttrType.LIST_LIST_INT: "const int64_t **",
    AttrType.LIST_STR: "const char **",
}
_CPP_TYPE = {
    AttrType.INT: "int64_t ",
    AttrType.FLOAT: "float ",
    AttrType.STR: "const char *",
    AttrType.BOOL: "bool ",
    AttrType.DTYPE: "ge::DataType ",
    AttrType.TENSOR: "std::unique_ptr<ge::Tensor> ",
    AttrType.LIST_INT: "const std::vector<int64_t> &",
    AttrType.LIST_FLOAT: "const std::vector<float> &",
    AttrType.LIST_BOOL: "const std::vector<uint8_t> &",
    AttrType.LIST_DTYPE: "const std::vector<ge::DataType> &",
    AttrType.LIST_LIST_INT: "const std::vector<std::vector<int64_t>> &",
    AttrType.LIST_STR: "const std::vector<const char *> &",
}
# The C++ type a C list is read into (std::vector<<this>>).
_ELEMENT = {
    AttrType.LIST_INT: "int64_t",
    AttrType.LIST_FLOAT: "float",
    AttrType.LIST_BOOL: "bool",
    AttrType.LIST_STR: "ge::AscendString",
    AttrType.LIST_DTYPE: "ge::DataType",
    AttrType.LIST_LIST_INT: "std::vector<int64_t>",
}
_DTYPES = (
    "[](const C_DataType *es_type_list, int64_t es_type_list_size) { "
    "std::vector<ge::DataType> ge_type_list(es_type_list_size); "
    "std::transform(es_type_list, es_type_list + es_type_list_size, "
    "ge_type_list.begin(), [](C_DataType es_type) { return "
    "static_cast<ge::DataType>(es_type);}); return ge_type_list; }({p}, {p}_num)"
)
_LISTS = (
    "[](const int64_t** data, int64_t size, const int64_t *inner_sizes) { "
    "std::vector<std::vector<int64_t>> ret; for (int64_t i = 0; i < size; i++) "
    "ret.emplace_back(data[i], data[i] + inner_sizes[i]); return ret; } "
    "({p}, {p}_num, {p}_inner_num)"
)


def es_float(value: float, text: str | None = None) -> str:
    """A float default as gen_esb prints it (C's ``%f``) when that text is
    the same float32; otherwise exactly (``1e-08``, which ``%f`` would make
    0)."""
    if math.isfinite(value):
        fixed = f"{value:f}"
        as32 = struct.unpack("f", struct.pack("f", value))[0]
        if struct.unpack("f", struct.pack("f", float(fixed)))[0] == as32:
            return fixed
    return cpp_float(value, text)


def _literal(attr: Attr) -> str:
    """The default's C++ value, without a type (``{10, 10, 10}``)."""
    assert attr.default is not None
    value, spellings = attr.default.value, attr.default.spellings
    kind = attr.type
    if kind is AttrType.FLOAT:
        return es_float(value, spellings[0] if spellings else None)
    if kind is AttrType.LIST_FLOAT:
        texts = spellings or (None,) * len(value)
        return "{" + ", ".join(es_float(v, t) for v, t in zip(value, texts)) + "}"
    return _value(value)


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, DataType):
        return f"ge::{value.name}"
    if isinstance(value, int):
        return cpp_int(value)
    if isinstance(value, str):
        return cpp_str(value)
    if isinstance(value, tuple):
        return "{" + ", ".join(_value(v) for v in value) + "}"
    raise TypeError(f"no ES literal for {type(value).__name__}")


def _c_decl(name: str, kind: AttrType) -> str:
    decl = f"{_C_TYPE[kind]}{name}"
    if kind is AttrType.LIST_LIST_INT:
        return f"{decl}, int64_t {name}_num, const int64_t *{name}_inner_num"
    if kind.is_list:
        return f"{decl}, int64_t {name}_num"
    return decl


def _c_read(name: str, kind: AttrType) -> str:
    """The C parameter as the C++ value the node takes."""
    if kind is AttrType.INT:
        return f"static_cast<int64_t>({name})"
    if kind is AttrType.FLOAT:
        return f"static_cast<float>({name})"
    if kind is AttrType.BOOL:
        return f"static_cast<bool>({name})"
    if kind is AttrType.STR:
        return f"ge::AscendString({name})"
    if kind is AttrType.DTYPE:
        return f"static_cast<ge::DataType>({name})"
    if kind is AttrType.TENSOR:
        return f"*{name}_stored"
    if kind is AttrType.LIST_DTYPE:
        convert = _DTYPES.replace("{p}", name)
        return f"std::vector<ge::DataType>({convert})"
    if kind is AttrType.LIST_LIST_INT:
        convert = _LISTS.replace("{p}", name)
        return f"std::vector<std::vector<int64_t>>({convert})"
    return f"std::vector<{_ELEMENT[kind]}>({name}, {name} + {name}_num)"


def _attr_value(name: str, attr: Attr) -> str:
    """The AttrValue of an attr: always set when required (or a tensor, which
    cannot be compared), else only when it differs from the IR default."""
    kind = attr.type
    if attr.default is None or kind is AttrType.TENSOR:
        return f"ge::es::CreateFrom({_c_read(name, kind)})"
    literal = _literal(attr)
    if kind in (AttrType.INT, AttrType.FLOAT, AttrType.BOOL):
        scalar = _C_TYPE[kind].strip()
        return f"ge::es::CreateFromIfNotEqual({name}, static_cast<{scalar}>({literal}))"
    if kind is AttrType.DTYPE:
        return f"ge::es::CreateFromIfNotEqual({_c_read(name, kind)}, {literal})"
    if kind is AttrType.STR:
        return (
            f"ge::es::CreateFromIfNotEqual(ge::AscendString({name}), "
            f"ge::AscendString({literal}))"
        )
    return (
        f"ge::es::CreateFromIfNotEqual({_c_read(name, kind)}, "
        f"std::vector<{_ELEMENT[kind]}>{literal})"
    )


def _cpp_pass(name: str, kind: AttrType) -> str:
    """A C++ attr parameter as the C function's arguments."""
    if kind is AttrType.LIST_BOOL:
        return (
            f"static_cast<const bool *>(static_cast<const void *>({name}.data())), "
            f"static_cast<int64_t>({name}.size())"
        )
    if kind is AttrType.LIST_LIST_INT:
        counts = f"ListListTypeToPtrAndCounts<int64_t>({name})"
        return (
            f"{counts}.first.data(), static_cast<int64_t>({name}.size()), "
            f"{counts}.second.data()"
        )
    if kind is AttrType.LIST_DTYPE:
        return (
            f"DataTypesToEsCDataTypes({name}).data(), "
            f"static_cast<int64_t>({name}.size())"
        )
    if kind is AttrType.LIST_STR:
        return (
            f"const_cast<const char **>({name}.data()), "
            f"static_cast<int64_t>({name}.size())"
        )
    if kind.is_list:
        return f"{name}.data(), static_cast<int64_t>({name}.size())"
    if kind is AttrType.DTYPE:
        return f"static_cast<C_DataType>({name})"
    if kind is AttrType.TENSOR:
        return f"static_cast<EsCTensor *>(static_cast<void *>({name}.release()))"
    return name


def _cpp_default(attr: Attr) -> str:
    if attr.type is AttrType.TENSOR:
        return "EsMakeUnique<ge::Tensor>(ge::Tensor())"
    return _literal(attr)


# --- indexes ------------------------------------------------------------------


class _Indexes:
    """gen_esb's port numbering: a fixed count of the ports before, plus the
    instance count of every dynamic element before (``2 + dy1_num``)."""

    def __init__(self) -> None:
        self._fixed = 0
        self._counts: list[str] = []

    def fixed(self) -> str:
        index = " + ".join([str(self._fixed), *self._counts])
        self._fixed += 1
        return index

    def dynamic(self, count: str, within: str | None) -> str:
        before = [c for c in self._counts if c != count]
        if count not in self._counts:
            self._counts.append(count)
        parts = [str(self._fixed), *before] + ([within] if within else [])
        return " + ".join(parts)


# --- the lowering -------------------------------------------------------------


def _ordered_attrs(op: OpSpec) -> list[Attr]:
    """Parameter order: required attrs (derived ones too: REG_OP cannot
    derive) in IR order, then the optional ones."""
    required = [a for a in op.attrs if a.default is None]
    return required + [a for a in op.attrs if a.default is not None]


def lower(op: OpSpec) -> EsOp:  # size: one view, built in the order it prints
    inputs, outputs = op.inputs, op.outputs
    all_optional = bool(inputs) and all(i.kind is InputKind.OPTIONAL for i in inputs)
    dynamic_outputs = [o for o in outputs if o.dynamic]
    several = len(outputs) > 1 or bool(dynamic_outputs)
    attrs = _ordered_attrs(op)
    # C declaration
    c_params: list[str] = []
    for item in inputs:
        name = in_name(item.name)
        if item.kind is InputKind.DYNAMIC:
            c_params.append(f"EsCTensorHolder **{name}, int64_t {name}_num")
        else:
            c_params.append(f"EsCTensorHolder *{name}")
    if not inputs or all_optional:
        c_params.append("EsCGraphBuilder *owner_graph_builder")
    counts = [f"{out_name(op, o.name)}_num" for o in dynamic_outputs]
    c_params += [f"int64_t {c}" for c in counts]
    for graph in op.graphs:
        name = graph_name(graph.name)
        c_params.append(
            f"EsCGraph **{name}, int64_t {name}_num"
            if graph.dynamic
            else f"EsCGraph *{name}"
        )
    c_params += [_c_decl(attr_name(op, a.name), a.type) for a in attrs]
    c_struct = f"Es{op.op_type}Output" if several else None
    c_fields: list[StructField] = []
    for output in outputs:
        name = out_name(op, output.name)
        if output.dynamic:
            c_fields += [
                StructField("EsCTensorHolder **", name),
                StructField("int64_t ", f"{name}_num"),
            ]
        else:
            c_fields.append(StructField("EsCTensorHolder *", name))
    # body
    first_dynamic_in = next(
        (f"{in_name(i.name)}_num" for i in inputs if i.kind is InputKind.DYNAMIC), None
    )
    graphs = tuple(
        GraphCheck(
            graph_name(g.name),
            g.name,
            g.dynamic,
            first_dynamic_in,
            counts[0] if counts else None,
            (op.op_type, g.name) not in CONDITION_GRAPHS,
        )
        for g in op.graphs
    )
    resolve_args = []
    for item in inputs:
        name = in_name(item.name)
        if item.kind is InputKind.DYNAMIC:
            resolve_args.append(
                f"std::vector<EsCTensorHolder *>({name}, {name} + {name}_num)"
            )
        else:
            resolve_args.append(name)
    if all_optional:
        resolve_args.append("owner_graph_builder")
    in_index = _Indexes()
    edges = []
    for item in inputs:
        name = in_name(item.name)
        if item.kind is InputKind.DYNAMIC:
            index = in_index.dynamic(f"{name}_num", "i")
            edges.append(Edge("dynamic", name, index, f"one_{item.name}"))
        else:
            edges.append(Edge(item.kind.value, name, in_index.fixed()))
    out_index = _Indexes()
    returns = []
    for output in outputs:
        name = out_name(op, output.name)
        if output.dynamic:
            index = out_index.dynamic(f"{name}_num", None)
            returns.append(ReturnItem(True, index, name, f"{name}_num"))
        else:
            returns.append(ReturnItem(False, out_index.fixed()))
    if dynamic_outputs:
        return_kind = "dynamic"
    elif len(outputs) > 1:
        return_kind = "multi"
    else:
        return_kind = "one" if outputs else "none"
    # C++
    tensor_like = _tensor_like(op)
    plan = es_overloads.plan(op)
    overloads = tuple(_overload(op, sig) for sig in plan.signatures)
    cpp_struct = f"{op.op_type}Output" if len(outputs) > 1 else None
    cpp_fields = tuple(
        StructField(
            "std::vector<EsTensorHolder> " if o.dynamic else "EsTensorHolder ",
            out_name(op, o.name),
        )
        for o in outputs
    )
    if cpp_struct:
        cpp_return = cpp_struct
    elif dynamic_outputs:
        cpp_return = "std::vector<EsTensorHolder>"
    else:
        cpp_return = "EsTensorHolder"
    cpp_result = tuple(
        (
            f"{out_name(op, o.name)}_dynamic_outs"
            if o.dynamic
            else f"out.{out_name(op, o.name)}"
        )
        for o in outputs
    )
    tensors = [attr_name(op, a.name) for a in attrs if a.type is AttrType.TENSOR]
    has_dynamic_in = any(i.kind is InputKind.DYNAMIC for i in inputs)
    like_note = None
    if tensor_like and not has_dynamic_in:
        like_note = "inputs or owner" if all_optional else "inputs"
    return EsOp(
        op_type=op.op_type,
        origin=op.label,
        c_guard=_guard(op.op_type, "_OP_", "_H_"),
        cpp_guard=_guard(op.op_type, "_OP_", "_CPP_H_"),
        c_header=c_header_name(op.op_type),
        c_func=f"Es{op.op_type}",
        c_return=f"{c_struct} " if c_struct else "EsCTensorHolder *",
        c_params=tuple(c_params),
        c_struct=c_struct,
        c_fields=tuple(c_fields),
        no_output=not outputs,
        notes_graphs=tuple(graph_name(g.name) for g in op.graphs),
        notes_tensors=tuple(tensors),
        notes_counts=tuple(zip(counts, (o.name for o in dynamic_outputs))),
        no_inputs=not inputs,
        not_null=tuple(in_name(i.name) for i in inputs if i.kind is InputKind.REQUIRED),
        dynamic_counts=tuple(
            f"{in_name(i.name)}_num" for i in inputs if i.kind is InputKind.DYNAMIC
        ),
        resolve_args=tuple(resolve_args),
        stored_tensors=tuple(tensors),
        graphs=graphs,
        ir_inputs=tuple(IrEntry(i.name, _IN_KIND[i.kind]) for i in inputs),
        ir_outputs=tuple(
            IrEntry(
                o.name, "kEsIrOutputDynamic" if o.dynamic else "kEsIrOutputRequired"
            )
            for o in outputs
        ),
        ir_attrs=tuple(
            AttrEntry(
                a.name,
                "kEsAttrRequired" if a.default is None else "kEsAttrOptional",
                a.type.ir_name,
                _attr_value(attr_name(op, a.name), a),
            )
            for a in op.attrs
        ),
        dynamic_input_nums=tuple(
            (i.name, f"{in_name(i.name)}_num")
            for i in inputs
            if i.kind is InputKind.DYNAMIC
        ),
        dynamic_output_nums=tuple(
            (o.name, f"{out_name(op, o.name)}_num") for o in dynamic_outputs
        ),
        edges=tuple(edges),
        set_graphs=tuple((g.name, graph_name(g.name), g.dynamic) for g in op.graphs),
        returns=tuple(returns),
        return_kind=return_kind,
        cpp_includes_like=any(o.resolve is not None for o in overloads),
        # es_log.h declares ES_ASSERT_* and EsMakeUnique (a tensor default)
        cpp_includes_log=any(o.resolve is not None for o in overloads)
        or any(a.type is AttrType.TENSOR and a.default is not None for a in attrs),
        like_note=like_note,
        like_names=tuple(in_name(i.name) for i in inputs),
        cpp_struct=cpp_struct,
        cpp_fields=cpp_fields,
        cpp_return=cpp_return,
        overloads=overloads,
        warnings=plan.warnings,
        cpp_dynamic_outs=tuple(out_name(op, o.name) for o in dynamic_outputs),
        cpp_result=cpp_result,
    )


# gen_esb compares a subgraph's NetOutput input count with the op's dynamic
# output count, except for While's condition graph, which yields one bool.
CONDITION_GRAPHS = frozenset({("While", "cond")})


def _tensor_like(op: OpSpec) -> bool:
    """Inputs are ``EsTensorLike`` (numbers are accepted where a tensor is)
    when all are optional, or when there are several and one is not
    dynamic; a single input is an ``EsTensorHolder``, which owns the graph."""
    return es_overloads.tensor_like(es_overloads.current(op))


_K = es_overloads.Kind
_INPUT_DECL = {
    _K.LIKE: "const EsTensorLike &",
    _K.HOLDER: "const EsTensorHolder &",
    _K.HOLDERS: "const std::vector<EsTensorHolder> &",
    _K.NULLPTR: "std::nullptr_t ",
}


def _cpp_param(op: OpSpec, param: es_overloads.Param) -> CppParam:
    """A planned parameter as C++ declares it."""
    role, kind = param.role, param.kind
    if role is es_overloads.Role.INPUT:
        default = "nullptr" if param.default else None
        return CppParam(f"{_INPUT_DECL[kind]}{in_name(param.ir_name)}", default)
    if role is es_overloads.Role.OWNER:
        if kind is _K.BUILDER_REF:
            return CppParam("const EsGraphBuilder &owner_builder", None)
        default = "nullptr" if param.default else None
        return CppParam("const EsGraphBuilder *owner_builder", default)
    if role is es_overloads.Role.COUNT:
        return CppParam(f"int64_t {out_name(op, param.ir_name)}_num", None)
    if role is es_overloads.Role.GRAPH:
        name = graph_name(param.ir_name)
        if kind is _K.GRAPHS:
            return CppParam(f"std::vector<std::unique_ptr<ge::Graph>> {name}", None)
        return CppParam(f"std::unique_ptr<ge::Graph> {name}", None)
    attr = next(a for a in op.attrs if a.name == param.ir_name)
    default = _cpp_default(attr) if param.default else None
    return CppParam(f"{_CPP_TYPE[attr.type]}{attr_name(op, attr.name)}", default)


def _overload(op: OpSpec, sig: es_overloads.Signature) -> CppOverload:
    """One planned function: its declaration and the C call it makes, the
    C function taking every input (``nullptr`` for one the function
    lacks), the owner builder when the op has no inputs or only optional
    ones, every count, subgraph and attr."""
    params = tuple(_cpp_param(op, p) for p in sig.params)
    role = es_overloads.Role
    like = any(p.kind is _K.LIKE for p in sig.params)
    args: list[str] = []
    for item in op.inputs:
        name = in_name(item.name)
        found = sig.has(role.INPUT, item.name)
        if found is None:
            args.append("nullptr, 0" if item.kind is InputKind.DYNAMIC else "nullptr")
        elif found.kind is _K.HOLDERS:
            args.append(f"esb_{name}.data(), static_cast<int64_t>(esb_{name}.size())")
        elif found.kind is _K.LIKE:
            args.append(
                f"{name}.ToTensorHolder(owner_graph_builder).GetCTensorHolder()"
            )
        else:
            args.append(f"{name}.GetCTensorHolder()")
    owner = sig.has(role.OWNER, "owner_builder")
    if owner is not None and owner.kind is _K.BUILDER_REF:
        args.append("owner_builder.GetCGraphBuilder()")
    elif owner is not None:
        args.append(
            "owner_builder == nullptr ? nullptr : owner_builder->GetCGraphBuilder()"
        )
    elif all(i.kind is InputKind.OPTIONAL for i in op.inputs):
        # The builder ResolveBuilder found, an EsCGraphBuilder * already
        # (gen_esb calls GetCGraphBuilder() on it, which does not compile:
        # docs/ge-compat.md, "C and C++ ES API").
        args.append("owner_graph_builder" if like else "nullptr")
    args += [f"{out_name(op, o.name)}_num" for o in op.outputs if o.dynamic]
    for graph in op.graphs:
        name = graph_name(graph.name)
        if graph.dynamic:
            args.append(f"GeGraphsToEsCGraphs(std::move({name})).data(), esb_{name}")
        else:
            args.append(
                f"static_cast<EsCGraph *>(static_cast<void *>({name}.release()))"
            )
    args += [_cpp_pass(attr_name(op, a.name), a.type) for a in _ordered_attrs(op)]
    resolve = [in_name(p.ir_name) for p in sig.params if p.role is role.INPUT]
    if owner is not None and owner.kind is _K.BUILDER_PTR:
        resolve.append("owner_builder")
    return CppOverload(
        params=params,
        guard=sig.guard,
        resolve=tuple(resolve) if like else None,
        dynamic_inputs=tuple(
            in_name(p.ir_name) for p in sig.params if p.kind is _K.HOLDERS
        ),
        dynamic_graphs=tuple(
            graph_name(p.ir_name) for p in sig.params if p.kind is _K.GRAPHS
        ),
        args=tuple(args),
    )


# --- files --------------------------------------------------------------------


def c_header_name(op_type: str) -> str:
    return f"es_{op_type}_c.h"


def op_files(op: OpSpec) -> list[tuple[str, str]]:
    """The op's C header, C source and C++ header (none for an op the ES
    API leaves out)."""
    if unsupported(op) is not None:
        return []
    view = lower(op)
    return [
        (layout.es_include(c_header_name(op.op_type)), render("es/op_c.h.j2", op=view)),
        (layout.es_source(f"es_{op.op_type}.cpp"), render("es/op.cpp.j2", op=view)),
        (layout.es_include(f"es_{op.op_type}.h"), render("es/op.h.j2", op=view)),
    ]


def op_paths(op_type: str) -> list[str]:
    """The paths ``op_files`` writes for a supported op."""
    return [
        layout.es_include(c_header_name(op_type)),
        layout.es_source(f"es_{op_type}.cpp"),
        layout.es_include(f"es_{op_type}.h"),
    ]


@dataclass(frozen=True)
class Aggregate:
    name: str  # all, or the module
    module: str | None  # the module, None for the all aggregates
    c_guard: str
    cpp_guard: str
    c_headers: tuple[str, ...]
    cpp_headers: tuple[str, ...]
    left_out: tuple[tuple[str, tuple[str, ...]], ...]  # (reason, op types)


ALL = "all"


def _aggregate(name: str, module: str | None, members: Sequence[OpFacts]) -> Aggregate:
    ordered = sorted(members, key=lambda f: f.op_type.encode("utf-8"))
    reasons: dict[str, list[str]] = {}
    for op in ordered:
        if op.es_unsupported is not None:
            reasons.setdefault(op.es_unsupported, []).append(op.op_type)
    kept = [op.op_type for op in ordered if op.es_unsupported is None]
    return Aggregate(
        name,
        module,
        _guard(name, "_", "_OPS_H_"),
        _guard(name, "_", "_OPS_CPP_H"),
        tuple(c_header_name(t) for t in kept),
        tuple(f"es_{t}.h" for t in kept),
        tuple((reason, tuple(types)) for reason, types in sorted(reasons.items())),
    )


def module_files(ops: Sequence[OpFacts]) -> list[Shared]:
    """Per module ``es_<m>_ops_c.h`` and ``es_<m>_ops.h``; across modules
    ``es_all_ops_c.h`` and ``es_all_ops.h`` (a module named ``all`` has only
    these, which include its ops too); and ``es_log.h``, which the sources
    and the C++ headers use."""
    out: list[Shared] = []
    groups: list[tuple[str, str | None, Sequence[OpFacts]]] = [
        (module, module, members) for module, members in by_module(ops) if module != ALL
    ]
    if ops:
        groups.append((ALL, None, ops))
    for name, owner, members in groups:
        for file, template in (
            (f"es_{name}_ops_c.h", "es/module_ops_c.h.j2"),
            (f"es_{name}_ops.h", "es/module_ops.h.j2"),
        ):
            out.append(
                Shared(
                    layout.es_include(file),
                    owner,
                    partial(_render_aggregate, template, name, owner, members),
                )
            )
    if ops:
        out.append(Shared(layout.es_include("es_log.h"), None, _es_log))
    return out


def _render_aggregate(
    template: str, name: str, module: str | None, members: Sequence[OpFacts]
) -> str:
    return render(template, agg=_aggregate(name, module, members))


def _es_log() -> str:
    return render("es/es_log.h.j2")
