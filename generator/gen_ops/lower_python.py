"""Lower an OpSpec to what the Python builder template prints.

Every Python-specific decision is made here (Note [Keyword renaming] for
names, spec-format.md for the parameter order); the template only iterates.
"""

from __future__ import annotations

from dataclasses import dataclass

import re
from collections.abc import Sequence

from ge_ir.attrs import python_annotation
from ge_ir.types import DataType

from gen_ops.literals import py_default_summary, py_default_tree, py_str
from gen_ops.model import (
    Attr,
    CountKind,
    DeriveKind,
    DtypeConstraint,
    DtypeKind,
    DtypeRuleKind,
    InputKind,
    OpSpec,
    Output,
)
from gen_ops.names import exported_names, python_names
from gen_ops.pyformat import format_python, layout
from gen_ops.render import render

_TENSOR_IN = "TensorHolder | TensorLike"


@dataclass(frozen=True)
class Param:
    name: str
    annotation: str
    default: str | None  # as the signature holds it (laid out: pyformat.layout)
    keyword_only: bool
    doc: str  # the Args entry, without the name
    summary: str | None = None  # the default for docs (py_default_summary)


@dataclass(frozen=True)
class Field:
    name: str
    annotation: str


@dataclass(frozen=True)
class TableRow:
    """One entry of the op's table (``_OP``), already spelled."""

    text: str


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
    has_owner_builder: bool
    table_inputs: tuple[TableRow, ...]
    table_outputs: tuple[TableRow, ...]
    table_attrs: tuple[TableRow, ...]
    table_graphs: tuple[TableRow, ...]
    table_type_vars: tuple[TableRow, ...]
    imports: tuple[str, ...]
    all_names: tuple[str, ...]


def dtype_words(dtype: DtypeConstraint) -> str:
    """``T: float32, float16`` / ``NumberType`` / ``float32`` for docs."""
    names = ", ".join(d.spec_name for d in dtype.dtypes)
    if dtype.kind is DtypeKind.VAR:
        inner = dtype.set_name or names
        return f"{dtype.name}: {inner}"
    if dtype.kind is DtypeKind.SET:
        return str(dtype.name)
    return names


def dtype_expr(dtype: DtypeConstraint) -> str:
    """The dtype in the op table: a type variable or set by name, a tuple of
    dtype names otherwise."""
    if dtype.kind in (DtypeKind.VAR, DtypeKind.SET):
        return py_str(str(dtype.name))
    return _name_tuple(dtype.dtypes)


def _name_tuple(dtypes: tuple[DataType, ...]) -> str:
    names = [py_str(d.spec_name) for d in dtypes]
    return "(" + names[0] + ",)" if len(names) == 1 else "(" + ", ".join(names) + ")"


def _sentence(doc: str) -> str:
    return doc.strip()


def _attr_doc(attr: Attr) -> str:
    parts = [_sentence(attr.doc)] if attr.doc else []
    kind = attr.type.value
    if attr.default is not None:
        parts.append(f"{kind}, default {py_default_summary(attr.type, attr.default)}.")
    else:
        parts.append(f"{kind}, required.")
    return " ".join(parts)


def _output_annotation(output: Output) -> str:
    return "list[TensorHolder]" if output.dynamic else "TensorHolder"


def lower(op: OpSpec, code: bool = True) -> PyBuilder:
    """The builder of ``op``. Without ``code`` (the docs only read the
    signature), attr defaults are their summaries, not the laid-out code."""
    names = python_names(op)
    params: list[Param] = []
    only_optional = bool(op.inputs) and all(
        i.kind is InputKind.OPTIONAL for i in op.inputs
    )
    has_owner_builder = not op.inputs or only_optional

    for item in op.inputs:
        dtype = dtype_words(item.dtype)
        doc = (_sentence(item.doc) + " " if item.doc else "") + f"Dtype {dtype}."
        if item.kind is InputKind.DYNAMIC:
            annotation = f"Sequence[{_TENSOR_IN}]"
            doc = (_sentence(item.doc) + " " if item.doc else "") + (
                f"A list of tensors, dtype {dtype}."
            )
        elif item.kind is InputKind.OPTIONAL:
            annotation = f"{_TENSOR_IN} | None"
            doc += " Optional."
        else:
            annotation = _TENSOR_IN
        params.append(
            Param(names.params[("input", item.name)], annotation, None, False, doc)
        )
    if has_owner_builder:
        params.append(
            Param(
                "owner_builder",
                "GraphBuilder" if not op.inputs else "GraphBuilder | None",
                None,
                False,
                "The graph builder that owns the node"
                + (" (needed when no input is a TensorHolder)." if op.inputs else "."),
            )
        )
    for output in op.outputs:
        if output.dynamic and output.count is None:
            params.append(
                Param(
                    names.params[("num", output.name)],
                    "int",
                    None,
                    False,
                    f"Number of instances of dynamic output {output.name}.",
                )
            )
    for graph in op.graphs:
        params.append(
            Param(
                names.params[("graph", graph.name)],
                "Sequence[Graph]" if graph.dynamic else "Graph",
                None,
                False,
                (_sentence(graph.doc) + " " if graph.doc else "")
                + ("A list of subgraphs." if graph.dynamic else "A subgraph."),
            )
        )
    # Optional inputs default to None wherever every later positional
    # parameter can have a default too (spec-format.md, item 1).
    positional = len(params)
    defaultable = [False] * positional
    trailing_ok = True
    for index in range(positional - 1, -1, -1):
        param = params[index]
        can = param.annotation.endswith("| None")
        trailing_ok = trailing_ok and can
        defaultable[index] = trailing_ok
    params = [
        (
            Param(p.name, p.annotation, "None", p.keyword_only, p.doc)
            if defaultable[i]
            else p
        )
        for i, p in enumerate(params)
    ]
    star_index = len(params)
    given_attrs = [a for a in op.attrs if a.derive is None]
    for attr in sorted(given_attrs, key=lambda a: not a.required):
        # Defaults are immutable, so list attrs take any Sequence (tuples).
        annotation = python_annotation(attr.type, sequence="Sequence")
        name = names.params[("attr", attr.name)]
        default = summary = None
        if attr.default is not None:
            if attr.default.value is None:
                annotation += " | None"
            summary = py_default_summary(attr.type, attr.default)
            default = default_code(name, annotation, attr) if code else summary
        params.append(Param(name, annotation, default, True, _attr_doc(attr), summary))
    params.append(
        Param(
            "name",
            "str | None",
            "None",
            True,
            "Node name; a unique one is made when None.",
        )
    )

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
        result_class = f"{op.op_type}Output"
        fields = tuple(
            Field(names.fields[o.name], _output_annotation(o)) for o in op.outputs
        )
        returns = result_class
        returns_doc = f"{result_class}, a named tuple of:" + "".join(
            f"\n    {names.fields[o.name]}: {_output_doc(o)}" for o in op.outputs
        )

    used = (
        " ".join(p.annotation for p in params)
        + " "
        + returns
        + " "
        + " ".join(f.annotation for f in fields)
    )
    imports = []
    if "Sequence[" in used:
        imports.append("from collections.abc import Sequence")
    if result_class:
        imports.append("from typing import NamedTuple")
    if imports:
        imports.append("")
    imports.append("import ge.es._op_api as _api")
    es_names = ["TensorHolder"] + (["GraphBuilder"] if has_owner_builder else [])
    imports.append(f"from ge.es import {', '.join(sorted(es_names))}")
    if op.inputs:
        imports.append("from ge.es.tensor_like import TensorLike")
    graph_names = [
        n
        for n in ("DataType", "Graph", "NamedAttrs", "Tensor")
        if _mentions(used, n) or (n == "DataType" and "DataType." in _defaults(params))
    ]
    if graph_names:
        imports.append(f"from ge.graph import {', '.join(graph_names)}")

    return PyBuilder(
        op_type=op.op_type,
        doc=op.doc or f"Adds {_article(op.op_type)} {op.op_type} node to the graph.",
        params=tuple(params),
        star_index=star_index,
        returns=returns,
        returns_doc=returns_doc,
        result_class=result_class,
        result_fields=fields,
        inputs_map=tuple((i.name, names.params[("input", i.name)]) for i in op.inputs),
        attrs_map=tuple((a.name, names.params[("attr", a.name)]) for a in given_attrs),
        counts_map=tuple(
            (o.name, names.params[("num", o.name)])
            for o in op.outputs
            if o.dynamic and o.count is None
        ),
        graphs_map=tuple((g.name, names.params[("graph", g.name)]) for g in op.graphs),
        has_owner_builder=has_owner_builder,
        table_inputs=tuple(
            TableRow(_input_row(op, i, names.params[("input", op.inputs[i].name)]))
            for i in range(len(op.inputs))
        ),
        table_outputs=tuple(
            TableRow(_output_row(op, o, names.params.get(("num", o.name))))
            for o in op.outputs
        ),
        table_attrs=tuple(
            TableRow(_attr_row(a, names.params.get(("attr", a.name)))) for a in op.attrs
        ),
        table_graphs=tuple(
            TableRow(
                f"_api.Graph({py_str(g.name)}{', dynamic=True' if g.dynamic else ''}"
                + _param_arg(g.name, names.params[("graph", g.name)])
                + ")"
            )
            for g in op.graphs
        ),
        table_type_vars=tuple(
            TableRow(
                f"{py_str(v.name)}: "
                + (py_str(v.set_name) if v.set_name else _name_tuple(v.dtypes))
            )
            for v in op.type_vars
        ),
        imports=tuple(imports),
        all_names=tuple(
            sorted([op.op_type] + ([result_class] if result_class else []))
        ),
    )


def default_code(name: str, annotation: str, attr: Attr) -> str:
    """``attr``'s default as a parameter ``name: annotation = <this>,`` at
    indent 4 holds it: one line, or exploded when long (pyformat.layout)."""
    assert attr.default is not None
    head = f"{name}: {annotation} = "
    laid_out = layout(head, py_default_tree(attr.type, attr.default), ",", 4)
    return laid_out[len(head) : -1]


def _article(word: str) -> str:
    return "an" if word[:1] in "AEIOU" else "a"


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"\b{name}\b", text) is not None


def _defaults(params: list[Param]) -> str:
    return " ".join(p.default or "" for p in params)


def _output_doc(output: Output) -> str:
    words = dtype_words(output.dtype)
    text = (_sentence(output.doc) + " ") if output.doc else ""
    if output.dynamic:
        count = f", {output.count} of them" if output.count else ""
        return f"{text}A list of tensors{count}, dtype {words}."
    return f"{text}Dtype {words}."


def _param_arg(ir_name: str, param: str | None) -> str:
    """``, param="..."`` when the Python parameter is not the IR name, so
    errors name what the caller wrote."""
    return f", param={py_str(param)}" if param and param != ir_name else ""


def _input_row(op: OpSpec, index: int, param: str) -> str:
    item = op.inputs[index]
    extra = ""
    if item.kind is InputKind.OPTIONAL:
        extra = ", optional=True"
    elif item.kind is InputKind.DYNAMIC:
        extra = ", dynamic=True"
    extra += _param_arg(item.name, param)
    return f"_api.Input({py_str(item.name)}, {dtype_expr(item.dtype)}{extra})"


def _dtype_from(op: OpSpec, output: Output) -> str:
    """``dtype_from=`` for an output whose dtype its constraint cannot tell
    the builder (chained builders need it): the infer_meta dtype rule."""
    rule = next((r.dtype for r in op.infer_meta or () if r.output == output.name), None)
    if rule is None:
        return ""
    if rule.kind is DtypeRuleKind.ATTR:
        return f", dtype_from=_api.DtypeFrom.attr({py_str(str(rule.ref))})"
    if rule.kind is DtypeRuleKind.FIXED:
        assert rule.dtype is not None
        if len(output.dtype.dtypes) == 1:
            return ""
        return f", dtype_from=_api.DtypeFrom.fixed({py_str(rule.dtype.spec_name)})"
    source = next(i for i in op.inputs if i.name == rule.ref)
    if (
        output.dtype.kind is DtypeKind.VAR
        and source.dtype.kind is DtypeKind.VAR
        and source.dtype.name == output.dtype.name
    ):
        return ""  # the type variable carries it
    return f", dtype_from=_api.DtypeFrom.input({py_str(str(rule.ref))})"


def _output_row(op: OpSpec, output: Output, num_param: str | None) -> str:
    extra = ""
    if output.dynamic:
        extra = ", dynamic=True"
        if output.count is not None:
            func = "len" if output.count.kind is CountKind.LEN else "attr"
            extra += f", count=_api.Count.{func}({py_str(output.count.ref)})"
    extra += _param_arg(f"{output.name}_num", num_param)
    extra += _dtype_from(op, output)
    return f"_api.Output({py_str(output.name)}, {dtype_expr(output.dtype)}{extra})"


def _attr_row(attr: Attr, param: str | None) -> str:
    extra = ""
    if attr.required:
        extra = ", required=True"
    if attr.derive is not None:
        func = "len" if attr.derive.kind is DeriveKind.LEN else "dtype"
        extra = f", derive=_api.Derive.{func}({py_str(attr.derive.input)})"
    extra += _param_arg(attr.name, param)
    return f"_api.Attr({py_str(attr.name)}, {py_str(attr.type.value)}{extra})"


def banner(label: str) -> str:
    return f"Generated by gen-ops from {label}. Do not edit."


def files(ops: Sequence[OpSpec]) -> list[tuple[str, str]]:
    """The builder module of every op and each module's ``__init__.py``."""
    out: list[tuple[str, str]] = []
    by_module: dict[str, list[OpSpec]] = {}
    for op in ops:
        by_module.setdefault(op.module, []).append(op)
        text = render("python/builder.py.j2", b=lower(op), banner=banner(op.label))
        out.append((f"python/ge/es/{op.module}/{op.file_stem}.py", format_python(text)))
    for module, members in sorted(by_module.items()):
        exports = sorted(
            (name, op.file_stem) for op in members for name in exported_names(op)
        )
        text = render(
            "python/es_init.py.j2",
            module=module,
            exports=exports,
            banner=f"Generated by gen-ops from the specs of module {module}. Do not edit.",
        )
        out.append((f"python/ge/es/{module}/__init__.py", format_python(text)))
    return out
