"""C/C++ header text to tokens: the first translation phases, lite.

Note [Splices]: a backslash at the end of a line joins it to the next, before
anything else is read (translation phase 2), so a ``//`` comment ending in a
backslash swallows the next line and an argument list may go on across a
backslash-newline. The lexer removes every splice first (GCC's rule: spaces
between the backslash and the newline are allowed) and keeps where each one
was, so that an offset into the spliced text still maps to the line and
column of the original file.

Comments are dropped, except ``/** */`` doc comments, which become DOC
tokens. A ``#`` that starts a line starts a preprocessor directive: it and
its tokens, up to the end of the (spliced) line, become one DIRECTIVE token.
A quote that starts no literal on its line is a STRAY token, reported by
``preprocess`` only where the code is not skipped by ``#if 0``. An
unterminated comment is reported here (I103): the rest of the header is a
comment, so nothing after it can be read.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from gen_ops.base.diagnostics import Sink, Span
from gen_ops.importer.syntax import (
    DIRECTIVE,
    DOC,
    ID,
    PUNCT,
    STRAY,
    Token,
)

_SPLICE = re.compile(r"\\[ \t]*\n")

_TOKEN = re.compile(
    r"""
    (?P<nl>\n)
    |(?P<doc>/\*\*(?!/).*?\*/)
    |(?P<ws>(?:[ \t\f\v\r]+|//[^\n]*|/\*(?!\*(?!/)).*?\*/)+)
    |(?P<open>/\*)
    |(?P<str>(?:u8|u|U|L)?"(?:[^"\\\n]|\\.)*")
    |(?P<chr>(?:u8|u|U|L)?'(?:[^'\\\n]|\\.)+')
    |(?P<num>\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.]|'(?=[0-9A-Za-z_]))*)
    |(?P<id>[A-Za-z_$][A-Za-z0-9_$]*)
    |(?P<punct>::|\S)
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True)
class SourceText:
    """A header's text with its splices removed (Note [Splices])."""

    path: str  # as diagnostics name it
    original: str
    text: str  # spliced
    # Offsets (into ``text``) where a splice was removed, and the length of
    # each removal.
    splices: tuple[int, ...]
    removed: tuple[int, ...]
    line_starts: tuple[int, ...] = field(repr=False)

    @staticmethod
    def of(path: str, original: str) -> SourceText:
        original = original.replace("\r\n", "\n")
        starts = [0] + [m.end() for m in re.finditer("\n", original)]
        if "\\" not in original:
            return SourceText(path, original, original, (), (), tuple(starts))
        pieces: list[str] = []
        splices: list[int] = []
        removed: list[int] = []
        last = 0
        length = 0
        for match in _SPLICE.finditer(original):
            piece = original[last : match.start()]
            pieces.append(piece)
            length += len(piece)
            splices.append(length)
            removed.append(match.end() - match.start())
            last = match.end()
        pieces.append(original[last:])
        return SourceText(
            path,
            original,
            "".join(pieces),
            tuple(splices),
            tuple(_running(removed)),
            tuple(starts),
        )

    def original_offset(self, offset: int) -> int:
        index = bisect.bisect_right(self.splices, offset)
        return offset + (self.removed[index - 1] if index else 0)

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) in the original text."""
        where = self.original_offset(offset)
        line = bisect.bisect_right(self.line_starts, where)
        return line, where - self.line_starts[line - 1] + 1

    def span(self, offset: int) -> Span:
        return Span(self.path, *self.position(offset))


def _running(sizes: list[int]) -> list[int]:
    total = 0
    out = []
    for size in sizes:
        total += size
        out.append(total)
    return out


def tokenize(source: SourceText, sink: Sink) -> tuple[list[Token], bool]:
    """The header's tokens, and whether it could be read to its end (False
    after an unterminated comment, reported as I103)."""
    tokens: list[Token] = []
    directive: list[Token] | None = None
    directive_at = 0
    line_start = True
    new = tuple.__new__  # Token(...) without its Python-level __new__
    for match in _TOKEN.finditer(source.text):
        kind = match.lastgroup  # the group names are the token kinds
        if kind == "ws":  # spaces and comments other than /** */
            continue
        if kind == "nl":
            if directive is not None:
                tokens.append(_directive(directive, directive_at))
                directive = None
            line_start = True
            continue
        start = match.start()
        if kind == "open":
            sink.emit(
                "I103",
                source.span(start),
                "this comment is never closed by */; the rest of the header is "
                "a comment",
                "close the comment",
            )
            return tokens, False
        value = match.group()
        if kind == DOC:
            if directive is None:
                tokens.append(new(Token, (DOC, value, start, ())))
            continue
        if kind == PUNCT:
            if value == "#" and line_start and directive is None:
                directive = []
                directive_at = start
                continue
            if value == '"' or value == "'":
                kind = STRAY  # a quote that starts no literal on its line
        token = new(Token, (kind, value, start, ()))
        if directive is None:
            tokens.append(token)
            line_start = False
        else:
            directive.append(token)
    if directive is not None:
        tokens.append(_directive(directive, directive_at))
    return tokens, True


def _directive(tokens: list[Token], offset: int) -> Token:
    """``# name args...`` as one token; a bare ``#`` has the name ``""``."""
    if tokens and tokens[0].kind == ID:
        return Token(DIRECTIVE, tokens[0].text, offset, tuple(tokens[1:]))
    return Token(DIRECTIVE, "", offset, tuple(tokens))
