"""A fast yes for specs the JSON Schema accepts (Note [Fast schema path]).

Note [Fast schema path]: jsonschema walks the schema anew for every value
and builds a validator object per nesting level; for thousands of specs that
is most of the time spent loading them. Almost every spec is valid, so
``schema_check`` first asks a checker compiled once from the same (inlined)
schema into plain closures. It answers only "surely valid": a keyword it
does not know, an ``enum`` or ``uniqueItems`` over values other than
strings, any doubt, and it says no, and jsonschema then runs as before and
reports every problem. So the fast path can skip work but never accept a
spec jsonschema refuses; tests/generator/test_fastschema.py checks both
agree on every golden and negative spec."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Check = Callable[[Any], bool]

# Keywords that say nothing about validity.
_ANNOTATIONS = frozenset(
    {"description", "title", "$schema", "$id", "default", "examples", "$comment"}
)


def _never(_value: Any) -> bool:
    return False


def _always(_value: Any) -> bool:
    return True


def _type_check(name: str) -> Check | None:
    if name == "object":
        return lambda v: type(v) is dict
    if name == "array":
        return lambda v: type(v) is list
    if name == "string":
        return lambda v: type(v) is str
    if name == "boolean":
        return lambda v: type(v) is bool
    if name == "integer":
        return lambda v: type(v) is int
    if name == "number":
        return lambda v: type(v) in (int, float)
    return None


def compile_schema(schema: Any) -> Check:
    """A checker of ``schema`` (``$ref``s already inlined): True only for a
    value the schema surely accepts."""
    if schema is True:
        return _always
    if not isinstance(schema, dict):
        return _never
    checks: list[Check] = []
    for key, arg in schema.items():
        if key in _ANNOTATIONS or key.startswith("x-"):
            continue
        check = _keyword(key, arg, schema)
        if check is None:
            return _never  # a keyword this checker does not know: ask jsonschema
        checks.append(check)
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    return _every(checks)


def _every(checks: list[Check]) -> Check:
    """True when each of ``checks`` is. (Loops, not ``all`` over a
    generator, in every check: they run about a million times for 5,000
    specs, and a generator per call costs a third more.)"""

    def check(v: Any) -> bool:
        for c in checks:
            if not c(v):
                return False
        return True

    return check


def _keyword(key: str, arg: Any, schema: dict[str, Any]) -> Check | None:
    builder = _KEYWORDS.get(key)
    return None if builder is None else builder(arg, schema)


def _type(arg: Any, _schema: dict[str, Any]) -> Check | None:
    return _type_check(arg) if isinstance(arg, str) else None


def _properties(arg: Any, _schema: dict[str, Any]) -> Check | None:
    subs = {name: compile_schema(sub) for name, sub in arg.items()}

    def check(v: Any) -> bool:
        if type(v) is not dict:
            return True
        for k, item in v.items():
            sub = subs.get(k)
            if sub is not None and not sub(item):
                return False
        return True

    return check


def _additional(arg: Any, schema: dict[str, Any]) -> Check | None:
    if schema.get("patternProperties"):
        return None
    known = frozenset(schema.get("properties", {}))
    if arg is False:
        return lambda v: type(v) is not dict or known.issuperset(v)
    sub = compile_schema(arg)

    def check(v: Any) -> bool:
        if type(v) is not dict:
            return True
        for k, item in v.items():
            if k not in known and not sub(item):
                return False
        return True

    return check


def _required(arg: Any, _schema: dict[str, Any]) -> Check | None:
    names = frozenset(arg)
    return lambda v: type(v) is not dict or names <= v.keys()


def _pattern(arg: Any, _schema: dict[str, Any]) -> Check | None:
    # schema_check reads patterns whole (ECMA-262's $): the same here.
    regex = re.compile(arg)
    return lambda v: type(v) is not str or regex.fullmatch(v) is not None


def _items(arg: Any, _schema: dict[str, Any]) -> Check | None:
    if not isinstance(arg, dict):
        return None
    sub = compile_schema(arg)

    def check(v: Any) -> bool:
        if type(v) is not list:
            return True
        for item in v:
            if not sub(item):
                return False
        return True

    return check


def _any_of(arg: Any, _schema: dict[str, Any]) -> Check | None:
    subs = [compile_schema(s) for s in arg]

    def check(v: Any) -> bool:
        for s in subs:
            if s(v):
                return True
        return False

    return check


def _enum(arg: Any, _schema: dict[str, Any]) -> Check | None:
    if not all(type(a) is str for a in arg):
        return None  # jsonschema's equality (1 is not true) is not Python's
    allowed = frozenset(arg)
    return lambda v: type(v) is str and v in allowed


def _min_items(arg: Any, _schema: dict[str, Any]) -> Check | None:
    return lambda v: type(v) is not list or len(v) >= arg


def _max_items(arg: Any, _schema: dict[str, Any]) -> Check | None:
    return lambda v: type(v) is not list or len(v) <= arg


def _min_properties(arg: Any, _schema: dict[str, Any]) -> Check | None:
    return lambda v: type(v) is not dict or len(v) >= arg


def _max_properties(arg: Any, _schema: dict[str, Any]) -> Check | None:
    return lambda v: type(v) is not dict or len(v) <= arg


def _unique(arg: Any, _schema: dict[str, Any]) -> Check | None:
    if arg is not True:
        return None
    return lambda v: type(v) is not list or (
        all(type(i) is str for i in v) and len(set(v)) == len(v)
    )


def _minimum(arg: Any, _schema: dict[str, Any]) -> Check | None:
    return lambda v: type(v) not in (int, float) or v >= arg


def _property_names(arg: Any, _schema: dict[str, Any]) -> Check | None:
    sub = compile_schema(arg)
    return lambda v: type(v) is not dict or all(sub(k) for k in v)


_KEYWORDS: dict[str, Callable[[Any, dict[str, Any]], Check | None]] = {
    "type": _type,
    "properties": _properties,
    "additionalProperties": _additional,
    "required": _required,
    "pattern": _pattern,
    "items": _items,
    "anyOf": _any_of,
    "enum": _enum,
    "minItems": _min_items,
    "maxItems": _max_items,
    "minProperties": _min_properties,
    "maxProperties": _max_properties,
    "uniqueItems": _unique,
    "minimum": _minimum,
    "propertyNames": _property_names,
}
