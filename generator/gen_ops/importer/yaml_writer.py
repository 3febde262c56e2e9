"""An imported op as YAML, in the style of the hand-written specs.

Note [Spec layout]: the keys come in the order of ``specs/*.yaml`` (op,
module, doc, dtypes, inputs, outputs, attrs, graphs); the op's doc is a
``|`` block; each input, output, attr and graph is one flow mapping,
``- {name: x, dtype: T, doc: ...}``, when that fits in 88 columns, and a
block mapping otherwise, whose long plain doc and long lists are wrapped
at 88 columns. The first lines are the ``$schema`` comment ``gen-ops new``
writes and where the op was imported from. Same op, same text: nothing
depends on the machine or the time.

Every scalar is written plain when the YAML 1.2 reader gen-ops uses (and a
YAML 1.1 one) reads it back as the same string, and double-quoted with
escapes otherwise (``"x, unchanged"``, ``"true"``, a control character).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence
from dataclasses import dataclass

from gen_ops.base.charset import escape
from gen_ops.importer.model import (
    Attr,
    DtypeList,
    DtypeRef,
    Graph,
    ImportedOp,
    ListOf,
    NamedSet,
    Number,
    Promote,
    Range,
    Slot,
    Value,
    VarRef,
)
from gen_ops.spec.source import reads_as_string

WIDTH = 88
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_FLOW_INDICATORS = frozenset(",[]{}")
# Keys of older YAML, quoted although gen-ops' reader (gen_ops.spec.source,
# YAML 1.2's core schema) takes them as strings. ``y``, ``on`` and ``yes``
# are strings in YAML 1.2 and stay plain, as in the hand-written specs.
_OLD_KEYS = frozenset({"<<", "="})
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t"}


def plain_ok(text: str, flow: bool) -> bool:
    """Whether ``text`` can be written without quotes and read back as the
    same string, in a flow collection (``flow``) or a block."""
    if not text or text != text.strip() or not text.isprintable():
        return False
    if text[0] in _INDICATORS or text.startswith(("---", "...")):
        return False
    if ": " in text or " #" in text or text.endswith(":"):
        return False
    if flow and not _FLOW_INDICATORS.isdisjoint(text):
        return False
    return text not in _OLD_KEYS and reads_as_string(text)


_NEEDS_ESCAPE = re.compile(r'[\\"\ufeff]')


def quoted(text: str) -> str:
    """A double-quoted YAML scalar that says exactly ``text``."""
    if text.isprintable() and not _NEEDS_ESCAPE.search(text):
        return f'"{text}"'
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch.isprintable() and ch != "\ufeff":
            out.append(ch)
        else:
            code = ord(ch)
            out.append(
                f"\\x{code:02x}"
                if code <= 0xFF
                else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
            )
    return '"' + "".join(out) + '"'


def scalar(text: str, flow: bool = True) -> str:
    return text if plain_ok(text, flow) else quoted(text)


def value(data: Value) -> str:
    """A default's value as a flow-context YAML value."""
    if data is None:
        return "null"
    if isinstance(data, bool):
        return "true" if data else "false"
    if isinstance(data, int):
        return str(data)
    if isinstance(data, Number):
        return data.text
    if isinstance(data, str):
        return scalar(data)
    if isinstance(data, bytes):
        if all(byte < 0x80 for byte in data):
            return quoted(data.decode("ascii"))
        return "!!binary " + base64.b64encode(data).decode("ascii")
    return "[" + ", ".join(value(item) for item in data) + "]"


def dtype_value(ref: DtypeRef | Range) -> str:
    if isinstance(ref, (VarRef, NamedSet)):
        return scalar(ref.name)
    if isinstance(ref, DtypeList):
        if len(ref.names) == 1:
            return ref.names[0]
        return "[" + ", ".join(ref.names) + "]"
    if isinstance(ref, Promote):
        return "{promote: [" + ", ".join(scalar(n) for n in ref.vars) + "]}"
    assert isinstance(ref, ListOf)
    return "{list: " + dtype_value(ref.inner) + "}"


@dataclass(frozen=True)
class _Item:
    """One list entry: its keys and flow values, and a comment that belongs
    after the value of ``comment_key`` (or after the entry)."""

    fields: tuple[tuple[str, str], ...]
    doc: str
    comment: str | None = None
    comment_key: str | None = None

    def flow_line(self) -> str:
        parts = [f"{k}: {v}" for k, v in self.fields]
        if self.doc:
            parts.append(f"doc: {scalar(self.doc)}")
        return "  - {" + ", ".join(parts) + "}"


def _wrap_words(prefix: str, text: str, indent: str, quoted_text: bool) -> list[str]:
    """``prefix + text`` (a plain scalar, or a double-quoted one) wrapped at
    WIDTH. YAML folds each line break of such a scalar into one space, so
    it breaks only at a single space; a plain scalar's next line must not
    start with an indicator."""
    words = text.split(" ")
    lines = [prefix + words[0]]
    for word in words[1:]:
        if (
            len(lines[-1]) + 1 + len(word) > WIDTH
            and word
            and not lines[-1].endswith(" ")
            and lines[-1].strip()
            and (quoted_text or word[0] not in _INDICATORS)
        ):
            lines.append(indent + word)
        else:
            lines[-1] += " " + word
    return lines


def _wrap_flow(prefix: str, text: str, indent: str) -> list[str]:
    """A one-line flow list ``[a, b, ...]`` wrapped after its commas."""
    if len(prefix) + len(text) <= WIDTH or not text.startswith("["):
        return [prefix + text]
    pieces = text.split(", ")
    lines = [prefix + pieces[0]]
    for piece in pieces[1:]:
        if len(lines[-1]) + 2 + len(piece) > WIDTH:
            lines[-1] += ","
            lines.append(indent + piece)
        else:
            lines[-1] += ", " + piece
    return lines


def _block_doc(key_prefix: str, text: str, indent: str) -> list[str]:
    if plain_ok(text, flow=False):
        return _wrap_words(key_prefix, text, indent, quoted_text=False)
    return _wrap_words(key_prefix, quoted(text), indent, quoted_text=True)


def _items(title: str, items: Sequence[_Item]) -> list[str]:
    if not items:
        return []
    lines = [f"{title}:"]
    for item in items:
        flow = item.flow_line()
        if len(flow) <= WIDTH:
            lines.append(flow + (f"  # {item.comment}" if item.comment else ""))
            continue
        first = True
        for key, text in item.fields:
            prefix = ("  - " if first else "    ") + f"{key}: "
            first = False
            wrapped = _wrap_flow(prefix, text, "      ")
            if item.comment and item.comment_key == key:
                wrapped[-1] += f"  # {item.comment}"
            lines += wrapped
        if item.doc:
            lines += _block_doc("    doc: ", item.doc, "      ")
        if item.comment and item.comment_key is None:
            lines.append(f"    # {item.comment}")
    return lines


def _param(param: Slot, doc: str) -> _Item:
    fields = [("name", scalar(param.name)), ("dtype", dtype_value(param.dtype))]
    if param.optional:
        fields.append(("optional", "true"))
    if param.dynamic:
        fields.append(("dynamic", "true"))
    return _Item(tuple(fields), doc)


def _attr(attr: Attr, doc: str) -> _Item:
    fields = [("name", scalar(attr.name)), ("type", attr.type.value)]
    if attr.default is not None:
        fields.append(("default", value(attr.default.value)))
        notes = list(attr.default.names)
        if attr.default.evaluated is not None:
            notes.append(f"evaluated from {escape(attr.default.evaluated)}")
        if notes:
            return _Item(tuple(fields), doc, ", ".join(notes), "default")
        return _Item(tuple(fields), doc)
    if attr.dropped is not None:
        note = f"default not imported (I305): {escape(attr.dropped)}"
        return _Item(tuple(fields), doc, note, "type")
    return _Item(tuple(fields), doc)


def _graph(graph: Graph, doc: str) -> _Item:
    fields = [("name", scalar(graph.name))]
    if graph.dynamic:
        fields.append(("dynamic", "true"))
    return _Item(tuple(fields), doc)


def _op_doc(doc: str) -> list[str]:
    """``doc: |`` and the text, or a quoted scalar when a ``|`` block could
    not hold the text exactly."""
    if not doc:
        return []
    lines = doc.split("\n")
    literal = (
        all(ch.isprintable() or ch == "\t" for ch in doc.replace("\n", ""))
        and "\ufeff" not in doc
        and not lines[0][:1].isspace()
        and all(line == line.rstrip() for line in lines)
    )
    if literal:
        return ["doc: |"] + [f"  {line}" if line else "" for line in lines]
    return [f"doc: {quoted(doc)}"]


def spec_text(op: ImportedOp, schema: str, origin: str) -> str:
    """The spec of ``op``; ``schema`` is the ``$schema`` path as ``gen-ops
    new`` writes it, ``origin`` the header and line it came from."""
    shape = op.shape
    lines = [
        f"# yaml-language-server: $schema={schema}",
        f"# Imported by gen-ops import from {escape(origin)}.",
        f"op: {scalar(shape.op_type, flow=False)}",
        f"module: {scalar(op.module, flow=False)}",
    ]
    lines += _op_doc(op.doc)
    if shape.type_vars:
        lines.append("dtypes:")
        for var in shape.type_vars:
            lines += _wrap_flow(
                f"  {scalar(var.name, flow=False)}: ", dtype_value(var.range), "    "
            )
    lines += _items(
        "inputs", [_param(p, op.param_doc("input", p.name)) for p in shape.inputs]
    )
    lines += _items(
        "outputs",
        [_param(p, op.param_doc("output", p.name)) for p in shape.outputs],
    )
    lines += _items(
        "attrs", [_attr(a, op.param_doc("attr", a.name)) for a in shape.attrs]
    )
    lines += _items(
        "graphs", [_graph(g, op.param_doc("graph", g.name)) for g in shape.graphs]
    )
    return "\n".join(lines) + "\n"
