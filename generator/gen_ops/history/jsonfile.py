"""A registry file: its JSON value, and where a value of it stands.

Registry files are JSON, which keeps no positions; a diagnostic about one
names the file, the line and column of the value (found by walking the text
only when a diagnostic needs it) and the value's JSON path
(``releases[2].release_date``) in its message.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gen_ops.base import untrusted
from gen_ops.base.diagnostics import Span

JsonPath = tuple[str | int, ...]

_SPACE = " \t\n\r"
_DECODER = json.JSONDecoder()


def describe(path: JsonPath) -> str:
    """``("releases", 2, "release_date")`` -> ``releases[2].release_date``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else ("." if text else "") + part
    return text or "the file"


class Unreadable(Exception):
    """A file that is missing, unreadable or not JSON; ``span`` is where."""

    def __init__(self, span: Span, reason: str) -> None:
        super().__init__(reason)
        self.span = span
        self.reason = reason


@dataclass(frozen=True)
class JsonFile:
    display: str  # the path, as messages name it
    text: str
    data: Any

    def span(self, path: JsonPath) -> Span:
        """Where the value at ``path`` stands (the nearest enclosing value
        that exists)."""
        line, col = locate(self.text, path)
        return Span(self.display, line, col)


def load(path: Path, display: str) -> JsonFile:
    """The file's JSON value; ``Unreadable`` says why there is none. A UTF-8
    byte-order mark is allowed, as GE's JSON reader allows it. The file is
    read as a file a user did not write (Note [Untrusted files]): a regular
    file of at most ``JSON_LIMIT`` bytes, with bounded integers and nesting."""
    try:
        text = untrusted.read_text(
            path, limit=untrusted.JSON_LIMIT, display=display, encoding="utf-8-sig"
        )
        data = untrusted.load_json(text, display)
    except FileNotFoundError:
        raise Unreadable(Span(display, 1, 1), "it does not exist") from None
    except untrusted.UntrustedFileError as exc:
        raise Unreadable(Span(display, exc.line, exc.col), exc.reason) from None
    return JsonFile(display, text, data)


def locate(text: str, path: JsonPath) -> tuple[int, int]:
    """The 1-based line and column of the value at ``path`` in JSON ``text``:
    of the last of repeated keys (the one ``json.loads`` keeps), else of the
    deepest enclosing value found; (1, 1) when nothing is found."""
    pos = best = _skip(text, 0)
    try:
        for part in path:
            found = _member(text, pos, part)
            if found is None:
                break
            pos = best = found
    except (ValueError, IndexError):
        pass
    line = text.count("\n", 0, best) + 1
    return line, best - (text.rfind("\n", 0, best) + 1) + 1


def _skip(text: str, pos: int) -> int:
    """Past JSON's white space from ``pos``."""
    while pos < len(text) and text[pos] in _SPACE:
        pos += 1
    return pos


def _member(text: str, pos: int, part: str | int) -> int | None:
    """Where the member ``part`` of the object or array at ``pos`` starts."""
    opener, closer = ("{", "}") if isinstance(part, str) else ("[", "]")
    if text[pos : pos + 1] != opener:
        return None
    pos = _skip(text, pos + 1)
    if text[pos : pos + 1] == closer:
        return None
    found, index = None, 0
    while True:
        if isinstance(part, str):
            key, pos = _DECODER.raw_decode(text, pos)
            pos = _skip(text, _skip(text, pos) + 1)  # past the colon
            if key == part:
                found = pos
        elif index == part:
            return pos
        _, end = _DECODER.raw_decode(text, pos)
        pos = _skip(text, end)
        if text[pos : pos + 1] != ",":
            return found
        pos = _skip(text, pos + 1)
        index += 1
