"""The tiny call syntax of spec rules: ``len(x)``, ``attr(n)``, ``broadcast(a, b)``.

Parsing only; what a rule may name is decided in ``semantics.rules``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

# Matched against the whole rule (fullmatch): whitespace around a rule or a
# name is allowed, nothing else.
_CALL = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)\s*", re.DOTALL)
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Call:
    func: str
    args: tuple[str, ...]


class RuleSyntaxError(ValueError):
    pass


def parse_call(text: str, allowed: Mapping[str, tuple[int, int | None]]) -> Call:
    """Parse ``func(a, b)``; ``allowed`` maps func -> (min args, max args)."""
    match = _CALL.fullmatch(text)
    if not match:
        raise RuleSyntaxError(
            f"{text!r} is not a rule; expected one of "
            + ", ".join(f"{f}(...)" for f in allowed)
        )
    func, body = match.group(1), match.group(2)
    if func not in allowed:
        raise RuleSyntaxError(
            f"unknown rule {func}(...); expected one of "
            + ", ".join(f"{f}(...)" for f in allowed)
        )
    args = tuple(part.strip() for part in body.split(",")) if body.strip() else ()
    low, high = allowed[func]
    if len(args) < low or (high is not None and len(args) > high):
        want = str(low) if high == low else f"{low} or more"
        raise RuleSyntaxError(f"{func}(...) takes {want} name(s), got {len(args)}")
    for arg in args:
        if not _NAME.fullmatch(arg):
            raise RuleSyntaxError(f"{arg!r} in {func}(...) is not a name")
    return Call(func, args)
