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

from gen_ops import layout
from gen_ops.call_shapes import Alias, CallShape, ParamHistory, shape
from gen_ops.facts import OpFacts, by_module
from gen_ops.imports import ImportLine, Imports, bound_names
from gen_ops.literals import py_default_summary
from gen_ops.model import (
    Attr,
    DtypeConstraint,
    DtypeKind,
    DtypeRuleKind,
    DtypeSet,
    Input,
    InputKind,
    OpSpec,
    Output,
    TypeVar,
    TypeVarKind,
)
from gen_ops.names import NODE_NAME, PythonNames, python_names
from gen_ops.outputs import Shared
from gen_ops.pyformat import format_python
from gen_ops.render import render
from gen_ops.signature import Param, attr_annotation, default_code

_TENSOR_IN = "TensorHolder | TensorLike"


@dataclass(frozen=True)
class Field:
    name: str
    annotation: str


@dataclass(frozen=True)
class DtypeRef:
    """A dtype constraint, or a type variable's range, in the op table, by
    ``form`` (the table spells them as the spec does): ``name`` (a type
    variable or a named set), ``items`` (dtype and named-set names: their
    union), ``list`` (``{"list": <inner>}``) or ``promote`` (``{"promote":
    <items>}``, type variables)."""

    form: str
    name: str | None = None
    items: tuple[str, ...] = ()
    inner: DtypeRef | None = None


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


@dataclass(frozen=True)
class TableGraph:
    name: str
    dynamic: bool
    param: str | None


@dataclass(frozen=True)
class TableTypeVar:
    name: str
    dtypes: DtypeRef


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


def dtype_words(dtype: DtypeConstraint) -> str:
    """``T: float32, float16`` / ``NumberType`` / ``float32`` for docs."""
    if dtype.var is not None:
        return f"{dtype.var.name}: {type_var_words(dtype.var)}"
    return dtype.written.words() if dtype.written is not None else ""


def type_var_words(var: TypeVar) -> str:
    """A type variable's range in words: ``float32, float16``, ``list of
    BasicType``, ``promotion of T1, T2``."""
    if var.kind is TypeVarKind.PROMOTE:
        return "promotion of " + ", ".join(var.promote)
    words = var.written.words()
    return f"list of {words}" if var.kind is TypeVarKind.LIST else words


@dataclass(frozen=True)
class DtypeTable:
    """An op's dtype rules as a table spells them (the type variables, and
    each input's and output's constraint), for the prototype's
    ``DtypeRules.from_table`` (Note [Dtype rules travel with the op])."""

    type_vars: tuple[TableTypeVar, ...]
    inputs: tuple[tuple[str, DtypeRef], ...]
    outputs: tuple[tuple[str, DtypeRef], ...]


def type_var_entries(op: OpSpec) -> tuple[TableTypeVar, ...]:
    return tuple(TableTypeVar(v.name, _range_ref(v)) for v in op.type_vars)


def _range_ref(var: TypeVar) -> DtypeRef:
    if var.kind is TypeVarKind.PROMOTE:
        return DtypeRef("promote", items=var.promote)
    inner = _set_ref(var.written)
    return DtypeRef("list", inner=inner) if var.kind is TypeVarKind.LIST else inner


def _set_ref(written: DtypeSet) -> DtypeRef:
    if written.set_name:
        return DtypeRef("name", written.set_name)
    return DtypeRef("items", items=written.items)


def dtype_table(op: OpSpec) -> DtypeTable:
    return DtypeTable(
        type_vars=type_var_entries(op),
        inputs=tuple((i.name, _dtype_ref(i.dtype)) for i in op.inputs),
        outputs=tuple((o.name, _dtype_ref(o.dtype)) for o in op.outputs),
    )


def _dtype_ref(dtype: DtypeConstraint) -> DtypeRef:
    if dtype.var is not None:
        return DtypeRef("name", dtype.var.name)
    assert dtype.written is not None
    return _set_ref(dtype.written)


def history_words(calls: CallShape, item: ParamHistory, every: bool = False) -> str:
    """What a parameter's history says to a caller: since when it is
    there (with ``every``, also when it was in the op's first recorded
    release), deprecated, and the earlier names it still takes."""
    words = []
    if calls.recorded and (every or item.since != calls.first):
        lead = "Since" if item.since is not None else "New in"
        words.append(f"{lead} {calls.release_words(item.since)}.")
    if item.deprecated:
        words.append(f"Deprecated since release {item.deprecated}.")
    for alias in item.aliases:
        words.append(
            f"Renamed from {alias.old} in release {alias.release} (the old "
            "keyword still works, with a DeprecationWarning)."
        )
    return " ".join(words)


def _with_history(doc: str, calls: CallShape, item: ParamHistory) -> str:
    words = history_words(calls, item)
    return f"{doc} {words}" if words else doc


def _with_doc(doc: str, words: str) -> str:
    """An Args entry: the element's own doc, then what gen-ops says of it."""
    return f"{doc} {words}" if doc else words


def _attr_doc(attr: Attr) -> str:
    kind = attr.type.value
    if attr.default is not None:
        words = f"{kind}, default {py_default_summary(attr.type, attr.default)}."
    else:
        words = f"{kind}, required."
    return _with_doc(attr.doc, words)


def _output_annotation(output: Output) -> str:
    return "list[TensorHolder]" if output.dynamic else "TensorHolder"


def _input_param(
    item: Input, names: PythonNames, imports: Imports, calls: CallShape
) -> tuple[Param, bool]:
    """An input's parameter, without a default, and whether it may be None."""
    dtype = dtype_words(item.dtype)
    if item.kind is InputKind.DYNAMIC:
        imports.name("collections.abc", "Sequence")
        annotation = f"Sequence[{_TENSOR_IN}]"
        doc = _with_doc(item.doc, f"A list of tensors, dtype {dtype}.")
    elif item.kind is InputKind.OPTIONAL:
        annotation = f"{_TENSOR_IN} | None"
        doc = _with_doc(item.doc, f"Dtype {dtype}. Optional.")
    else:
        annotation = _TENSOR_IN
        doc = _with_doc(item.doc, f"Dtype {dtype}.")
    doc = _with_history(doc, calls, calls.inputs[item.name])
    name = names.params[("input", item.name)]
    return Param(name, annotation, None, doc), item.kind is InputKind.OPTIONAL


def _positional(
    op: OpSpec, names: PythonNames, imports: Imports, calls: CallShape
) -> list[Param]:
    """Inputs, the owner builder, count parameters and graphs, in GE's order;
    optional inputs default to None wherever every later positional
    parameter can have a default too. Inputs that calls of earlier releases
    cannot reach by position are keyword-only (Note [Calls of earlier
    releases] in call_shapes)."""
    params: list[Param] = []
    takes_none: list[bool] = []
    for item in op.inputs:
        if item.name in calls.keyword_inputs:
            continue
        param, optional = _input_param(item, names, imports, calls)
        params.append(param)
        takes_none.append(optional)
    if names.owner is not None:
        imports.name("ge.es", "GraphBuilder")
        params.append(
            Param(
                names.owner,
                "GraphBuilder | None" if op.inputs else "GraphBuilder",
                None,
                "The graph builder that owns the node"
                + (" (needed when no input is a TensorHolder)." if op.inputs else "."),
            )
        )
        takes_none.append(bool(op.inputs))
    for output in op.outputs:
        if output.dynamic and output.count is None:
            num = names.params[("num", output.name)]
            doc = f"Number of instances of dynamic output {output.name}."
            params.append(Param(num, "int", None, doc))
            takes_none.append(False)
    for graph in op.graphs:
        imports.name("ge.graph", "Graph")
        if graph.dynamic:
            imports.name("collections.abc", "Sequence")
        params.append(
            Param(
                names.params[("graph", graph.name)],
                "Sequence[Graph]" if graph.dynamic else "Graph",
                None,
                _with_doc(
                    graph.doc,
                    "A list of subgraphs." if graph.dynamic else "A subgraph.",
                ),
            )
        )
        takes_none.append(False)
    first_default = len(params)
    while first_default > 0 and takes_none[first_default - 1]:
        first_default -= 1
    return [
        Param(p.name, p.annotation, "None", p.doc) if i >= first_default else p
        for i, p in enumerate(params)
    ]


def _keyword(
    op: OpSpec, names: PythonNames, imports: Imports, code: bool, calls: CallShape
) -> list[Param]:
    """Inputs moved past the * (in the order releases added them), required
    attrs, attrs with defaults (derived attrs are no parameters), then the
    node name."""
    params = []
    for input_name in calls.keyword_inputs:
        param, optional = _input_param(op.input(input_name), names, imports, calls)
        params.append(
            Param(param.name, param.annotation, "None" if optional else None, param.doc)
        )
    given = [a for a in op.attrs if a.derive is None]
    for attr in sorted(given, key=lambda a: not a.required):
        # Defaults are immutable, so list attrs take any Sequence (tuples).
        annotation = attr_annotation(attr.type, imports, "Sequence")
        name = names.params[("attr", attr.name)]
        default = None
        if attr.default is not None:
            if attr.default.value is None:
                annotation += " | None"
            default = (
                default_code(name, annotation, attr)
                if code
                else py_default_summary(attr.type, attr.default)
            )
        doc = _with_history(_attr_doc(attr), calls, calls.attrs[attr.name])
        params.append(Param(name, annotation, default, doc))
    doc = "Node name; a unique one is made when None."
    params.append(Param(names.node_name, "str | None", "None", doc))
    return params


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
    positional = _positional(op, names, imports, calls)
    params = positional + _keyword(op, names, imports, code, calls)
    result_class = None
    fields: tuple[Field, ...] = ()
    if not op.outputs:
        returns = "TensorHolder"
        returns_doc = (
            "A handle of the node for control dependencies; it has no data output."
        )
    elif len(op.outputs) == 1:
        (output,) = op.outputs
        returns = _output_annotation(output)
        returns_doc = _output_doc(output)
    else:
        imports.name("typing", "NamedTuple")
        result_class = f"{op.op_type}Output"
        fields = tuple(
            Field(names.fields[o.name], _output_annotation(o)) for o in op.outputs
        )
        returns = result_class
        returns_doc = f"{result_class}, a named tuple of:" + "".join(
            f"\n    {names.fields[o.name]}: {_output_doc(o)}" for o in op.outputs
        )
    given = [a for a in op.attrs if a.derive is None]
    return PyBuilder(
        op_type=op.op_type,
        doc=op.doc or f"Adds {_article(op.op_type)} {op.op_type} node to the graph.",
        params=tuple(params),
        star_index=len(positional),
        returns=returns,
        returns_doc=returns_doc,
        result_class=result_class,
        result_fields=fields,
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
                _dtype_ref(i.dtype),
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


def _output_doc(output: Output) -> str:
    words = dtype_words(output.dtype)
    if output.dynamic:
        count = f", {output.count} of them" if output.count else ""
        return _with_doc(output.doc, f"A list of tensors{count}, dtype {words}.")
    return _with_doc(output.doc, f"Dtype {words}.")


def _renamed(ir_name: str, param: str | None) -> str | None:
    """The Python parameter when it is not the IR name (``param=`` in the op
    table, so errors name what the caller wrote)."""
    return param if param and param != ir_name else None


def _table_output(op: OpSpec, output: Output, names: PythonNames) -> TableOutput:
    count = output.count
    return TableOutput(
        output.name,
        _dtype_ref(output.dtype),
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
