"""A parsed REG_OP declaration to an imported op (``model``), or nothing.

Each element becomes its spec item: INPUT, OPTIONAL_INPUT (``optional``),
DYNAMIC_INPUT (``dynamic``), OUTPUT, DYNAMIC_OUTPUT, ATTR (with a default),
REQUIRED_ATTR, GRAPH, DYNAMIC_GRAPH and DATATYPE (a type variable); the
legacy no-op ``INFER_SHAPE_AND_TYPE()`` is skipped. Names are kept as they
are, ``_kernel`` included, and each kind keeps its IR order. An input and an
output of the same name stay a ref pair.

An op with any error (I201, I202, I203, I204, I205) is not imported; the
warnings of its elements are reported all the same, but its doc is not
checked (I307): the elements with an error are missing from what the doc
would be checked against.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable

from ge_ir.attrs import AttrType
from gen_ops.base.diagnostics import Sink
from gen_ops.importer import docblock
from gen_ops.importer.defaults import read_default
from gen_ops.importer.dtype_expr import read_dtype, read_range
from gen_ops.importer.lexer import SourceText
from gen_ops.importer.model import (
    Attr,
    Graph,
    ImportedOp,
    OpShape,
    Place,
    Slot,
    TypeVar,
)
from gen_ops.importer.reporting import OpReporter
from gen_ops.importer.syntax import ID, Declaration, Element, Token, spell

# REG_OP's attr type names that are another name of a spec type.
ATTR_TYPE_ALIASES = {
    "AscendString": AttrType.STR,
    "ListAscendString": AttrType.LIST_STR,
    "ListAcendString": AttrType.LIST_STR,  # GE's own typo alias
}
_INPUTS = {"INPUT": (False, False), "OPTIONAL_INPUT": (True, False)}
_INPUTS["DYNAMIC_INPUT"] = (False, True)
_OUTPUTS = {"OUTPUT": False, "DYNAMIC_OUTPUT": True}
_GRAPHS = {"GRAPH": False, "DYNAMIC_GRAPH": True}
_IGNORED = frozenset({"INFER_SHAPE_AND_TYPE"})
# How many arguments each element takes (at least, and at most; None: more
# are the default's or the type's, split at their commas).
_ARITY: dict[str, tuple[int, int | None]] = {
    **{kind: (2, None) for kind in _INPUTS},
    **{kind: (2, None) for kind in _OUTPUTS},
    **{kind: (1, 1) for kind in _GRAPHS},
    "ATTR": (3, None),
    "REQUIRED_ATTR": (2, 2),
    "DATATYPE": (2, None),
    "INFER_SHAPE_AND_TYPE": (0, 0),
}
# The method of _Converter that reads each element.
_HANDLERS = {
    **{kind: "input" for kind in _INPUTS},
    **{kind: "output" for kind in _OUTPUTS},
    **{kind: "graph" for kind in _GRAPHS},
    "ATTR": "attr",
    "REQUIRED_ATTR": "attr",
    "DATATYPE": "datatype",
}
_SIGNATURES = {
    **{kind: f".{kind}(name, type)" for kind in (*_INPUTS, *_OUTPUTS)},
    **{kind: f".{kind}(name)" for kind in _GRAPHS},
    "ATTR": ".ATTR(name, Type, default)",
    "REQUIRED_ATTR": ".REQUIRED_ATTR(name, Type)",
    "DATATYPE": ".DATATYPE(T, TensorType({...}))",
    "INFER_SHAPE_AND_TYPE": ".INFER_SHAPE_AND_TYPE()",
}


class _Converter:
    def __init__(
        self,
        declaration: Declaration,
        source: SourceText,
        sink: Sink,
        fix_dtypes: bool,
    ) -> None:
        self.decl = declaration
        self.source = source
        self.fix_dtypes = fix_dtypes
        self.report = OpReporter(source, sink, declaration.name)
        self.type_vars: list[TypeVar] = []
        self.inputs: list[Slot] = []
        self.outputs: list[Slot] = []
        self.attrs: list[Attr] = []
        self.graphs: list[Graph] = []
        self.places: list[Place] = []
        self.declared = frozenset(
            e.args[0][0].text
            for e in declaration.elements
            if e.kind == "DATATYPE" and e.args and len(e.args[0]) == 1
        )

    def name(self, element: Element) -> str | None:
        """The element's first argument, which must be one identifier."""
        first = element.args[0]
        if len(first) != 1 or first[0].kind != ID:
            self.report(
                "I201",
                first[0].offset if first else element.open_offset,
                f"the first argument of .{element.kind} must be a name, not "
                f"'{spell(first)}'",
                f"write {_SIGNATURES[element.kind]}",
            )
            return None
        return first[0].text

    def element(self, element: Element) -> None:
        arity = _ARITY.get(element.kind)
        if arity is None:
            close = difflib.get_close_matches(element.kind, list(_ARITY), n=1)
            self.report(
                "I201",
                element.offset,
                f".{element.kind} is not an element of REG_OP",
                (
                    f"did you mean .{close[0]}?"
                    if close
                    else "REG_OP's elements are " + ", ".join(sorted(_ARITY))
                ),
            )
            return
        low, high = arity
        count = len(element.args)
        if count < low or (high is not None and count > high):
            self.report(
                "I201",
                element.offset,
                f".{element.kind} takes {low}"
                + ("" if high == low else " or more")
                + f" argument(s), not {count}",
                f"write {_SIGNATURES[element.kind]}",
            )
            return
        if element.kind in _IGNORED:
            return
        empty = next((i for i, arg in enumerate(element.args) if not arg), None)
        if empty is not None:
            self.report(
                "I201",
                element.offset,
                f"argument {empty + 1} of .{element.kind} is empty",
                f"write {_SIGNATURES[element.kind]}",
            )
            return
        name = self.name(element)
        if name is None:
            return
        handler: Callable[[Element, str], None] = getattr(self, _HANDLERS[element.kind])
        handler(element, name)

    def input(self, element: Element, name: str) -> None:
        optional, dynamic = _INPUTS[element.kind]
        dtype = read_dtype(
            element.tail(1),
            self.declared,
            self.fix_dtypes,
            self.report,
            f"input '{name}'",
        )
        if dtype is not None:
            self.inputs.append(Slot(name, dtype, optional, dynamic))
            self.place("input", name, element)

    def output(self, element: Element, name: str) -> None:
        dtype = read_dtype(
            element.tail(1),
            self.declared,
            self.fix_dtypes,
            self.report,
            f"output '{name}'",
        )
        if dtype is not None:
            self.outputs.append(Slot(name, dtype, dynamic=_OUTPUTS[element.kind]))
            self.place("output", name, element)

    def graph(self, element: Element, name: str) -> None:
        self.graphs.append(Graph(name, _GRAPHS[element.kind]))
        self.place("graph", name, element)

    def datatype(self, element: Element, name: str) -> None:
        found = read_range(
            element.tail(1),
            self.declared,
            self.fix_dtypes,
            self.report,
            f"type variable {name}",
        )
        if found is not None:
            self.type_vars.append(TypeVar(name, found))
            self.place("type variable", name, element)

    def attr(self, element: Element, name: str) -> None:
        kind = self.attr_type(element.args[1], name)
        if kind is None:
            return
        self.place("attr", name, element)
        if element.kind == "REQUIRED_ATTR":
            self.attrs.append(Attr(name, kind, None))
            return
        default, dropped = read_default(
            kind, element.tail(2), name, self.fix_dtypes, self.report
        )
        self.attrs.append(Attr(name, kind, default, dropped))

    def place(self, role: str, name: str, element: Element) -> None:
        """Where the element's name, type and default (ATTR's) stand."""
        span = self.source.span
        at = span(element.args[0][0].offset)
        type_at = span(element.args[1][0].offset) if len(element.args) > 1 else at
        default_at = span(element.args[2][0].offset) if element.kind == "ATTR" else None
        self.places.append(Place(role, name, at, type_at, default_at))

    def attr_type(self, tokens: tuple[Token, ...], name: str) -> AttrType | None:
        text = spell(tokens)
        if len(tokens) == 1 and tokens[0].kind == ID:
            try:
                return AttrType.from_ir_name(text)
            except KeyError:
                pass
            if text in ATTR_TYPE_ALIASES:
                kind = ATTR_TYPE_ALIASES[text]
                self.report(
                    "I303",
                    tokens[0].offset,
                    f"attr '{name}': {text} is imported as {kind.value} "
                    f"({kind.ir_name})",
                    f"write {kind.ir_name}",
                )
                return kind
        known = [t.ir_name for t in AttrType] + list(ATTR_TYPE_ALIASES)
        close = difflib.get_close_matches(text, known, n=1)
        self.report(
            "I205",
            tokens[0].offset if tokens else 0,
            f"attr '{name}': {text} is not an attr type of REG_OP",
            (
                f"did you mean {close[0]}?"
                if close
                else "the types are " + ", ".join(t.ir_name for t in AttrType)
            ),
        )
        return None

    def docs(self) -> tuple[str, tuple[tuple[str, str, str], ...]]:
        if self.decl.doc is None:
            return "", ()
        params = {
            "input": frozenset(p.name for p in self.inputs),
            "output": frozenset(p.name for p in self.outputs),
            "attr": frozenset(a.name for a in self.attrs),
            "graph": frozenset(g.name for g in self.graphs),
        }
        found = docblock.read(self.decl.doc.text, self.decl.doc.offset, params)
        for item in found.unmatched:
            self.report(
                "I307",
                item.offset,
                f"the doc's {item.section} names '{item.name}', which is no "
                f"{item.section.lower().rstrip('s')} of the op; kept in the op's doc",
                "correct the name in the doc comment",
            )
        order = {"input": 0, "output": 1, "attr": 2, "graph": 3}
        params_docs = tuple(
            (role, name, text)
            for (role, name), text in sorted(
                found.params.items(), key=lambda kv: (order[kv[0][0]], kv[0][1])
            )
        )
        return found.doc, params_docs

    def run(self, module: str) -> ImportedOp | None:
        for element in self.decl.elements:
            self.element(element)
        if self.report.failed:
            # An element with an error is missing from the op, so the doc's
            # items would be checked against a part of it: no I307 then.
            return None
        doc, param_docs = self.docs()
        shape = OpShape(
            self.decl.name,
            tuple(self.type_vars),
            tuple(self.inputs),
            tuple(self.outputs),
            tuple(self.attrs),
            tuple(self.graphs),
        )
        return ImportedOp(
            shape,
            doc,
            param_docs,
            module,
            self.source.span(self.decl.offset),
            tuple(self.places),
        )


def convert(
    declaration: Declaration,
    source: SourceText,
    sink: Sink,
    module: str,
    fix_dtypes: bool,
) -> ImportedOp | None:
    """The imported op, or None when it has an error (reported)."""
    return _Converter(declaration, source, sink, fix_dtypes).run(module)
