"""Attrs (E5xx): defaults that fit their type, normalised by the runtime's own
``check_attr_value``, and derived attrs (their rules: ``semantics.rules``)."""

from __future__ import annotations

from typing import Any

from ge_ir.attrs import AttrType, check_attr_value
from ge_ir.types import (
    UNDEFINED_DTYPE_NAME,
    attr_dtype_from_spec_name,
    dtype_spec_names,
)
from gen_ops.base.diagnostics import suggest
from gen_ops.lowering.reg_op import declares
from gen_ops.semantics.context import Checker
from gen_ops.semantics.names import check_unique
from gen_ops.semantics.rules import derive_rule
from gen_ops.semantics.text import item_doc
from gen_ops.spec.model import Attr, Default, DeriveRule, Input
from gen_ops.spec.source import YamlPath

# Attr types whose only default is "empty".
_EMPTY_ONLY = {
    AttrType.TENSOR: None,
    AttrType.NAMED_ATTRS: None,
    AttrType.LIST_TENSOR: (),
    AttrType.LIST_NAMED_ATTRS: (),
}


def attrs(ctx: Checker, inputs: list[Input]) -> list[Attr]:
    """The spec's attrs in IR order: a default, a derive rule (E502 for
    both), or neither (required)."""
    check_unique(ctx, "attrs")
    by_input = {i.name: i for i in inputs}
    result = []
    for i, item in enumerate(ctx.data.get("attrs", [])):
        where: YamlPath = ("attrs", i)
        name, attr_type = item["name"], AttrType(item["type"])
        default: Default | None = None
        derive: DeriveRule | None = None
        if "default" in item and "derive" in item:
            ctx.report(
                "E502",
                where + ("derive",),
                f"attr '{name}' has both a default and a derive rule",
                "a derived attr is computed; remove the default",
            )
        elif "default" in item:
            default = _default(ctx, name, attr_type, where + ("default",))
        elif "derive" in item:
            derive = derive_rule(
                ctx, name, attr_type, item["derive"], where + ("derive",), by_input
            )
        attr = Attr(
            name=name,
            type=attr_type,
            default=default,
            derive=derive,
            doc=item_doc(ctx, item, where),
            span=ctx.at(where + ("name",)),
        )
        if not declares(attr):
            ctx.report(
                "W905",
                where + ("type",),
                f"attr '{name}' ({attr_type.value}) is left out of the REG_OP "
                "header: GE's external headers declare NamedAttrs without "
                "defining it, so no NamedAttrs or ListNamedAttrs attr compiles "
                "in REG_OP",
                "nothing to do: builders, prototypes and graph files keep the "
                "attr, and GE sees it as an attr outside the op's IR",
            )
        result.append(attr)
    return result


def _default(
    ctx: Checker, name: str, attr_type: AttrType, where: YamlPath
) -> Default | None:
    """E501 unless the default at ``where`` is a value of ``attr_type``."""
    value = ctx.value(where)

    def bad(reason: str, hint: str | None = None) -> None:
        ctx.report(
            "E501",
            where,
            f"default of attr '{name}' does not fit {attr_type.value}: {reason}",
            hint,
        )

    if attr_type in _EMPTY_ONLY:
        if value is None or value == {} or value == []:
            return Default(_EMPTY_ONLY[attr_type])
        bad(
            f"{attr_type.value} attrs can only default to empty",
            "write `default: null` (or [] for lists), or make the attr required",
        )
        return None
    try:
        normalised = check_attr_value(attr_type, _yaml_to_attr(attr_type, value))
    except (TypeError, ValueError, KeyError) as exc:
        bad(str(exc.args[0]) if exc.args else str(exc), _default_hint(attr_type, value))
        return None
    return Default(normalised, _float_spellings(ctx, attr_type, value, where))


def _float_spellings(
    ctx: Checker, attr_type: AttrType, value: Any, where: YamlPath
) -> tuple[str | None, ...]:
    """How the spec wrote the floats of a default (model.Default)."""
    if attr_type is AttrType.FLOAT:
        return (ctx.positions.text(where),)
    if attr_type is AttrType.LIST_FLOAT:
        return tuple(ctx.positions.text(where + (i,)) for i in range(len(value)))
    return ()


def _default_hint(attr_type: AttrType, value: Any) -> str | None:
    if attr_type is AttrType.LIST_DTYPE and not isinstance(value, list):
        return "write a list, e.g. [float32]"
    if attr_type is AttrType.LIST_DTYPE and UNDEFINED_DTYPE_NAME in value:
        return (
            f"{UNDEFINED_DTYPE_NAME} is the value of a dtype attr given no type; "
            "a list holds dtype names"
        )
    if attr_type in (AttrType.DTYPE, AttrType.LIST_DTYPE):
        word = value if isinstance(value, str) else None
        return (suggest(word, dtype_spec_names()) if word else None) or (
            "dtypes are written by name: float32, int64, ..."
        )
    if attr_type is AttrType.FLOAT and isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return "write a number, e.g. 1.0 (YAML reads .inf and .nan too)"
        return "write the number unquoted"
    return None


def _yaml_to_attr(attr_type: AttrType, value: Any) -> Any:
    """YAML spellings that differ from Python values: dtypes by name (a
    dtype attr may be ``undefined``: Note [Undefined dtype attrs] in
    ge_ir/attrs.py), bytes as text or !!binary."""
    if attr_type is AttrType.DTYPE:
        if not isinstance(value, str):
            raise TypeError(f"expected a dtype name, got {type(value).__name__}")
        try:
            return attr_dtype_from_spec_name(value)
        except KeyError:
            raise ValueError(f"unknown dtype '{value}'") from None
    if attr_type is AttrType.LIST_DTYPE and isinstance(value, list):
        return [_yaml_to_attr(AttrType.DTYPE, v) for v in value]
    if attr_type is AttrType.BYTES and isinstance(value, str):
        return value.encode("utf-8")
    return value
