"""C++ literals and small constant expressions, read as values.

Only what attr defaults are written with: integer literals (decimal, hex,
octal, binary, digit separators, ``u``/``l`` suffixes), floating literals
(the ``f``/``l`` suffix dropped, the rest of the spelling kept), adjacent
string literals with every C escape, and integer expressions of ``+``,
``-``, ``*`` and parentheses (gen-ops writes int64's minimum as
``(-9223372036854775807 - 1)``), and constant expressions of numeric
literals with ``/`` too, evaluated as C++ does (``FloatExpression``: Float
defaults such as ``1.f / 4``). Anything else raises ``NotALiteral``.
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from gen_ops.importer.syntax import ID, NUM, PUNCT, STR, Token

_INT = re.compile(
    r"(?P<body>0[xX][0-9a-fA-F']+|0[bB][01']+|0[0-7']*|[1-9][0-9']*)"
    r"(?P<suffix>[uU]?(?:ll|LL|l|L|z|Z)?[uU]?)"
)
_FLOAT = re.compile(
    r"(?P<body>(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)"
    r"(?P<suffix>[fFlL]?)"
)
_ESCAPES = {
    "n": 10,
    "t": 9,
    "r": 13,
    "a": 7,
    "b": 8,
    "f": 12,
    "v": 11,
    "\\": 92,
    "'": 39,
    '"': 34,
    "?": 63,
}


class NotALiteral(ValueError):
    """The tokens are not a literal of the kind asked for; the message says
    why."""


def int_literal(text: str) -> int:
    match = _INT.fullmatch(text)
    if not match:
        raise NotALiteral(f"{text} is not an integer literal")
    body = match.group("body").replace("'", "")
    if body[:2] in ("0x", "0X"):
        return int(body[2:], 16)
    if body[:2] in ("0b", "0B"):
        return int(body[2:], 2)
    if len(body) > 1 and body[0] == "0":
        return int(body[1:], 8)
    return int(body)


def float_spelling(text: str) -> str:
    """``1e-5f`` -> ``1e-5``: the literal without its suffix."""
    match = _FLOAT.fullmatch(text)
    if match:
        return match.group("body")
    if _INT.fullmatch(text) and text.isdigit():
        return text  # an integer written for a float: 1 stays 1
    raise NotALiteral(f"{text} is not a decimal floating literal")


def string_literal(tokens: Sequence[Token]) -> str:
    """Adjacent string literals, concatenated and decoded as UTF-8."""
    if not tokens or any(t.kind != STR for t in tokens):
        raise NotALiteral("expected a string literal")
    data = bytearray()
    for token in tokens:
        body = token.text[token.text.index('"') + 1 : -1]
        data += _unescape(body)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotALiteral(f"the string is not UTF-8: {exc.reason}") from None


def _unescape(body: str) -> bytes:
    out = bytearray()
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out += ch.encode("utf-8")
            i += 1
            continue
        i += 1
        ch = body[i]
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
            i += 1
        elif ch in "01234567":
            digits = re.match(r"[0-7]{1,3}", body[i:])
            assert digits is not None
            value = int(digits.group(), 8)
            if value > 0xFF:
                raise NotALiteral(f"octal escape \\{digits.group()} is out of range")
            out.append(value)
            i += len(digits.group())
        elif ch == "x":
            digits = re.match(r"[0-9a-fA-F]+", body[i + 1 :])
            if not digits or int(digits.group(), 16) > 0xFF:
                raise NotALiteral("a \\x escape needs one byte of hex digits")
            out.append(int(digits.group(), 16))
            i += 1 + len(digits.group())
        elif ch in "uU":
            size = 4 if ch == "u" else 8
            code = body[i + 1 : i + 1 + size]
            if not re.fullmatch(f"[0-9a-fA-F]{{{size}}}", code):
                raise NotALiteral(f"\\{ch} needs {size} hex digits")
            out += chr(int(code, 16)).encode("utf-8", "surrogatepass")
            i += 1 + size
        else:
            raise NotALiteral(f"unknown escape \\{ch}")
    return bytes(out)


# Note [Bounded expressions]: a header's default is evaluated by a
# recursive-descent parser, one Python frame or three per parenthesis. Signs
# are read in a loop (``- - - 1`` is as deep as ``1``), and parentheses may
# nest MAX_NESTING deep: deeper, the default is not a literal (I305, at the
# default), not a RecursionError. GE's headers nest three at most.
MAX_NESTING = 100

_T = TypeVar("_T")


class _Parsing(Protocol):
    tokens: list[Token]
    pos: int
    depth: int

    def _peek(self, text: str) -> bool: ...


class TooDeep(NotALiteral):
    """An expression nested deeper than MAX_NESTING."""


def _signs(parser: _Parsing) -> bool:
    """Reads the unary ``-`` and ``+`` in front of an operand; True when
    they negate it (Note [Bounded expressions])."""
    negative = False
    while parser._peek("-") or parser._peek("+"):
        negative ^= parser.tokens[parser.pos].text == "-"
        parser.pos += 1
    return negative


def _nested(parser: _Parsing, inner: Callable[[], _T]) -> _T:
    """``inner()`` one parenthesis deeper (Note [Bounded expressions])."""
    if parser.depth >= MAX_NESTING:
        raise TooDeep(f"its parentheses nest more than {MAX_NESTING} deep")
    parser.depth += 1
    try:
        return inner()
    finally:
        parser.depth -= 1


class IntExpression:
    """``+``, ``-``, ``*`` and parentheses over integer literals and the
    names ``resolve`` knows (DataType enumerators)."""

    def __init__(
        self, tokens: Sequence[Token], resolve: Callable[[str], int | None]
    ) -> None:
        self.tokens = list(tokens)
        self.pos = 0
        self.resolve = resolve
        self.depth = 0
        self.names: list[str] = []  # the enumerators it used, in order

    def value(self) -> int:
        if not self.tokens:
            raise NotALiteral("no value")
        result = self._sum()
        if self.pos != len(self.tokens):
            raise NotALiteral(f"unexpected '{self.tokens[self.pos].text}'")
        return result

    def _peek(self, text: str) -> bool:
        return self.pos < len(self.tokens) and self.tokens[self.pos].is_punct(text)

    def _sum(self) -> int:
        total = self._product()
        while self._peek("+") or self._peek("-"):
            sign = self.tokens[self.pos].text
            self.pos += 1
            right = self._product()
            total = total + right if sign == "+" else total - right
        return total

    def _product(self) -> int:
        total = self._unary()
        while self._peek("*"):
            self.pos += 1
            total *= self._unary()
        return total

    def _unary(self) -> int:
        negative = _signs(self)
        if self._peek("("):
            self.pos += 1
            inner = _nested(self, self._sum)
            if not self._peek(")"):
                raise NotALiteral("a '(' is not closed")
            self.pos += 1
            return -inner if negative else inner
        return -self._atom() if negative else self._atom()

    def _atom(self) -> int:
        if self.pos >= len(self.tokens):
            raise NotALiteral("the expression ends early")
        token = self.tokens[self.pos]
        self.pos += 1
        if token.kind == NUM:
            return int_literal(token.text)
        if token.kind == ID:
            name = token.text
            if (
                name == "ge"
                and self._peek("::")
                and self.pos + 1 < len(self.tokens)
                and self.tokens[self.pos + 1].kind == ID
            ):
                name = self.tokens[self.pos + 1].text
                self.pos += 2
            value = self.resolve(name)
            if value is not None:
                self.names.append(name)
                return value
            raise NotALiteral(f"{name} is not a constant the importer knows")
        if token.kind == PUNCT:
            raise NotALiteral(f"unexpected '{token.text}'")
        raise NotALiteral(f"{token.text} is not an integer")


# The C++ type of a value of a constant expression: int, float (an ``f``
# suffix), double (no suffix; ``l``, long double, is read as double).
_INT_T, _FLOAT_T, _DOUBLE_T = "int", "float", "double"
_INT64 = range(-(2**63), 2**63)


def _to_float32(value: float) -> float:
    """``value`` rounded to the nearest float32, as C++ stores a float."""
    try:
        rounded = float(struct.unpack("<f", struct.pack("<f", value))[0])
    except OverflowError:
        rounded = math.inf
    if math.isinf(rounded):
        raise NotALiteral(f"{value!r} is out of float's range")
    return rounded


class FloatExpression:
    """A constant expression of numeric literals, ``+ - * /``, unary ``-``
    and ``+`` and parentheses, evaluated as C++ evaluates it: each operation
    in the type the usual arithmetic conversions give (int with int is int,
    and ``/`` truncates toward zero; with a float, float; with a double,
    double). A float operation is computed in double and rounded to float,
    which gives the float result exactly (double holds more than twice
    float's digits, so the one rounding is the correctly rounded one).
    ``value()`` is the result as a Python int or float, exactly."""

    def __init__(self, tokens: Sequence[Token]) -> None:
        self.tokens = list(tokens)
        self.pos = 0
        self.depth = 0

    def value(self) -> int | float:
        if not self.tokens:
            raise NotALiteral("no value")
        _, result = self._sum()
        if self.pos != len(self.tokens):
            raise NotALiteral(f"unexpected '{self.tokens[self.pos].text}'")
        return result

    def _peek(self, text: str) -> bool:
        return self.pos < len(self.tokens) and self.tokens[self.pos].is_punct(text)

    def _sum(self) -> tuple[str, int | float]:
        left = self._product()
        while self._peek("+") or self._peek("-"):
            sign = self.tokens[self.pos].text
            self.pos += 1
            left = _apply(sign, left, self._product())
        return left

    def _product(self) -> tuple[str, int | float]:
        left = self._unary()
        while self._peek("*") or self._peek("/"):
            sign = self.tokens[self.pos].text
            self.pos += 1
            left = _apply(sign, left, self._unary())
        return left

    def _unary(self) -> tuple[str, int | float]:
        negative = _signs(self)
        if self._peek("("):
            self.pos += 1
            kind, inner = _nested(self, self._sum)
            if not self._peek(")"):
                raise NotALiteral("a '(' is not closed")
            self.pos += 1
        else:
            kind, inner = self._atom()
        return kind, -inner if negative else inner

    def _atom(self) -> tuple[str, int | float]:
        if self.pos >= len(self.tokens):
            raise NotALiteral("the expression ends early")
        token = self.tokens[self.pos]
        self.pos += 1
        if token.kind != NUM:
            raise NotALiteral(f"{token.text} is not a number")
        match = _FLOAT.fullmatch(token.text)
        if match:
            number = float(match.group("body"))
            if match.group("suffix") in ("f", "F"):
                return _FLOAT_T, _to_float32(number)
            return _DOUBLE_T, number
        return _INT_T, int_literal(token.text)


def _apply(
    sign: str, left: tuple[str, int | float], right: tuple[str, int | float]
) -> tuple[str, int | float]:
    kinds = {left[0], right[0]}
    kind = (
        _DOUBLE_T if _DOUBLE_T in kinds else _FLOAT_T if _FLOAT_T in kinds else _INT_T
    )
    a, b = left[1], right[1]
    if sign == "/" and b == 0:
        raise NotALiteral("it divides by zero")
    if kind == _INT_T:
        assert isinstance(a, int) and isinstance(b, int)
        if sign == "/":
            quotient = abs(a) // abs(b)
            result: int | float = quotient if (a < 0) == (b < 0) else -quotient
        else:
            result = a + b if sign == "+" else a - b if sign == "-" else a * b
        if result not in _INT64:
            raise NotALiteral("an integer overflows int64")
        return kind, result
    x, y = float(a), float(b)
    exact = (
        x / y
        if sign == "/"
        else x + y if sign == "+" else x - y if sign == "-" else x * y
    )
    if kind == _FLOAT_T:
        return kind, _to_float32(exact)
    if math.isinf(exact):
        raise NotALiteral("a value overflows double")
    return kind, exact
