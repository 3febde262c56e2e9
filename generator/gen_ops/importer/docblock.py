"""A ``/** */`` doc comment to the spec's docs.

Note [Doc blocks]: GE's headers document an op in Doxygen style:

    /**
    *@brief Adds x and y . \\n

    *@par Inputs:
    *Two inputs, including:
    * @li x: A Tensor. Must be one of the following types: float16, float32.
    * @li y: A Tensor of the same type as "x". \\n

    *@par Outputs:
    *z: A Tensor. Has the same type as "x". \\n

    *@par Third-party framework compatibility
    *Compatible with the TensorFlow operator Add.
    */

What each part becomes:

- ``@brief`` (up to a blank line or the next tag) is the op's summary, the
  first paragraph of ``doc``. Without ``@brief``, the first paragraph is.
- Under ``@par Inputs:``, ``@par Outputs:`` and ``@par Attributes:`` (and
  ``Graphs``), an item ``@li name: text`` (or a line ``name: text`` whose
  name is a parameter of that kind) is that parameter's ``doc``; its
  continuation lines are joined with spaces. An item that names no
  parameter is kept in the op's doc, under its section's title, and
  reported (I307). A count phrase such as ``Two inputs, including:`` is
  dropped; any other text of such a section is kept in the op's doc.
- Everything else is kept, in order, as the rest of the op's doc: text
  after the summary, ``@attention``, ``@see``, ``@par Third-party framework
  compatibility``, ``@par Restrictions:`` and any other tag, each a
  paragraph that starts with its title (``Restrictions: ...``); their
  ``@li`` items become ``- `` lines.

Lines lose the leading ``*`` and surrounding spaces and Doxygen's line-break
marker (a trailing ``\\n``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

_TAG = re.compile(r"@(\w+)\s*(.*)")
_ITEM = re.compile(r"[\"'`]?([A-Za-z_]\w*)[\"'`]?\s*:\s*(.*)")
_BREAK_MARKER = re.compile(r"\s*(?:\\n\s*)+$")
_ROLE = {
    "input": "input",
    "output": "output",
    "attribute": "attr",
    "attr": "attr",
    "graph": "graph",
    "subgraph": "graph",
}
_ROLE_TITLE = re.compile(
    r"(?:dynamic\s+|optional\s+)?(inputs?|outputs?|attributes?|attrs?|(?:sub)?graphs?)",
    re.IGNORECASE,
)
_COUNT_PHRASE = re.compile(
    r"(?:(?:\w+\s+){0,2}(?:inputs?|outputs?|attributes?|attrs?|graphs?)\s*,?\s*)?"
    r"(?:including|includes|include)?\s*:?",
    re.IGNORECASE,
)
_TITLES = {
    "attention": "Attention",
    "see": "See also",
    "note": "Note",
    "warning": "Warning",
    "deprecated": "Deprecated",
    "return": "Returns",
    "returns": "Returns",
}


@dataclass(frozen=True)
class Unmatched:
    """An item of a parameter section that names no parameter."""

    section: str
    name: str
    offset: int  # into the header's spliced text


@dataclass(frozen=True)
class Docs:
    """What a doc comment gives: the op's doc, each documented parameter's
    doc by (role, name), and the items that named no parameter."""

    doc: str
    params: Mapping[tuple[str, str], str]
    unmatched: tuple[Unmatched, ...]


@dataclass
class _Section:
    title: str  # "" for the description
    role: str | None  # a parameter section's role
    lines: list[str] = field(default_factory=list)  # "" is a paragraph break


def _lines(text: str, offset: int) -> list[tuple[str, int, str]]:
    """The comment's lines, cleaned, with the offset each starts at and
    the line as written."""
    body_start = 3  # after "/**"
    body = text[body_start : len(text) - 2 if text.endswith("*/") else len(text)]
    out = []
    position = offset + body_start
    for raw in body.split("\n"):
        line = raw.strip()
        if line.startswith("*"):
            line = line.lstrip("*").strip()
        line = _BREAK_MARKER.sub("", line).strip()
        if line == "\\n":
            line = ""
        out.append((line, position, raw))
        position += len(raw) + 1
    return out


def _role(title: str) -> str | None:
    match = _ROLE_TITLE.fullmatch(title.strip().rstrip(":").strip())
    if not match:
        return None
    word = match.group(1).lower().rstrip("s")
    return _ROLE.get(word)


def read(text: str, offset: int, params: Mapping[str, frozenset[str]]) -> Docs:
    """Read the doc comment ``text`` (delimiters included) found at
    ``offset``; ``params`` are the op's parameter names by role (input,
    output, attr, graph)."""
    sections: list[_Section] = [_Section("", None)]
    brief: list[str] = []
    in_brief = False
    found: dict[tuple[str, str], list[str]] = {}
    unmatched: list[Unmatched] = []
    current_item: list[str] | None = None  # the text of the item being read

    def lookup(role: str | None, name: str) -> tuple[str, str] | None:
        if role is not None and name in params.get(role, ()):
            return role, name
        owners = [r for r, names in params.items() if name in names]
        return (owners[0], name) if len(owners) == 1 else None

    for line, position, raw in _lines(text, offset):
        section = sections[-1]
        tag = _TAG.fullmatch(line) if line.startswith("@") else None
        if not line:
            in_brief = False
            current_item = None
            if section.lines and section.lines[-1]:
                section.lines.append("")
            continue
        if tag is not None and tag.group(1) != "li":
            name, rest = tag.group(1), tag.group(2).strip()
            current_item = None
            in_brief = False
            if name == "brief":
                in_brief = True
                if rest:
                    brief.append(rest)
                sections.append(_Section("", None))
                continue
            if name == "par":
                title = rest.rstrip(":").strip()
                sections.append(_Section(title, _role(title)))
                continue
            title = _TITLES.get(name.lower(), f"@{name}")
            sections.append(_Section(title, None))
            if rest:
                sections[-1].lines.append(rest)
            continue
        if in_brief:
            brief.append(line)
            continue
        is_li = tag is not None
        content = tag.group(2).strip() if tag is not None else line
        if section.role is not None:
            item = _ITEM.fullmatch(content)
            key = lookup(section.role, item.group(1)) if item else None
            if key is not None and key not in found:
                current_item = found.setdefault(key, [])
                if item and item.group(2):
                    current_item.append(item.group(2).strip())
                continue
            if is_li and item is not None:
                name = item.group(1)
                column = raw.find(name, max(raw.find("@li") + 3, 0))
                unmatched.append(Unmatched(section.title, name, position + column))
            if current_item is not None and not is_li:
                current_item.append(content)
                continue
            current_item = None
            if not is_li and _COUNT_PHRASE.fullmatch(content):
                continue
        section.lines.append(f"- {content}" if is_li else content)
    if not brief:
        description = sections[0].lines
        while description and description[0]:
            brief.append(description.pop(0))
        while description and not description[0]:
            description.pop(0)
    paragraphs = [" ".join(brief)] if brief else []
    for section in sections:
        while section.lines and not section.lines[-1]:
            section.lines.pop()
        if not section.lines:
            continue
        lines = list(section.lines)
        if section.title:
            if lines[0].startswith("- "):
                lines.insert(0, f"{section.title}:")
            else:
                lines[0] = f"{section.title}: {lines[0]}"
        paragraphs.append("\n".join(lines))
    docs = {key: " ".join(parts) for key, parts in found.items() if parts}
    return Docs("\n\n".join(paragraphs), docs, tuple(unmatched))
