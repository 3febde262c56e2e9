"""Find the REG_OP declarations of a header, and check its brackets.

Everything outside a declaration is C++ the importer does not read, except
its brackets: ``(``, ``[`` and ``{`` must close in order, and a namespace's
``{`` must be closed by its ``}``. A bracket that never closes is I105 (I106
for a namespace), and so is a closing one without an opening one; then the
header is not imported, since what follows the defect cannot be trusted to
be what its author meant.

A declaration is ``REG_OP(Name)`` followed by a chain of ``.ELEMENT(args)``
calls, closed by ``.OP_END_FACTORY_REG(Name)`` and an optional ``;``.
Comments and directives inside the chain are skipped. Each element's
arguments are split as the preprocessor splits a macro's arguments: at
commas outside parentheses (braces do not protect a comma), so
``TensorType{DT_A, DT_B}`` arrives as two arguments and ``Element.tail``
joins them back. A chain that does not parse is I201: the op is not
imported, and reading goes on after its OP_END_FACTORY_REG (or at the next
REG_OP).

Note [Where a bracket is missing]: a bracket never closed is reported where
its closing one is missing, as near as the text tells. Inside a conditional
(the include guard's ``#ifndef FOO_H`` ... ``#endif`` around a namespace),
the closing bracket belongs before that conditional's ``#endif``, so the
diagnostic stands at the ``#endif`` and names the line of the opening
bracket; otherwise it stands at the opening bracket, since the end of the
header says nothing about where the author meant to close it.

The ``/** */`` comment just before a REG_OP is its doc. Any token in
between, other than a conditional directive (``preprocess`` removed those),
another doc comment or a directive other than ``#include``/``#define``,
means the comment documents something else (a licence, the file).
"""

from __future__ import annotations

from dataclasses import dataclass

from gen_ops.base.diagnostics import Sink
from gen_ops.importer.lexer import SourceText
from gen_ops.importer.syntax import (
    DIRECTIVE,
    DOC,
    FULLWIDTH_COMMA,
    ID,
    PUNCT,
    STR,
    Broken,
    Declaration,
    Element,
    Token,
)

REG_OP = "REG_OP"
END = "OP_END_FACTORY_REG"
_CLOSING = {")": "(", "]": "[", "}": "{"}
_DOC_BREAKERS = frozenset({"include", "define", "undef", "pragma"})


@dataclass(frozen=True)
class _Open:
    token: Token
    namespace: str | None  # the namespace's name ("" when anonymous)
    linkage: bool = False  # extern "C++" { ... }: namespace scope too

    @property
    def namespace_scope(self) -> bool:
        """Whether a namespace (so REG_OP) may be declared inside it."""
        return self.namespace is not None or self.linkage


class _Stop(Exception):
    """The header ended inside a declaration's parentheses (reported)."""


class _Parser:
    def __init__(
        self,
        source: SourceText,
        tokens: list[Token],
        sink: Sink,
        complete: bool,
        conditionals: tuple[tuple[int, int], ...] = (),
    ) -> None:
        self.complete = complete
        self.conditionals = conditionals
        self.source = source
        self.tokens = tokens
        self.sink = sink
        self.pos = 0
        self.ok = True
        self.found: list[Declaration | Broken] = []

    # -- helpers -------------------------------------------------------------

    def error(self, code: str, offset: int, message: str, hint: str) -> None:
        self.sink.emit(code, self.source.span(offset), message, hint)

    def _next(self) -> int:
        """The index of the next token of a chain: comments and directives
        skipped (the position does not move)."""
        index = self.pos
        while index < len(self.tokens) and self.tokens[index].kind in (
            DOC,
            DIRECTIVE,
        ):
            index += 1
        return index

    def peek(self) -> Token | None:
        index = self._next()
        return self.tokens[index] if index < len(self.tokens) else None

    def take(self) -> Token | None:
        index = self._next()
        if index >= len(self.tokens):
            self.pos = index
            return None
        self.pos = index + 1
        return self.tokens[index]

    def semicolon(self) -> None:
        """Step over the ``;`` that may end a declaration. Unlike ``peek``,
        nothing is skipped: a doc comment after the declaration is the next
        one's."""
        if self.pos < len(self.tokens) and self.tokens[self.pos].is_punct(";"):
            self.pos += 1

    # -- the file --------------------------------------------------------------

    def run(self) -> None:
        stack: list[_Open] = []
        pending_doc: Token | None = None
        namespace: list[Token] | None = None  # `namespace a::b` seen, no { yet
        # The last two tokens read (``extern "C++" {`` opens a linkage
        # block, where REG_OP may stand).
        before: Token | None = None
        previous: Token | None = None
        tokens = self.tokens
        while self.pos < len(tokens):
            token = tokens[self.pos]
            if token.kind == DOC:
                pending_doc = token
                self.pos += 1
                continue
            if token.kind == DIRECTIVE:
                if token.text in _DOC_BREAKERS:
                    pending_doc = None
                self.pos += 1
                continue
            if (
                token.kind == ID
                and token.text == REG_OP
                and self.pos + 1 < len(tokens)
                and tokens[self.pos + 1].is_punct("(")
            ):
                self.at_namespace_scope(stack, token)
                try:
                    self.declaration(pending_doc)
                except _Stop:
                    self.ok = False
                    return
                pending_doc = None
                continue
            pending_doc = None
            self.pos += 1
            earlier, last = before, previous  # the two tokens before this one
            before, previous = previous, token
            if token.kind == ID and token.text == "namespace":
                namespace = []
                continue
            if namespace is not None:
                if token.kind == ID or token.is_punct("::"):
                    namespace.append(token)  # the namespace's name
                    continue
                if token.is_punct("{"):
                    stack.append(_Open(token, "".join(t.text for t in namespace)))
                    namespace = None
                    continue
                namespace = None  # `using namespace x;`, an alias: not a block
            if token.kind != PUNCT:
                continue
            if token.text in ("(", "[", "{"):
                linkage = (
                    token.text == "{"
                    and last is not None
                    and last.kind == STR
                    and earlier is not None
                    and earlier.text == "extern"
                )
                stack.append(_Open(token, None, linkage))
            elif token.text in _CLOSING:
                self.close(stack, token)
        if self.complete:
            for opened in stack:
                self.unclosed(opened)

    def at_namespace_scope(self, stack: list[_Open], reg_op: Token) -> None:
        """REG_OP opens a namespace, which C++ allows only at namespace
        scope: a bracket still open there (a struct's '{', a '(') was never
        closed. Reporting it here points at the defect, where matching
        brackets to the end would blame the namespace instead."""
        inner = len(stack)
        while inner and not stack[inner - 1].namespace_scope:
            inner -= 1
        for opened in stack[inner:]:
            self.unclosed(opened, reg_op)
        del stack[inner:]

    def close(self, stack: list[_Open], token: Token) -> None:
        want = _CLOSING[token.text]
        depth = next(
            (i for i in range(len(stack) - 1, -1, -1) if stack[i].token.text == want),
            None,
        )
        if depth is None:
            self.error(
                "I105",
                token.offset,
                f"'{token.text}' closes nothing: no '{want}' is open here",
                f"remove it, or add the '{want}' it closes",
            )
            self.ok = False
            return
        for opened in stack[depth + 1 :]:
            self.unclosed(opened, token)
        del stack[depth:]

    def unclosed(self, opened: _Open, before: Token | None = None) -> None:
        closer = {"(": ")", "[": "]", "{": "}"}[opened.token.text]
        at = opened.token.offset
        line = self.source.position(at)[0]
        if before is not None:
            where = (
                f"before the '{before.text}' at line "
                f"{self.source.position(before.offset)[0]}"
            )
        else:
            where = "by the end of the header"
            endif = self.closing_endif(at)
            if endif is not None:
                # Note [Where a bracket is missing]
                where = (
                    f"before the #endif here, which closes the #if at line "
                    f"{self.source.position(endif[0])[0]} around the '{opened.token.text}' of "
                    f"line {line}"
                )
                at = endif[1]
        if opened.namespace is not None:
            label = (
                f"namespace {opened.namespace}"
                if opened.namespace
                else ("the anonymous namespace")
            )
            self.error(
                "I106",
                at,
                f"{label} is never closed: its '{{' has no '}}' {where}",
                f"add '}}  // namespace {opened.namespace}' where the namespace ends",
            )
        else:
            self.error(
                "I105",
                at,
                f"this '{opened.token.text}' is never closed {where}",
                f"add the '{closer}' that closes it",
            )
        self.ok = False

    def closing_endif(self, offset: int) -> tuple[int, int] | None:
        """The innermost conditional around ``offset``: (its #if's offset,
        its #endif's offset), or None."""
        around = [(a, b) for a, b in self.conditionals if a < offset < b]
        return max(around) if around else None

    # -- one declaration -------------------------------------------------------

    def declaration(self, doc: Token | None) -> None:
        start = self.tokens[self.pos]
        self.pos += 2  # REG_OP (
        name_token = self.take()
        closing = self.take()
        if (
            name_token is None
            or name_token.kind != ID
            or closing is None
            or not closing.is_punct(")")
        ):
            self.broken(
                None,
                start.offset,
                "REG_OP( must be followed by the op's name and ')'",
            )
            return
        name = name_token.text
        elements: list[Element] = []
        while True:
            token = self.peek()
            if token is None or (token.kind == ID and token.text == REG_OP):
                self.error(
                    "I201",
                    name_token.offset,
                    f"{name}: REG_OP({name}) is never closed by .{END}({name})",
                    f"end the chain with .{END}({name});",
                )
                self.found.append(Broken(name, name_token.offset))
                return
            if not token.is_punct("."):
                self.broken(
                    name,
                    token.offset,
                    f"{name}: '{token.text}' where REG_OP({name}) expects the "
                    "next .ELEMENT(...) of its chain",
                )
                return
            self.take()  # the "."
            kind_token = self.take()
            paren = self.peek()
            if (
                kind_token is None
                or kind_token.kind != ID
                or paren is None
                or not (paren.is_punct("("))
            ):
                self.broken(
                    name,
                    token.offset,
                    f"{name}: '.' must be followed by an element and its "
                    "arguments, as .INPUT(x, ...)",
                )
                return
            self.take()  # the "("
            args = self.arguments(paren)
            if kind_token.text == END:
                end_name = args[0] if len(args) == 1 else ()
                if len(end_name) != 1 or end_name[0].text != name:
                    said = " ".join(t.text for a in args for t in a)
                    self.error(
                        "I201",
                        kind_token.offset,
                        f"{name}: REG_OP({name}) is closed by {END}({said}); "
                        "GE's static_assert requires the same name",
                        f"write .{END}({name})",
                    )
                    self.found.append(Broken(name, name_token.offset))
                else:
                    self.found.append(
                        Declaration(name, name_token.offset, tuple(elements), doc)
                    )
                self.semicolon()
                return
            elements.append(
                Element(kind_token.text, kind_token.offset, paren.offset, args)
            )

    def arguments(self, paren: Token) -> tuple[tuple[Token, ...], ...]:
        """The arguments inside ``(`` ... ``)``, split at top-level commas;
        the position is left after the ``)``. (The loop is written out: it
        reads most tokens of a header.)"""
        args: list[tuple[Token, ...]] = []
        current: list[Token] = []
        depth = 0
        tokens = self.tokens
        pos = self.pos
        while pos < len(tokens):
            token = tokens[pos]
            pos += 1
            kind = token.kind
            if kind == DOC or kind == DIRECTIVE:
                continue
            if kind == PUNCT:
                text = token.text
                if text == "(":
                    depth += 1
                elif text == ")":
                    if depth == 0:
                        self.pos = pos
                        if current or args:
                            args.append(tuple(current))
                        return tuple(args)
                    depth -= 1
                elif depth == 0 and (text == "," or text == FULLWIDTH_COMMA):
                    args.append(tuple(current))
                    current = []
                    continue
            current.append(token)
        self.pos = pos
        self.error(
            "I105",
            paren.offset,
            "this '(' is never closed by the end of the header",
            "add the ')' that closes it",
        )
        raise _Stop

    def broken(
        self,
        name: str | None,
        offset: int,
        message: str,
    ) -> None:
        """Report I201 and skip to the end of this declaration: after its
        OP_END_FACTORY_REG(...) or a ``;``, or before the next REG_OP or a
        brace that ends the chain."""
        label = f"REG_OP({name})" if name else "REG_OP"
        self.error("I201", offset, message, f"write {label} in GE's grammar")
        self.found.append(Broken(name, offset))
        depth = 0
        while self.pos < len(self.tokens):
            token = self.tokens[self.pos]
            if token.kind == PUNCT and depth == 0 and token.text in "{};":
                self.pos += token.text == ";"
                return
            if token.kind == DOC and depth == 0:
                return  # the next declaration's doc
            if token.kind == PUNCT and token.text == "(":
                depth += 1
            elif token.kind == PUNCT and token.text == ")":
                depth = max(depth - 1, 0)
            elif token.kind == ID and depth == 0:
                if token.text == REG_OP:
                    return
                if token.text == END:
                    self.pos += 1
                    paren = self.peek()
                    if paren is not None and paren.is_punct("("):
                        self.take()
                        self.arguments(paren)
                    self.semicolon()
                    return
            self.pos += 1


def parse(
    source: SourceText,
    tokens: list[Token],
    sink: Sink,
    complete: bool = True,
    conditionals: tuple[tuple[int, int], ...] = (),
) -> tuple[list[Declaration | Broken], bool]:
    """The declarations of a header in source order, and whether its
    brackets are whole (False after an I105 or I106). When the tokens stop
    early (``complete`` False: an unterminated comment), brackets still open
    at their end are not reported. ``conditionals`` are the (#if, #endif)
    offsets of ``preprocess.active_tokens``: a bracket opened inside one and
    never closed is reported at its #endif (Note [Where a bracket is
    missing])."""
    parser = _Parser(source, tokens, sink, complete, conditionals)
    parser.run()
    return parser.found, parser.ok
