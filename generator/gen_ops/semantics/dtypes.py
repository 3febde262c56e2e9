"""Dtypes (E4xx, W903): type variables, dtype names and named sets, resolved
into DtypeConstraints in GE's DataType order."""

from __future__ import annotations

from ge_ir.types import (
    NAMED_TENSOR_TYPES,
    DataType,
    dtype_from_spec_name,
    dtype_spec_names,
)
from gen_ops.diagnostics import suggest
from gen_ops.model import DtypeConstraint, DtypeKind, Input, Output, TypeVar
from gen_ops.semantics.context import Checker
from gen_ops.source import YamlPath


def _named_set(name: str) -> tuple[DataType, ...]:
    return tuple(sorted(NAMED_TENSOR_TYPES[name].types))


def dtype_names(
    ctx: Checker, names: str | list[str], where: YamlPath
) -> tuple[DataType, ...]:
    """Resolve one dtype name (at ``where``) or a list of them (E401)."""
    items = (
        [(names, where)]
        if isinstance(names, str)
        else [(name, where + (i,)) for i, name in enumerate(names)]
    )
    found: set[DataType] = set()
    for name, place in items:
        try:
            found.add(dtype_from_spec_name(name))
        except KeyError:
            hint = (
                f"'{name}' is a named set; a named set stands alone, not inside a list"
                if name in NAMED_TENSOR_TYPES
                else suggest(name, dtype_spec_names())
                or "dtype names are lower-case: float32, int64, bfloat16, ..."
            )
            ctx.report("E401", place, f"unknown dtype '{name}'", hint)
    return tuple(sorted(found))


def type_vars(ctx: Checker) -> dict[str, TypeVar]:
    """The spec's ``dtypes``; a variable named like a dtype or a named set is
    E403 and left out."""
    result: dict[str, TypeVar] = {}
    for name, value in ctx.data.get("dtypes", {}).items():
        where: YamlPath = ("dtypes", name)
        if name in NAMED_TENSOR_TYPES or name in dtype_spec_names():
            ctx.report(
                "E403",
                ctx.key(where),
                f"type variable '{name}' has the name of a "
                + ("named set" if name in NAMED_TENSOR_TYPES else "dtype"),
                "rename the type variable (e.g. T, T1, TIndex)",
            )
            continue
        if isinstance(value, str) and value in NAMED_TENSOR_TYPES:
            result[name] = TypeVar(name, _named_set(value), value, ctx.key(where))
        else:
            dtypes = dtype_names(ctx, value, where)
            result[name] = TypeVar(name, dtypes, None, ctx.key(where))
    return result


def constraint(
    ctx: Checker, value: str | list[str], where: YamlPath, variables: dict[str, TypeVar]
) -> DtypeConstraint:
    """What an input's or output's ``dtype`` means (E401, E402)."""
    if isinstance(value, list):
        return DtypeConstraint(DtypeKind.LIST, dtype_names(ctx, value, where))
    if value in variables:
        var = variables[value]
        return DtypeConstraint(DtypeKind.VAR, var.dtypes, value, var.set_name)
    if value in NAMED_TENSOR_TYPES:
        return DtypeConstraint(DtypeKind.SET, _named_set(value), value)
    try:
        return DtypeConstraint(DtypeKind.LIST, (dtype_from_spec_name(value),))
    except KeyError:
        pass
    choices = list(variables) + list(NAMED_TENSOR_TYPES) + list(dtype_spec_names())
    ctx.report(
        "E402",
        where,
        f"'{value}' is not a type variable, named set or dtype",
        suggest(value, choices)
        or (
            f"declare it under dtypes, e.g. dtypes: {{{value}: [float32]}}"
            if value[:1].isupper()
            else None
        ),
    )
    return DtypeConstraint(DtypeKind.LIST, ())


def check_unused(
    ctx: Checker,
    variables: dict[str, TypeVar],
    inputs: list[Input],
    outputs: list[Output],
) -> None:
    """W903: a type variable no input or output uses."""
    constraints = [i.dtype for i in inputs] + [o.dtype for o in outputs]
    used = {c.name for c in constraints if c.kind is DtypeKind.VAR}
    for name, var in variables.items():
        if name not in used:
            ctx.report(
                "W903",
                var.span,
                f"type variable '{name}' is not used by any input or output",
                "remove it or use it as a dtype",
            )
