"""Structural validation of a loaded spec against the packaged JSON Schema.

jsonschema finds every violation; this module turns each into a diagnostic
that points at the offending key or value and says how to fix it. Hints come
from the schema itself (``x-hint``, ``x-expect``), so the rule and its advice
live in one place.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from gen_ops.base.diagnostics import Sink, suggest
from gen_ops.base.resources import schema_text
from gen_ops.spec.fastschema import Check, compile_schema
from gen_ops.spec.source import LoadedSpec, YamlPath

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError


def _inline_refs(node: Any, defs: dict[str, Any]) -> Any:
    """The schema with every local ``$ref`` replaced by its definition: the
    same rules, but about three times faster to check (no reference lookups)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            merged = {k: v for k, v in node.items() if k != "$ref"}
            target = _inline_refs(defs[ref.removeprefix("#/$defs/")], defs)
            return {**target, **merged}
        return {k: _inline_refs(v, defs) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline_refs(v, defs) for v in node]
    return node


def _whole_value_pattern(
    validator: Any, pattern: str, instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    """``pattern`` as ECMA-262 reads it, where ``$`` is the end of the text:
    jsonschema uses ``re.search``, whose ``$`` also matches before a final
    newline, so ``"AddCustom\\n"`` would pass ``^[A-Z][A-Za-z0-9_]*$``. Every
    pattern of the schema is anchored, so a full match is the same rule."""
    from jsonschema.exceptions import ValidationError

    if isinstance(instance, str) and re.fullmatch(pattern, instance) is None:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


@lru_cache(maxsize=1)
def _schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(schema_text())
    return schema


def pattern(*where: str) -> str:
    """A pattern of the schema, by its place: ``pattern("properties", "op")``,
    ``pattern("$defs", "identifier")``; for checks outside the schema
    (``gen-ops new``), which then match it with ``re.fullmatch``."""
    node: Any = _schema()
    for key in where:
        node = node[key]
    return str(node["pattern"])


@lru_cache(maxsize=1)
def _inlined() -> dict[str, Any]:
    """The schema with its references inlined. (That the shipped schema is
    itself a valid Draft 2020-12 schema is a test's job, not every run's:
    tests/generator/test_fastschema.py.)"""
    schema = _schema()
    inlined: dict[str, Any] = _inline_refs(schema, schema.get("$defs", {}))
    inlined.pop("$defs", None)
    return inlined


@lru_cache(maxsize=1)
def _validator() -> Any:
    """jsonschema's validator, with ECMA-262 patterns: used only for a spec
    the fast path (``surely_valid``) does not pass, so a run of valid specs
    never imports jsonschema."""
    import jsonschema

    validators: Any = jsonschema.validators  # extend is untyped in its stubs
    extended = validators.extend(
        jsonschema.Draft202012Validator, {"pattern": _whole_value_pattern}
    )
    return extended(_inlined())


@lru_cache(maxsize=1)
def surely_valid() -> Check:
    """Note [Fast schema path] in fastschema."""
    return compile_schema(_inlined())


def describe_path(where: YamlPath) -> str:
    """``("inputs", 1, "dtype")`` -> ``inputs[1].dtype``; ``()`` -> ``the spec``."""
    text = ""
    for part in where:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += ("." if text else "") + part
    return text or "the spec"


def _kind(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, bytes):
        return "binary data"
    return type(value).__name__


_TYPE_WORDS = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "boolean": "true or false",
    "number": "a number",
}


def _split_rule(mapping: dict[str, Any], key: str) -> tuple[str, list[str]] | None:
    """``{shape: broadcast(a, b, c)}`` reads as ``shape: "broadcast(a"`` plus
    null keys ``b`` and ``c)``. Starting from such a key, return the rule the
    author meant and the keys it was split into."""
    keys = list(mapping)
    at = keys.index(key)
    if mapping.get(key) is not None or at == 0:
        return None
    opener = keys[at - 1]
    start = mapping[opener]
    if not (isinstance(start, str) and "(" in start and ")" not in start):
        return None
    parts: list[str] = []
    for follower in keys[at:]:
        if mapping[follower] is not None:
            return None
        parts.append(follower)
        if follower.endswith(")"):
            return ", ".join([start] + parts), parts
    return None


def check(spec: LoadedSpec, sink: Sink) -> bool:
    """Report every structural problem; True when there is none."""
    if surely_valid()(spec.data):
        return True
    ok = True
    for error in _validator().iter_errors(spec.data):
        ok = False
        _report(error, spec, sink)
    return ok


def _report(error: ValidationError, spec: LoadedSpec, sink: Sink) -> None:
    """One jsonschema error as diagnostics, by the keyword that failed."""
    handler = _HANDLERS.get(str(error.validator), _invalid_value)
    handler(error, spec, sink)


def _where(error: ValidationError) -> YamlPath:
    return tuple(error.absolute_path)


def _schema_of(error: ValidationError) -> dict[str, Any]:
    return error.schema if isinstance(error.schema, dict) else {}


# The stubs allow jsonschema's Unset placeholder for error.instance and
# error.validator_value; errors that come out of iter_errors always carry the
# instance and the keyword's value, so the handlers read them as Any.


def _unknown_keys(error: ValidationError, spec: LoadedSpec, sink: Sink) -> None:
    """E201 per unknown key, or E601 for a rule that flow style split."""
    where, positions = _where(error), spec.positions
    value: Any = error.instance
    allowed = sorted(_schema_of(error).get("properties", {}))
    split_keys: set[str] = set()
    for key in [k for k in value if k not in allowed]:
        if key in split_keys:
            continue
        split = _split_rule(value, key)
        if split:
            rule, keys = split
            split_keys.update(keys)
            op = spec.data.get("op") if isinstance(spec.data, dict) else None
            sink.emit(
                "E601",
                positions.key(where + (key,)),
                (f"{op}: " if isinstance(op, str) else "")
                + f"YAML read the rule {rule!r} in {describe_path(where)} as several "
                "entries: in {...} flow style a comma ends a value",
                f"quote the rule: '{rule}', or write the mapping in block style",
            )
            continue
        hint = suggest(key, allowed) or f"allowed keys: {', '.join(allowed)}"
        if value[key] is None and " " not in key:
            hint += (
                "; if this is the rest of a value, quote that value: in {...} "
                "a comma starts a new key"
            )
        sink.emit(
            "E201",
            positions.key(where + (key,)),
            f"unknown key '{key}' in {describe_path(where)}",
            hint,
        )


def _missing_keys(error: ValidationError, spec: LoadedSpec, sink: Sink) -> None:
    """E202 per missing key, at the mapping that lacks it."""
    value: Any = error.instance
    required: Any = error.validator_value
    for key in required:
        if key not in value:
            sink.emit(
                "E202",
                spec.positions.at(_where(error)),
                f"missing required key '{key}' in {describe_path(_where(error))}",
            )


def _bad_names(error: ValidationError, spec: LoadedSpec, sink: Sink) -> None:
    """E204 per key that is not a valid name (the bad name is in the
    sub-error; error.instance is the mapping)."""
    for sub in error.context or ():
        bad: Any = sub.instance
        sink.emit(
            "E204",
            spec.positions.key(_where(error) + (bad,)),
            f"'{bad}' is not a valid name in {describe_path(_where(error))}",
            sub.schema.get("x-hint") if isinstance(sub.schema, dict) else None,
        )


def _branches(error: ValidationError, spec: LoadedSpec, sink: Sink) -> None:
    """anyOf / oneOf: the branches' real errors, or E203 when the value fits
    no branch's type (a type error at the value itself only says "not this
    branch")."""
    subs = list(error.context or ())
    real = [s for s in subs if not _kind_mismatch(s)]
    if real:
        for sub in real:
            _report(sub, spec, sink)
        return
    value: Any = error.instance
    expect = _schema_of(error).get("x-expect", "another kind of value")
    sink.emit(
        "E203",
        spec.positions.at(_where(error)),
        f"{describe_path(_where(error))} must be {expect}, not {_kind(value)}",
    )


def _kind_mismatch(error: ValidationError) -> bool:
    """A branch's error that only says the value is not of its kind: a type
    error at the value itself, or a nested anyOf / oneOf of nothing else."""
    if error.relative_path:
        return False
    if error.validator == "type":
        return True
    return error.validator in ("anyOf", "oneOf") and all(
        _kind_mismatch(sub) for sub in error.context or ()
    )


def _wrong_type(error: ValidationError, spec: LoadedSpec, sink: Sink) -> None:
    """E203; check_schema holds "type" to a name or a list of names."""
    value: Any = error.instance
    expected: Any = error.validator_value
    names = [str(t) for t in expected] if isinstance(expected, list) else [expected]
    words = " or ".join(_TYPE_WORDS.get(name, name) for name in names)
    sink.emit(
        "E203",
        spec.positions.at(_where(error)),
        f"{describe_path(_where(error))} must be {words}, not {_kind(value)}",
        _schema_of(error).get("x-hint"),
    )


def _not_a_choice(error: ValidationError, spec: LoadedSpec, sink: Sink) -> None:
    """E204 for a value outside an enum, with the closest choice."""
    value: Any = error.instance
    allowed: Any = error.validator_value
    choices = [str(c) for c in allowed]
    sink.emit(
        "E204",
        spec.positions.at(_where(error)),
        f"{describe_path(_where(error))}: {value!r} is not one of {', '.join(choices)}",
        suggest(str(value), choices) if isinstance(value, str) else None,
    )


def _invalid_value(error: ValidationError, spec: LoadedSpec, sink: Sink) -> None:
    """E204 for every other keyword: a pattern, a repeated item, an empty
    mapping, a bound."""
    value: Any = error.instance
    rule_value: Any = error.validator_value
    keyword = error.validator
    where = _where(error)
    if keyword == "pattern":
        message = f"{describe_path(where)}: {value!r} is not valid"
    elif keyword == "uniqueItems":
        message = f"{describe_path(where)} lists an item twice"
    elif keyword == "minProperties" and rule_value == 1 and value == {}:
        message = f"{describe_path(where)} is empty"
    elif keyword == "maxProperties" and rule_value == 1:
        message = (
            f"{describe_path(where)} has {len(value)} keys ("
            + ", ".join(map(str, value))
            + "); it takes one"
        )
    else:
        message = f"{describe_path(where)}: {error.message}"
    sink.emit(
        "E204", spec.positions.at(where), message, _schema_of(error).get("x-hint")
    )


_HANDLERS = {
    "additionalProperties": _unknown_keys,
    "required": _missing_keys,
    "propertyNames": _bad_names,
    "anyOf": _branches,
    "oneOf": _branches,
    "type": _wrong_type,
    "enum": _not_a_choice,
}
