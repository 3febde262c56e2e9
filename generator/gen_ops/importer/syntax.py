"""What the parser makes of a header: tokens, REG_OP elements, declarations.

Positions are offsets into the header's spliced text (backslash-newlines
removed, Note [Splices] in ``lexer``); ``lexer.SourceText.span`` turns one
into the ``file:line:col`` of the original text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

# Token kinds.
ID = "id"  # identifier or keyword
NUM = "num"  # a preprocessing number (1, 1e-5f, 0x1F, 1'000)
STR = "str"  # a string literal, quotes and prefix included
CHR = "chr"  # a character literal
PUNCT = "punct"  # one punctuator (``::`` is one); a full-width comma is "，"
DOC = "doc"  # a /** ... */ comment, delimiters included
DIRECTIVE = "dir"  # a preprocessor line: text is its name, args its tokens
STRAY = "stray"  # a quote that starts no literal on its line

FULLWIDTH_COMMA = "\uff0c"


class Token(NamedTuple):
    """One token. A tuple, not a dataclass: a header has tens of thousands."""

    kind: str
    text: str
    offset: int
    args: tuple[Token, ...] = ()

    def is_punct(self, text: str) -> bool:
        return self.kind == PUNCT and self.text == text

    @property
    def is_comma(self) -> bool:
        return self.kind == PUNCT and self.text in (",", FULLWIDTH_COMMA)


@dataclass(frozen=True)
class Element:
    """``.KIND(args)`` in a REG_OP chain. ``args`` are the tokens between the
    parentheses split at top-level commas, as the C preprocessor splits a
    macro's arguments (parentheses nest; braces do not)."""

    kind: str
    offset: int  # of the KIND identifier
    open_offset: int  # of the "("
    args: tuple[tuple[Token, ...], ...]

    def tail(self, index: int) -> tuple[Token, ...]:
        """Arguments ``index`` and after, with the commas between them: the
        variadic default of ATTR, or a type expression a comma split."""
        out: list[Token] = []
        for number, arg in enumerate(self.args[index:]):
            if number:
                out.append(Token(PUNCT, ",", arg[0].offset if arg else 0))
            out.extend(arg)
        return tuple(out)


@dataclass(frozen=True)
class Declaration:
    """``REG_OP(Name) .ELEMENT(...)... .OP_END_FACTORY_REG(Name)``."""

    name: str
    offset: int  # of the name inside REG_OP(...)
    elements: tuple[Element, ...]
    doc: Token | None  # the /** */ comment just above it


@dataclass(frozen=True)
class Broken:
    """A REG_OP the parser could not read to its end (already reported)."""

    name: str | None
    offset: int


def spell(tokens: Sequence[Token]) -> str:
    """Tokens as C++ text on one line: ``TensorType({DT_A, DT_B})``."""
    out: list[str] = []
    previous: Token | None = None
    for token in tokens:
        if previous is not None:
            if previous.is_comma:
                out.append(" ")
            elif previous.kind in (ID, NUM, STR, CHR) and token.kind in (
                ID,
                NUM,
                STR,
                CHR,
            ):
                out.append(" ")
        out.append(token.text)
        previous = token
    return "".join(out)


def shortened(text: str, limit: int = 80) -> str:
    """``text`` for a message: its ends around `` ... `` when it is longer
    than ``limit`` (a default can be thousands of characters)."""
    if len(text) <= limit:
        return text
    return f"{text[: limit - 20]} ... {text[-12:]}"
