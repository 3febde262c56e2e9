"""Conditional directives, lite: which tokens the importer reads.

Note [Conditionals]: the importer cannot know the macros a header is built
with, so it reads every branch of ``#if``/``#ifdef``/``#ifndef`` (a wrapper
such as ``#ifndef BUILD_LITE`` around a declaration is the common case),
except what the preprocessor would skip whatever the macros: the body of
``#if 0`` (up to its ``#elif``/``#else``) and the ``#else`` branch of
``#if 1``. It checks that the conditionals nest: a ``#if`` never closed by
``#endif`` and an ``#endif``/``#else``/``#elif`` with no ``#if`` are I107
(the header is not imported). The conditional directives themselves leave
the stream; other directives stay, since ``#include`` and ``#define`` end
the reach of a doc comment (``parser``).

Note [Which #if an #endif closes]: the preprocessor pairs an ``#endif``
with the innermost open ``#if``, so when one ``#endif`` is missing it is
the outermost ``#if`` (the include guard, at the top) that ends up unclosed,
wherever the defect is. An ``#endif`` whose comment names a macro
(``#endif  // FOO_H``) that an outer open ``#if`` tests, and the innermost
one does not, closes that outer one, as its author meant: the ``#if`` directives
opened after it are the ones never closed, and each is reported (I107) at
its own line.

In the code it keeps, a stray quote is I104, and a full-width comma is read
as a comma (I308): the macros only stringify their arguments, so GE never
notices one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gen_ops.base.diagnostics import Sink
from gen_ops.importer.lexer import SourceText
from gen_ops.importer.syntax import DIRECTIVE, FULLWIDTH_COMMA, PUNCT, STRAY, Token

_OPEN = frozenset({"if", "ifdef", "ifndef"})
_MIDDLE = frozenset({"elif", "else", "elifdef", "elifndef"})


@dataclass
class _Frame:
    opening: Token
    constant: bool | None  # the #if's value when it is a literal 0 or 1
    outer_skipping: bool  # the code around the #if is skipped


def _constant(token: Token) -> bool | None:
    if token.text != "if" or len(token.args) != 1:
        return None
    value = token.args[0].text
    return {"0": False, "1": True}.get(value)


def active_tokens(
    source: SourceText, tokens: list[Token], sink: Sink
) -> tuple[list[Token], bool, tuple[tuple[int, int], ...]]:
    """The tokens outside skipped branches, without conditional directives;
    whether the conditionals nest (False after an I107); and the offsets of
    each conditional's opening directive and its #endif, for the parser to
    place a bracket never closed (Note [Where a bracket is missing])."""
    spans: list[tuple[int, int]] = []
    out: list[Token] = []
    stack: list[_Frame] = []
    ok = True
    skipping = False
    for token in tokens:
        if token.kind == DIRECTIVE and token.text in _OPEN:
            constant = _constant(token)
            stack.append(_Frame(token, constant, skipping))
            skipping = skipping or constant is False
            continue
        if token.kind == DIRECTIVE and token.text in _MIDDLE | {"endif"}:
            if not stack:
                sink.emit(
                    "I107",
                    source.span(token.offset),
                    f"#{token.text} without a #if before it",
                    "remove it, or add the #if it belongs to",
                )
                ok = False
                continue
            if token.text == "endif":
                named = _named_frame(source, token, stack)
                if named is not None:
                    # The #endif says which #if it closes: those opened
                    # after that one are the ones never closed.
                    for inner in stack[named + 1 :]:
                        _never_closed(source, sink, inner, token)
                        ok = False
                    del stack[named + 1 :]
                frame = stack.pop()
                skipping = frame.outer_skipping
                spans.append((frame.opening.offset, token.offset))
                continue
            frame = stack[-1]
            # #else / #elif: only a literal #if decides which branch is dead:
            # after #if 0 the next branch is read, after #if 1 none is.
            if frame.constant is None:
                skipping = frame.outer_skipping
            else:
                skipping = frame.outer_skipping or frame.constant
                if not frame.constant and token.text.startswith("elif"):
                    frame.constant = None  # an #elif we cannot evaluate
            continue
        if skipping:
            continue
        if token.kind == STRAY:
            what = "string" if token.text == '"' else "character"
            sink.emit(
                "I104",
                source.span(token.offset),
                f"this {what} literal is not closed on its line",
                f"close it with {token.text}",
            )
            ok = False
            continue
        if token.kind == PUNCT and token.text == FULLWIDTH_COMMA:
            sink.emit(
                "I308",
                source.span(token.offset),
                "a full-width comma (U+FF0C) read as ','",
                "write an ASCII comma",
            )
        out.append(token)
    for frame in stack:
        _never_closed(source, sink, frame, None)
        ok = False
    return out, ok, tuple(spans)


_ENDIF_COMMENT = re.compile(
    r"#\s*endif\b\s*(?://|/\*)[\s!*]*(?:defined\s*\(?\s*)?([A-Za-z_]\w*)"
)


def _endif_names(source: SourceText, endif: Token) -> str | None:
    """The macro an ``#endif``'s comment names (``#endif  // FOO_H``)."""
    line, _ = source.position(endif.offset)
    start = source.line_starts[line - 1]
    end = source.original.find("\n", start)
    text = source.original[start : end if end >= 0 else len(source.original)]
    match = _ENDIF_COMMENT.match(text.lstrip())
    return match.group(1) if match else None


def _tests(frame: _Frame, name: str) -> bool:
    return any(arg.text == name for arg in frame.opening.args)


def _named_frame(source: SourceText, endif: Token, stack: list[_Frame]) -> int | None:
    """Note [Which #if an #endif closes]: the index in ``stack`` of the
    open conditional that ``endif``'s comment names, when that is not the
    innermost one (which does not test the name); None otherwise."""
    name = _endif_names(source, endif)
    if name is None or _tests(stack[-1], name):
        return None
    for index in range(len(stack) - 2, -1, -1):
        if _tests(stack[index], name):
            return index
    return None


def _never_closed(
    source: SourceText, sink: Sink, frame: _Frame, endif: Token | None
) -> None:
    opened = frame.opening
    if endif is None:
        where = ""
    else:
        where = (
            f" before the #endif at line {source.position(endif.offset)[0]}, "
            f"whose comment names {_endif_names(source, endif)}, which an outer "
            "#if tests"
        )
    sink.emit(
        "I107",
        source.span(opened.offset),
        f"#{opened.text} is never closed by #endif{where}",
        "add the #endif" + (" of this one" if endif is not None else ""),
    )
