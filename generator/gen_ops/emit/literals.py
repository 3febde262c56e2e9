"""Spelling values and text in each target language.

Every escape rule lives here: Python string and bytes literals in the form
black keeps, C++ string literals and comments that cannot be broken out of,
attr defaults in Python, in GE's REG_OP spellings and as history JSON, and
Markdown table cells and inline code.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any, TypeAlias

from ge_ir.attrs import AttrType
from ge_ir.types import DataType
from gen_ops.spec.model import Default

# --- Python -----------------------------------------------------------------

_PY_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _py_char(ch: str, quote: str) -> str:
    if ch in _PY_ESCAPES:
        return _PY_ESCAPES[ch]
    if ch == quote:
        return "\\" + ch
    code = ord(ch)
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    if not ch.isprintable():
        return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
    return ch


def py_str(text: str) -> str:
    """A Python string literal for ``text``, quoted the way black prefers."""
    quote = "'" if text.count('"') > text.count("'") else '"'
    return quote + "".join(_py_char(ch, quote) for ch in text) + quote


def py_bytes(data: bytes) -> str:
    """A ``b"..."`` literal; printable ASCII stays readable."""
    quote = "'" if data.count(b'"') > data.count(b"'") else '"'
    out = []
    for byte in data:
        ch = chr(byte)
        if ch in _PY_ESCAPES:
            out.append(_PY_ESCAPES[ch])
        elif ch == quote:
            out.append("\\" + ch)
        elif 0x20 <= byte < 0x7F:
            out.append(ch)
        else:
            out.append(f"\\x{byte:02x}")
    return "b" + quote + "".join(out) + quote


def py_docstring_body(text: str) -> str:
    """Text safe inside a triple-double-quoted docstring that says exactly
    ``text``: backslashes are escaped, and so is every double quote that
    starts or ends the text or stands next to another one, so no run of
    quotes can close the docstring (and black has nothing to pad)."""
    text = text.replace("\\", "\\\\")
    out = []
    last = len(text) - 1
    for i, ch in enumerate(text):
        if ch == '"' and (
            i == 0 or i == last or text[i - 1] == '"' or text[i + 1] == '"'
        ):
            out.append('\\"')
        else:
            out.append(ch)
    return "".join(out)


# A decimal number as a spec may write it, and as Python and C++ both read it:
# the spellings of a float default that are kept as written.
_DECIMAL = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def _spells(text: str | None, value: float) -> bool:
    """Whether ``text`` denotes ``value`` exactly, without underflowing to 0."""
    if not text or float(text) != value:
        return False
    mantissa = re.split(r"[eE]", text)[0]
    return value != 0.0 or not any(c in "123456789" for c in mantissa)


def py_float(value: float, text: str | None = None) -> str:
    if math.isnan(value):
        return 'float("nan")'
    if math.isinf(value):
        return 'float("inf")' if value > 0 else 'float("-inf")'
    if (
        text
        and _DECIMAL.fullmatch(text)
        and any(c in text for c in ".eE")
        and _spells(text, value)
    ):
        spelled = text.lstrip("+").lower().replace("e+", "e")
        # black writes 1.e5 and 1. as 1.0e5 and 1.0, and 1e+5 as 1e5
        spelled = re.sub(r"\.(?=e|$)", ".0", spelled)
        return (
            "0" + spelled
            if spelled.startswith(".")
            else ("-0" + spelled[1:] if spelled.startswith("-.") else spelled)
        )
    return repr(value).replace("e+", "e")


def _spellings(default: Default, count: int) -> tuple[str | None, ...]:
    """The spec's spelling of each of ``count`` floats of ``default``."""
    if len(default.spellings) == count:
        return default.spellings
    return (None,) * count


# A Python literal as a tree: a spelled leaf, or a list of items that is a
# tuple literal. pyformat lays a tree out over several lines when it is long.
PyTree: TypeAlias = "str | list[PyTree]"


def py_default_tree(attr_type: AttrType, default: Default) -> PyTree:
    """The Python literal of an attr default (immutable: lists are tuples),
    as a tree."""
    value = default.value
    if value is None:
        return "None"
    if attr_type is AttrType.FLOAT:
        return py_float(value, _spellings(default, 1)[0])
    if attr_type is AttrType.LIST_FLOAT:
        texts = _spellings(default, len(value))
        return [py_float(v, t) for v, t in zip(value, texts)]
    return _py_value(value)


def py_flat(tree: PyTree) -> str:
    """A tree as one line: ``(1, 2)``, ``(1,)``, ``()``."""
    if isinstance(tree, str):
        return tree
    items = [py_flat(item) for item in tree]
    return "(" + items[0] + ",)" if len(items) == 1 else "(" + ", ".join(items) + ")"


def py_default(attr_type: AttrType, default: Default) -> str:
    """The Python literal of an attr default, on one line."""
    return py_flat(py_default_tree(attr_type, default))


# Defaults longer than this are shortened where they are only read (docstrings,
# docs pages); code always holds the whole value.
SUMMARY_LIMIT = 80


def py_default_summary(attr_type: AttrType, default: Default) -> str:
    """The default for readers: whole when short, else its start and size,
    e.g. ``(0, 0, 0, ... (100000 items))``. A 100,000-item default would
    otherwise be a 200 KB docstring line. Spells only the items it shows."""
    value = default.value
    if not isinstance(value, tuple):
        flat = py_default(attr_type, default)
        if len(flat) <= SUMMARY_LIMIT:
            return flat
        return flat[: SUMMARY_LIMIT - 10] + f"... ({len(flat)} characters)"
    shown: list[str] = []
    width = 0
    for text in _item_spellings(attr_type, default):
        width += len(text) + 2
        if width > SUMMARY_LIMIT:
            return "(" + ", ".join(shown + [f"... ({len(value)} items)"]) + ")"
        shown.append(text)
    return py_flat(list(shown))


def _item_spellings(attr_type: AttrType, default: Default) -> Iterator[str]:
    """The spelled items of a tuple default, one at a time."""
    if attr_type is AttrType.LIST_FLOAT:
        texts = _spellings(default, len(default.value))
        return (py_float(v, t) for v, t in zip(default.value, texts))
    return (py_flat(_py_value(v)) for v in default.value)


def _py_value(value: Any) -> PyTree:
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, DataType):
        return f"DataType.{value.name}"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return py_float(value)
    if isinstance(value, str):
        return py_str(value)
    if isinstance(value, bytes):
        return py_bytes(value)
    if isinstance(value, tuple):
        if all(type(v) is int for v in value):  # list_int: the common big case
            return list(map(str, value))
        return [_py_value(v) for v in value]
    raise TypeError(f"no Python literal for {type(value).__name__}")


# --- C++ --------------------------------------------------------------------

_CPP_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "?": "\\?"}


def cpp_str(text: str) -> str:
    """A C++ narrow string literal: printable UTF-8 kept as is; controls and
    every other character ``str.isprintable`` rejects (bidi formatting
    characters among them, which g++ -Wall refuses raw) as the octal escapes
    of their UTF-8 bytes, so the literal holds the same bytes (Note
    [Invisible characters])."""
    out = []
    for ch in text:
        if ch in _CPP_ESCAPES:
            out.append(_CPP_ESCAPES[ch])
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append("".join(f"\\{byte:03o}" for byte in ch.encode("utf-8")))
    return '"' + "".join(out) + '"'


def cpp_comment_lines(text: str, prefix: str = "/// ") -> list[str]:
    """Comment lines that say exactly ``text``, warning-free under g++ -Wall.

    Lines are ``//`` comments, where ``*/`` and ``/*`` are harmless. A line
    ending in a backslash would splice the next source line into a ``//``
    comment, so it becomes block comments instead, the last one closed on the
    following line (a backslash-newline inside a block comment is harmless).
    The line is cut between the characters of every ``*/`` and ``/*`` so that
    no block ends early or nests. A line ending in the trigraph ``??/`` is cut
    before its final ``/`` and closed on the same line, so no trigraph can
    form an escaped newline.
    """
    lines = []
    for line in text.split("\n"):
        trigraph = line.endswith("??/")
        if not (line.endswith("\\") or trigraph):
            lines.append((prefix + line).rstrip() if line else prefix.rstrip())
            continue
        cuts = [i + 1 for i in range(len(line) - 1) if line[i : i + 2] in ("*/", "/*")]
        if trigraph:
            cuts.append(len(line) - 1)
        bounds = [0] + sorted(set(cuts)) + [len(line)]
        pieces = [line[a:b] for a, b in zip(bounds, bounds[1:])]
        if trigraph:
            lines.append("".join(f"/*{piece}*/" for piece in pieces))
        else:
            closed = "".join(f"/*{piece}*/" for piece in pieces[:-1])
            lines += [closed + f"/*{pieces[-1]}", "*/"]
    return lines


def cpp_float(value: float, text: str | None = None) -> str:
    if math.isnan(value):
        return "std::numeric_limits<float>::quiet_NaN()"
    if math.isinf(value):
        sign = "" if value > 0 else "-"
        return f"{sign}std::numeric_limits<float>::infinity()"
    if text and _DECIMAL.fullmatch(text) and _spells(text, value):
        if any(c in text for c in ".eE"):
            return text.lstrip("+")
        return text.lstrip("+") + ".0"
    spelled = repr(value)
    return spelled if any(c in spelled for c in ".e") else spelled + ".0"


def cpp_int(value: int) -> str:
    # -9223372036854775808 is "minus (a literal too large for int64)" in C++.
    if value == -(1 << 63):
        return "(-9223372036854775807 - 1)"
    return str(value)


def cpp_default(attr_type: AttrType, default: Default) -> str:
    """GE's REG_OP spelling of a default (``ATTR(x, Type, <this>)``)."""
    value = default.value
    if attr_type is AttrType.TENSOR:
        return "Tensor()"
    if attr_type is AttrType.NAMED_ATTRS:
        return "NamedAttrs()"
    if attr_type is AttrType.FLOAT:
        return cpp_float(value, _spellings(default, 1)[0])
    if attr_type is AttrType.LIST_FLOAT:
        texts = _spellings(default, len(value))
        return "{" + ", ".join(cpp_float(v, t) for v, t in zip(value, texts)) + "}"
    if attr_type is AttrType.BYTES:
        return "{" + ", ".join(f"0x{b:02x}" for b in value) + "}"
    return _cpp_value(value)


def _cpp_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, DataType):
        return value.name
    if isinstance(value, int):
        return cpp_int(value)
    if isinstance(value, float):
        return cpp_float(value)
    if isinstance(value, str):
        return cpp_str(value)
    if isinstance(value, tuple):
        if all(type(v) is int for v in value):  # list_int: the common big case
            return "{" + ", ".join(map(cpp_int, value)) + "}"
        return "{" + ", ".join(_cpp_value(v) for v in value) + "}"
    raise TypeError(f"no C++ literal for {type(value).__name__}")


def needs_limits(attr_type: AttrType, default: Default | None) -> bool:
    """True when the default's C++ spelling uses std::numeric_limits."""
    if default is None or default.value is None:
        return False
    values = (
        default.value
        if attr_type is AttrType.LIST_FLOAT
        else (default.value,) if attr_type is AttrType.FLOAT else ()
    )
    return any(not math.isfinite(v) for v in values)


# --- history JSON (GE's operators.json) ---------------------------------------


def json_text(data: Any) -> str:
    """``data`` as a JSON file: UTF-8 text, indented by 2, with every
    character ``str.isprintable`` rejects written as a ``\\u`` escape (JSON
    itself escapes only C0 controls), so strings from specs cannot hide in the
    file (Note [Invisible characters])."""
    return json_printable(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def json_item_text(data: Any, depth: int) -> str:
    """``data`` as ``json_text`` writes it as an item of a list ``depth``
    levels deep (indented by 2 per level), without the separating comma: so
    a file's list can be joined from items written once (the history export
    of a module, from each op's facts)."""
    pad = "  " * depth
    text = json.dumps(data, indent=2, ensure_ascii=False)
    return json_printable(pad + text.replace("\n", "\n" + pad))


def json_printable(text: str) -> str:
    """JSON text with every character ``str.isprintable`` rejects (but the
    newlines between its lines) written as a ``\\u`` escape."""
    if text.replace("\n", "").isprintable():  # the common case, at C speed
        return text
    return "".join(
        ch if ch.isprintable() or ch == "\n" else _json_escape(ch) for ch in text
    )


def _json_escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


# json.dumps with these options would make an encoder per call (one per attr
# of every op a history export or compat writes).
_COMPACT_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def json_default(attr_type: AttrType, default: Default) -> str:
    """GE's ``default_value``: a JSON literal stored as a string."""
    value = default.value
    if attr_type is AttrType.TENSOR:
        return json.dumps("Tensor()")
    if attr_type is AttrType.NAMED_ATTRS:
        return json.dumps("NamedAttrs()")
    return _COMPACT_JSON.encode(_json_value(value))


def _json_value(value: Any) -> Any:
    if isinstance(value, tuple) and all(type(v) is int for v in value):
        return list(value)  # list_int: the common big case
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)  # "inf", "-inf", "nan": JSON has no such numbers
    if isinstance(value, DataType):
        return value.name
    if isinstance(value, tuple):
        return [_json_value(v) for v in value]
    if isinstance(value, bytes):
        return list(value)
    return value


# --- Markdown ---------------------------------------------------------------


def md_cell(text: str) -> str:
    """Text for one Markdown table cell: pipes escaped, lines joined."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", "<br>") or " "


def md_code(text: str) -> str:
    """Inline code that survives backticks in the text."""
    longest = 0
    run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
