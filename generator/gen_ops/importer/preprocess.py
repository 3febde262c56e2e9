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

In the code it keeps, a stray quote is I104, and a full-width comma is read
as a comma (I308): the macros only stringify their arguments, so GE never
notices one.
"""

from __future__ import annotations

from dataclasses import dataclass

from gen_ops.diagnostics import Sink
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
) -> tuple[list[Token], bool]:
    """The tokens outside skipped branches, without conditional directives;
    and whether the conditionals nest (False after an I107)."""
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
            frame = stack[-1]
            if token.text == "endif":
                stack.pop()
                skipping = frame.outer_skipping
                continue
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
        sink.emit(
            "I107",
            source.span(frame.opening.offset),
            f"#{frame.opening.text} is never closed by #endif",
            "add the #endif",
        )
        ok = False
    return out, ok
