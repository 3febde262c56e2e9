"""Dtypes (E4xx, W903): type variables, dtype names and named sets, resolved
into DtypeConstraints.

Note [Dtype order]: a list of dtypes keeps the order the spec writes it
(repeated names once), and so does everything rendered from it: REG_OP
writes ``[float16, float32]`` as ``TensorType({DT_FLOAT16, DT_FLOAT})``, so a
header imported and rendered again keeps its order. Only a named set's
members, which the spec does not list, come in DataType order.

Type variables are of three kinds (Note [Type variable kinds] in
ge_ir/dtype_rules.py): ``T: <set>`` (TensorType), ``T: {list: <set>}``
(ListTensorType: only dynamic slots, E405) and ``T: {promote: [T1, T2]}``
(Promote: of TensorType variables that inputs bind, E404; only outputs,
E405; giving some dtype, E406).
"""

from __future__ import annotations

from ge_ir.dtype_rules import promotion_image
from ge_ir.types import NAMED_TENSOR_TYPES, dtype_spec_names
from gen_ops.base.diagnostics import suggest
from gen_ops.semantics.context import Checker
from gen_ops.spec.model import (
    DtypeConstraint,
    DtypeKind,
    DtypeSet,
    Input,
    InputKind,
    Output,
    TypeVar,
    TypeVarKind,
)
from gen_ops.spec.source import YamlPath


def dtype_set(ctx: Checker, names: str | list[str], where: YamlPath) -> DtypeSet:
    """One dtype name or named set (at ``where``), or a list of them, their
    union (E401 for a name that is neither)."""
    items = (
        [(names, where)]
        if isinstance(names, str)
        else [(name, where + (i,)) for i, name in enumerate(names)]
    )
    found: list[str] = []
    for name, place in items:
        if name in NAMED_TENSOR_TYPES or name in dtype_spec_names():
            found.append(name)
            continue
        hint = suggest(name, list(dtype_spec_names()) + list(NAMED_TENSOR_TYPES)) or (
            "dtype names are lower-case: float32, int64, bfloat16, ..."
        )
        ctx.report("E401", place, f"unknown dtype '{name}'", hint)
    return DtypeSet(tuple(dict.fromkeys(found)))


def type_vars(ctx: Checker) -> dict[str, TypeVar]:
    """The spec's ``dtypes``; a variable named like a dtype or a named set is
    E403 and left out, and so is a promotion of what it cannot promote."""
    result: dict[str, TypeVar] = {}
    promoted: list[tuple[str, list[str]]] = []
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
        if isinstance(value, dict) and "promote" in value:
            promoted.append((name, value["promote"]))
            continue
        kind, inner = TypeVarKind.TENSOR, value
        if isinstance(value, dict):
            kind, inner, where = TypeVarKind.LIST, value["list"], where + ("list",)
        written = dtype_set(ctx, inner, where)
        span = ctx.key(("dtypes", name))
        result[name] = TypeVar(name, kind, written, (), written.dtypes, span)
    for name, sources in promoted:
        result[name] = _promotion(ctx, name, sources, result)
    return {name: result[name] for name in ctx.data.get("dtypes", {}) if name in result}


def _promotion(
    ctx: Checker, name: str, sources: list[str], variables: dict[str, TypeVar]
) -> TypeVar:
    """``{promote: [T1, T2, ...]}``: TensorType variables (E404), whose
    promotion gives some dtype (E406). A promotion that fails is still a
    variable (of no dtype), so that its slots report nothing more."""
    where: YamlPath = ("dtypes", name, "promote")
    declared = ctx.data.get("dtypes", {})
    ok = True
    for i, source in enumerate(sources):
        var = variables.get(source)
        kind = _declared_kind(declared.get(source)) if var is None else var.kind
        if kind is TypeVarKind.TENSOR:
            continue
        ok = False
        if kind is None:
            what = "which is not a type variable"
            hint = suggest(source, list(declared)) or (
                "declare it under dtypes, e.g. T1: [float32, int32]"
            )
        else:
            what = (
                "a list type variable"
                if kind is TypeVarKind.LIST
                else "a promoted type variable itself"
            )
            hint = (
                "promote type variables of one dtype each: T1: [...], not "
                "{list: ...} or {promote: ...}"
            )
        ctx.report(
            "E404",
            where + (i,),
            f"type variable {name} promotes '{source}', {what}",
            hint,
        )
    span = ctx.key(("dtypes", name))
    image = (
        promotion_image(frozenset(variables[s].dtypes) for s in sources)
        if ok
        else frozenset()
    )
    if ok and not image:
        ctx.report(
            "E406",
            where,
            f"type variable {name} promotes "
            + ", ".join(sources)
            + ", which have no promoted dtype for any choice of their dtypes",
            "see the promotion table in docs/spec-reference.md (uint16, uint32 "
            "and uint64 promote only with themselves and complex types)",
        )
    ordered = tuple(sorted(image))
    return TypeVar(
        name, TypeVarKind.PROMOTE, DtypeSet(()), tuple(sources), ordered, span
    )


def _declared_kind(value: object) -> TypeVarKind | None:
    """The kind of a variable as the spec declares it (None: not declared)."""
    if value is None:
        return None
    if isinstance(value, dict):
        return TypeVarKind.PROMOTE if "promote" in value else TypeVarKind.LIST
    return TypeVarKind.TENSOR


def constraint(
    ctx: Checker, value: str | list[str], where: YamlPath, variables: dict[str, TypeVar]
) -> DtypeConstraint:
    """What an input's or output's ``dtype`` means (E401, E402)."""
    if isinstance(value, list):
        written = dtype_set(ctx, value, where)
        return DtypeConstraint(DtypeKind.LIST, written.dtypes, written)
    if value in variables:
        var = variables[value]
        return DtypeConstraint(DtypeKind.VAR, var.dtypes, var=var)
    if value in NAMED_TENSOR_TYPES or value in dtype_spec_names():
        written = DtypeSet((value,))
        kind = DtypeKind.SET if written.set_name else DtypeKind.LIST
        return DtypeConstraint(kind, written.dtypes, written)
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


def check_kinds(
    ctx: Checker,
    variables: dict[str, TypeVar],
    inputs: list[Input],
    outputs: list[Output],
) -> None:
    """E405: a list variable types dynamic slots only, a promoted one
    outputs only; E404: each variable promoted is the dtype of an input
    that is always there (required, or dynamic), so the promotion can be
    computed."""
    slots: list[tuple[str, YamlPath, Input | Output]] = [
        ("input", ("inputs", i, "dtype"), item) for i, item in enumerate(inputs)
    ] + [("output", ("outputs", i, "dtype"), item) for i, item in enumerate(outputs)]
    for role, where, item in slots:
        var = item.dtype.var
        if var is None:
            continue
        dynamic = (
            item.kind is InputKind.DYNAMIC
            if isinstance(item, Input)
            else (item.dynamic)
        )
        if var.kind is TypeVarKind.LIST and not dynamic:
            ctx.report(
                "E405",
                where,
                f"{role} '{item.name}' is not dynamic, but type variable "
                f"{var.name} is a list (one dtype per instance of a dynamic slot)",
                f"make '{item.name}' dynamic: true, or declare {var.name} without "
                "list:",
            )
        elif var.kind is TypeVarKind.PROMOTE and role == "input":
            ctx.report(
                "E405",
                where,
                f"input '{item.name}' has type variable {var.name}, which is "
                "promoted: only outputs take a promoted dtype",
                "give the input one of the type variables promoted",
            )
    present = {
        i.dtype.var.name
        for i in inputs
        if i.dtype.var is not None and i.kind is not InputKind.OPTIONAL
    }
    tensors = {n for n, v in variables.items() if v.kind is TypeVarKind.TENSOR}
    for var in variables.values():
        for index, source in enumerate(var.promote):
            if source in tensors and source not in present:
                ctx.report(
                    "E404",
                    ("dtypes", var.name, "promote", index),
                    f"type variable {var.name} promotes '{source}', which no "
                    "required or dynamic input has, so its dtype is not known "
                    "when the promotion is made",
                    f"give a required input dtype {source}",
                )


def check_unused(
    ctx: Checker,
    variables: dict[str, TypeVar],
    inputs: list[Input],
    outputs: list[Output],
) -> None:
    """W903: a type variable no input or output uses, nor a promotion."""
    constraints = [i.dtype for i in inputs] + [o.dtype for o in outputs]
    used = {c.name for c in constraints if c.kind is DtypeKind.VAR}
    used |= {source for var in variables.values() for source in var.promote}
    for name, var in variables.items():
        if name not in used:
            ctx.report(
                "W903",
                var.span,
                f"type variable '{name}' is not used by any input or output",
                "remove it or use it as a dtype",
            )
