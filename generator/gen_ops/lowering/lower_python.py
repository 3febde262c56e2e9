"""Lower an OpSpec to the view the Python builder template prints.

Every Python decision is made here: parameter names (Note [Keyword
renaming]), their order (GE's calling convention, docs/ge-compat.md
"Builder calling convention"), annotations, defaults, the op table's
entries, and the import each chosen name needs (recorded where it is
chosen). The templates (``python/builder.py.j2``, ``python/op_table.j2``)
write the code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from ge_ir.attrs import AttrType
from gen_ops.emit.literals import PyTree, py_default_tree
from gen_ops.emit.outputs import Shared
from gen_ops.emit.pyformat import format_python
from gen_ops.emit.render import render
from gen_ops.lowering import layout
from gen_ops.lowering.builder_signature import Field, builder_signature
from gen_ops.lowering.call_shapes import Alias, shape
from gen_ops.lowering.dtype_table import (
    DtypeRef,
    TableTypeVar,
    dtype_ref,
    type_var_entries,
)
from gen_ops.lowering.facts import OpFacts, by_module
from gen_ops.lowering.imports import ImportLine, Imports, bound_names
from gen_ops.lowering.names import NODE_NAME, PythonNames, python_names
from gen_ops.lowering.signature import Param
from gen_ops.spec.model import (
    Attr,
    DtypeKind,
    DtypeRuleKind,
    InputKind,
    OpSpec,
    Output,
)


@dataclass(frozen=True)
class RuleRef:
    """``_api.<Helper>.<kind>("<arg>")``: a count, derive or dtype rule of
    the op table (the helper's method is the rule's kind)."""

    kind: str
    arg: str


@dataclass(frozen=True)
class TableInput:
    name: str
    dtype: DtypeRef
    optional: bool
    dynamic: bool
    param: str | None  # the Python parameter, when it is not the IR name


@dataclass(frozen=True)
class TableOutput:
    name: str
    dtype: DtypeRef
    dynamic: bool
    count: RuleRef | None
    param: str | None  # the count parameter, when it is not "<name>_num"
    dtype_from: RuleRef | None


@dataclass(frozen=True)
class TableAttr:
    name: str
    type: str
    required: bool
    derive: RuleRef | None
    param: str | None
    # An optional attr's default as a literal tree (literals.PyTree), which
    # the builder leaves off the node (Note [Defaults stay off the node]).
    default: PyTree | None = None


@dataclass(frozen=True)
class TableGraph:
    name: str
    dynamic: bool
    param: str | None


@dataclass(frozen=True)
class PyBuilder:
    op_type: str
    doc: str  # the op's doc as written (or a stock sentence)
    params: tuple[Param, ...]
    star_index: int  # where the bare * goes (index into params)
    returns: str
    returns_doc: str
    result_class: str | None
    result_fields: tuple[Field, ...]
    inputs_map: tuple[tuple[str, str], ...]  # (IR name, parameter)
    attrs_map: tuple[tuple[str, str], ...]
    counts_map: tuple[tuple[str, str], ...]
    graphs_map: tuple[tuple[str, str], ...]
    owner: str | None  # GE's builder parameter, when the op takes one
    node_name: str  # the node-name keyword
    name_param: str | None  # the node-name keyword when it is not "name"
    table_inputs: tuple[TableInput, ...]
    table_outputs: tuple[TableOutput, ...]
    table_attrs: tuple[TableAttr, ...]
    table_graphs: tuple[TableGraph, ...]
    table_type_vars: tuple[TableTypeVar, ...]
    imports: tuple[tuple[ImportLine, ...], ...]
    origin: str  # the spec, as the banner names it
    # Note [Calls of earlier releases] (call_shapes): the op table's
    # deprecated=, renamed= and deprecated_params=; ``wraps``: the function
    # is decorated with _OP.function, which applies them.
    deprecated: str | None = None
    renamed: tuple[Alias, ...] = ()
    deprecated_params: tuple[tuple[str, str], ...] = ()
    wraps: bool = False


def lower(op: OpSpec, code: bool = True) -> PyBuilder:
    """The builder of ``op``. Without ``code`` (the docs only read the
    signature), attr defaults are their summaries, not the laid-out code."""
    names = python_names(op)
    calls = shape(op, names)
    imports = Imports()
    imports.module("ge.es._op_api", "_api")
    imports.name("ge.es", "TensorHolder")
    if op.inputs:
        imports.name("ge.es.tensor_like", "TensorLike")
    signature = builder_signature(op, names, calls, imports, code)
    given = [a for a in op.attrs if a.derive is None]
    return PyBuilder(
        op_type=op.op_type,
        doc=op.doc or f"Adds {_article(op.op_type)} {op.op_type} node to the graph.",
        params=signature.params,
        star_index=signature.star_index,
        returns=signature.returns,
        returns_doc=signature.returns_doc,
        result_class=signature.result_class,
        result_fields=signature.result_fields,
        inputs_map=tuple((i.name, names.params[("input", i.name)]) for i in op.inputs),
        attrs_map=tuple((a.name, names.params[("attr", a.name)]) for a in given),
        counts_map=tuple(
            (o.name, names.params[("num", o.name)])
            for o in op.outputs
            if o.dynamic and o.count is None
        ),
        graphs_map=tuple((g.name, names.params[("graph", g.name)]) for g in op.graphs),
        owner=names.owner,
        node_name=names.node_name,
        name_param=_renamed(NODE_NAME, names.node_name),
        table_inputs=tuple(
            TableInput(
                i.name,
                dtype_ref(i.dtype),
                optional=i.kind is InputKind.OPTIONAL,
                dynamic=i.kind is InputKind.DYNAMIC,
                param=_renamed(i.name, names.params[("input", i.name)]),
            )
            for i in op.inputs
        ),
        table_outputs=tuple(_table_output(op, o, names) for o in op.outputs),
        table_attrs=tuple(
            TableAttr(
                a.name,
                a.type.value,
                required=a.required,
                derive=(
                    RuleRef(a.derive.kind.value, a.derive.input) if a.derive else None
                ),
                param=_renamed(a.name, names.params.get(("attr", a.name))),
                default=_table_default(a),
            )
            for a in op.attrs
        ),
        table_graphs=tuple(
            TableGraph(
                g.name, g.dynamic, _renamed(g.name, names.params[("graph", g.name)])
            )
            for g in op.graphs
        ),
        table_type_vars=type_var_entries(op),
        imports=imports.sections(),
        origin=op.label,
        deprecated=op.deprecated,
        renamed=calls.aliases,
        deprecated_params=calls.deprecated,
        wraps=bool(op.deprecated) or calls.wraps,
    )


def imported_names(op: OpSpec) -> frozenset[str]:
    """The names ``op``'s builder module imports, which its function, named
    after the op, would hide (E304)."""
    return bound_names(lower(op, code=False).imports)


def _article(word: str) -> str:
    return "an" if word[:1] in "AEIOU" else "a"


def _table_default(attr: Attr) -> PyTree | None:
    """The default the op table records for ``attr``: an optional attr's,
    except an empty tensor or named_attrs (None: the builder never writes
    those unless given)."""
    if attr.default is None or attr.derive is not None:
        return None
    if attr.default.value is None or attr.type in _NO_TABLE_DEFAULT:
        return None
    return py_default_tree(attr.type, attr.default)


# Attr types whose value is an object the table does not spell.
_NO_TABLE_DEFAULT = frozenset({AttrType.TENSOR, AttrType.NAMED_ATTRS})


def _renamed(ir_name: str, param: str | None) -> str | None:
    """The Python parameter when it is not the IR name (``param=`` in the op
    table, so errors name what the caller wrote)."""
    return param if param and param != ir_name else None


def _table_output(op: OpSpec, output: Output, names: PythonNames) -> TableOutput:
    count = output.count
    return TableOutput(
        output.name,
        dtype_ref(output.dtype),
        output.dynamic,
        count=RuleRef(count.kind.value, count.ref) if count is not None else None,
        param=_renamed(f"{output.name}_num", names.params.get(("num", output.name))),
        dtype_from=_dtype_from(op, output),
    )


def _dtype_from(op: OpSpec, output: Output) -> RuleRef | None:
    """``dtype_from=`` for an output whose dtype its constraint cannot tell
    the builder (chained builders need it): the infer_meta dtype rule."""
    rule = next((r.dtype for r in op.infer_meta or () if r.output == output.name), None)
    if rule is None or rule.kind is DtypeRuleKind.VAR:
        return None  # none, or the type variable gives it
    if rule.kind is DtypeRuleKind.FIXED:
        assert rule.dtype is not None
        if len(output.dtype.dtypes) == 1:
            return None
        return RuleRef(rule.kind.value, rule.dtype.spec_name)
    assert rule.ref is not None
    if rule.kind is DtypeRuleKind.INPUT:
        source = op.input(rule.ref)
        if (
            output.dtype.kind is DtypeKind.VAR
            and source.dtype.kind is DtypeKind.VAR
            and source.dtype.name == output.dtype.name
        ):
            return None  # the type variable carries it
    return RuleRef(rule.kind.value, rule.ref)


def op_files(op: OpSpec) -> list[tuple[str, str]]:
    """The op's builder module."""
    text = render("python/builder.py.j2", b=lower(op))
    return [(layout.builder_module(op), format_python(text))]


def module_files(ops: Sequence[OpFacts]) -> list[Shared]:
    """Each module's ``__init__.py``."""
    return [
        Shared(layout.builder_package(m), m, partial(_package, m, members))
        for m, members in by_module(ops)
    ]


def _package(module: str, members: Sequence[OpFacts]) -> str:
    exports = sorted((name, op.file_stem) for op in members for name in op.exported)
    return format_python(render("python/es_init.py.j2", module=module, exports=exports))
