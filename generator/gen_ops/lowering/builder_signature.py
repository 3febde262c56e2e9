"""The signature of an op's builder function: its parameters in GE's order
(docs/ge-compat.md, "Builder calling convention"), their annotations,
defaults and docs, and what it returns. The builder module prints it
(``lower_python``) and the op's reference page shows it (``lower_docs``),
so both take it from here."""

from __future__ import annotations

from dataclasses import dataclass

from gen_ops.emit.literals import py_default_summary
from gen_ops.lowering.call_shapes import CallShape, ParamHistory
from gen_ops.lowering.imports import Imports
from gen_ops.lowering.names import PythonNames
from gen_ops.lowering.signature import Param, attr_annotation, default_code
from gen_ops.lowering.words import dtype_words, history_words
from gen_ops.spec.model import Attr, Input, InputKind, OpSpec, Output

_TENSOR_IN = "TensorHolder | TensorLike"


@dataclass(frozen=True)
class Field:
    name: str
    annotation: str


@dataclass(frozen=True)
class BuilderSignature:
    params: tuple[Param, ...]
    star_index: int  # where the bare * goes (index into params)
    returns: str
    returns_doc: str
    result_class: str | None  # the named tuple of several outputs
    result_fields: tuple[Field, ...]


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


def builder_signature(
    op: OpSpec, names: PythonNames, calls: CallShape, imports: Imports, code: bool
) -> BuilderSignature:
    """The builder's signature, recording in ``imports`` each name its
    annotations need. Without ``code`` (the docs only read the signature),
    attr defaults are their summaries, not the laid-out code."""
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
    return BuilderSignature(
        params=tuple(params),
        star_index=len(positional),
        returns=returns,
        returns_doc=returns_doc,
        result_class=result_class,
        result_fields=fields,
    )


def _output_doc(output: Output) -> str:
    words = dtype_words(output.dtype)
    if output.dynamic:
        count = f", {output.count} of them" if output.count else ""
        return _with_doc(output.doc, f"A list of tensors{count}, dtype {words}.")
    return _with_doc(output.doc, f"Dtype {words}.")
