"""Rules (E6xx): ``count`` of dynamic outputs, ``derive`` of attrs, and
``infer_meta``.

A rule is a short call (``rule_syntax`` parses it, E601). What a rule names
must exist (E602), and each requirement on what it names is decided once
here, whichever rule states it:

- ``len(x)`` counts the instances of a dynamic input (E607);
- a derived attr has the type its rule gives: int for ``len``, dtype for
  ``dtype`` (E608);
- ``attr(n)`` names an attr of the type its place needs: int as a count,
  list_int as a shape, dtype as a dtype (E609);
- a count taken from an attr cannot default below zero (E610);
- ``same_as(x)`` needs an input with a single shape, not a dynamic one (E611);
- a rule that reads one input's shape or dtype cannot read an optional input,
  which may be absent (E612);
- a dtype rule gives a dtype that the output's own constraint allows (E613);
- an output whose type variable is a list or a promotion takes its dtype
  from it, per instance or promoted: its rule gives none, or names that
  variable (E614), and the rule is ``DtypeRuleKind.VAR``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ge_ir.attrs import AttrType
from ge_ir.types import dtype_from_spec_name, dtype_spec_names
from gen_ops.base.diagnostics import suggest
from gen_ops.semantics.context import Checker
from gen_ops.semantics.rule_syntax import Call, RuleSyntaxError, parse_call
from gen_ops.spec.model import (
    Attr,
    CountKind,
    CountRule,
    DeriveKind,
    DeriveRule,
    DtypeRule,
    DtypeRuleKind,
    InferOutput,
    Input,
    InputKind,
    Output,
    ShapeKind,
    ShapeRule,
    TypeVarKind,
)
from gen_ops.spec.source import YamlPath

# Each rule's calls: name -> (fewest, most names; None for no limit).
Calls = Mapping[str, tuple[int, int | None]]
_COUNT_CALLS: Calls = {"len": (1, 1), "attr": (1, 1)}
_DERIVE_CALLS: Calls = {"len": (1, 1), "dtype": (1, 1)}
_SHAPE_CALLS: Calls = {"same_as": (1, 1), "broadcast": (1, None), "attr": (1, 1)}
_DTYPE_CALLS: Calls = {"attr": (1, 1)}
# What a derive rule gives (E608).
_DERIVED_TYPE = {DeriveKind.LEN: AttrType.INT, DeriveKind.DTYPE: AttrType.DTYPE}


# --- the requirements, each decided once -------------------------------------


def _parse(ctx: Checker, text: str, where: YamlPath, allowed: Calls) -> Call | None:
    try:
        return parse_call(text, allowed)
    except RuleSyntaxError as exc:
        ctx.report("E601", where, str(exc))
        return None


def _exists(
    ctx: Checker, ref: str, known: Mapping[str, Any], where: YamlPath, what: str
) -> bool:
    """E602: ``what`` (e.g. "count rule names unknown input") names ``ref``."""
    if ref in known:
        return True
    ctx.report("E602", where, f"{what} '{ref}'", suggest(ref, known))
    return False


def _dynamic(ctx: Checker, item: Input, where: YamlPath) -> bool:
    """E607: ``len(x)`` counts the instances of a dynamic input."""
    if item.kind is InputKind.DYNAMIC:
        return True
    ctx.report(
        "E607",
        where,
        f"len({item.name}) needs a dynamic input; '{item.name}' is {item.kind.value}",
        "len(...) counts the instances of an input declared dynamic: true",
    )
    return False


def _present(ctx: Checker, rule: str, item: Input, where: YamlPath, hint: str) -> bool:
    """E612: a rule that reads one input's shape or dtype needs an input
    that is always there."""
    if item.kind is not InputKind.OPTIONAL:
        return True
    ctx.report(
        "E612",
        where,
        f"{rule} uses optional input '{item.name}', which may be absent",
        hint,
    )
    return False


def _attr_of_type(
    ctx: Checker, attr: Attr, want: AttrType, place: str, where: YamlPath
) -> bool:
    """E609: ``attr(n)`` as a ``place`` (count, shape, dtype) needs an attr
    of type ``want``."""
    if attr.type is want:
        return True
    ctx.report(
        "E609",
        where,
        f"attr({attr.name}) as a {place} needs an attr of type {want.value}; "
        f"'{attr.name}' has type {attr.type.value}",
        f"give '{attr.name}' type {want.value}, or name another attr",
    )
    return False


# --- count -------------------------------------------------------------------


def count_rule(
    ctx: Checker,
    text: str,
    where: YamlPath,
    inputs: Mapping[str, Input],
    attrs: Mapping[str, Attr],
) -> CountRule | None:
    """A dynamic output's ``count``: ``len(<dynamic input>)`` or
    ``attr(<int attr>)`` whose default, if any, is not negative (E610)."""
    call = _parse(ctx, text, where, _COUNT_CALLS)
    if call is None:
        return None
    (ref,) = call.args
    if call.func == "len":
        if not _exists(ctx, ref, inputs, where, "count rule names unknown input"):
            return None
        if not _dynamic(ctx, inputs[ref], where):
            return None
        return CountRule(CountKind.LEN, ref)
    if not _exists(ctx, ref, attrs, where, "count rule names unknown attr"):
        return None
    attr = attrs[ref]
    if not _attr_of_type(ctx, attr, AttrType.INT, "count", where):
        return None
    default = attr.default.value if attr.default is not None else None
    if isinstance(default, int) and default < 0:
        ctx.report(
            "E610",
            where,
            f"attr({ref}) gives a count, but '{ref}' defaults to {default}",
            "counts are >= 0; change the default",
        )
        return None
    return CountRule(CountKind.ATTR, ref)


# --- derive ------------------------------------------------------------------


def derive_rule(
    ctx: Checker,
    attr_name: str,
    attr_type: AttrType,
    text: str,
    where: YamlPath,
    inputs: Mapping[str, Input],
) -> DeriveRule | None:
    """An attr's ``derive``: ``len(<dynamic input>)`` into an int attr, or
    ``dtype(<input that is always there>)`` into a dtype attr."""
    call = _parse(ctx, text, where, _DERIVE_CALLS)
    if call is None:
        return None
    (ref,) = call.args
    if not _exists(ctx, ref, inputs, where, "derive rule names unknown input"):
        return None
    kind = DeriveKind(call.func)
    gives = _DERIVED_TYPE[kind]
    if attr_type is not gives:
        ctx.report(
            "E608",
            where,
            f"attr '{attr_name}' has type {attr_type.value}, but {call.func}({ref}) "
            f"derives type {gives.value}",
            f"give '{attr_name}' type {gives.value}: len(...) derives int, "
            "dtype(...) derives dtype",
        )
        return None
    item = inputs[ref]
    if kind is DeriveKind.LEN and not _dynamic(ctx, item, where):
        return None
    if kind is DeriveKind.DTYPE and not _present(
        ctx, f"dtype({ref})", item, where, "name a required or dynamic input"
    ):
        return None
    return DeriveRule(kind, ref)


# --- infer_meta ----------------------------------------------------------------


def infer_meta(
    ctx: Checker, inputs: list[Input], outputs: list[Output], attrs: list[Attr]
) -> tuple[InferOutput, ...] | None:
    """The spec's ``infer_meta``: a rule for every output (E604), naming only
    outputs (E602); a part a rule leaves out needs an impl (E606)."""
    if "infer_meta" not in ctx.data:
        return None
    rules: dict[str, Any] = ctx.data["infer_meta"]
    by_input = {i.name: i for i in inputs}
    by_attr = {a.name: a for a in attrs}
    by_output = {o.name: o for o in outputs}
    for name in rules:
        if name not in by_output:
            ctx.report(
                "E602",
                ctx.key(("infer_meta", name)),
                f"infer_meta names unknown output '{name}'",
                suggest(name, by_output),
            )
    missing = [o.name for o in outputs if o.name not in rules]
    if missing:
        ctx.report(
            "E604",
            ("infer_meta",),
            "infer_meta has no rule for output(s) " + ", ".join(missing),
            "give every output a rule, or drop infer_meta and write it by hand",
        )
    result = []
    implied: set[str] = set()
    for output in outputs:
        if output.name not in rules:
            continue
        rule = rules[output.name]
        where: YamlPath = ("infer_meta", output.name)
        shape = dtype = None
        if "shape" in rule:
            shape = _shape_rule(
                ctx, rule["shape"], where + ("shape",), by_input, by_attr
            )
        var = output.dtype.var
        if var is not None and var.kind is not TypeVarKind.TENSOR:
            implied.add(output.name)
            dtype = DtypeRule(DtypeRuleKind.VAR, ref=var.name)
            if "dtype" in rule and rule["dtype"] != var.name:
                how = "per instance" if var.kind is TypeVarKind.LIST else "promoted"
                ctx.report(
                    "E614",
                    where + ("dtype",),
                    f"output '{output.name}' takes its dtype from type variable "
                    f"{var.name} ({how}); infer_meta cannot give it another",
                    f"remove the dtype rule (or name the variable: dtype: "
                    f"{var.name}); the generated infer_meta applies it",
                )
        elif "dtype" in rule:
            dtype = _dtype_rule(
                ctx, rule["dtype"], where + ("dtype",), by_input, by_attr, output
            )
        # A rule that failed has reported it, and the spec gets no model.
        result.append(InferOutput(output.name, shape, dtype))
    written = {n: r for n, r in rules.items() if n in by_output}
    _partial_needs_impl(ctx, written, implied)
    return tuple(result)


def _partial_needs_impl(ctx: Checker, rules: dict[str, Any], implied: set[str]) -> None:
    """E606: what a rule leaves out, the implementation infers (Note [Partial
    infer_meta]: infer_shapes, infer_dtypes), so the op needs an impl. Reads
    what the spec wrote, as a rule that failed to parse is not missing; the
    outputs in ``implied`` take their dtype from their type variable."""
    if "impl" in ctx.data:
        return
    for part, method in (("shape", "infer_shapes"), ("dtype", "infer_dtypes")):
        left = [
            name
            for name, rule in rules.items()
            if rule and part not in rule and not (part == "dtype" and name in implied)
        ]
        if left:
            ctx.report(
                "E606",
                ctx.key(("infer_meta", left[0])),
                f"infer_meta gives no {part} rule for output(s) {', '.join(left)}, "
                "but the op has no impl to infer it",
                f"add impl (its author module defines {method}), or give "
                f"{'that output' if len(left) == 1 else 'those outputs'} a {part} rule",
            )


def _shape_rule(
    ctx: Checker,
    value: str | list[int],
    where: YamlPath,
    inputs: Mapping[str, Input],
    attrs: Mapping[str, Attr],
) -> ShapeRule | None:
    if isinstance(value, list):
        return ShapeRule(ShapeKind.LITERAL, dims=tuple(value))
    call = _parse(ctx, value, where, _SHAPE_CALLS)
    if call is None:
        return None
    if call.func == "attr":
        (ref,) = call.args
        if not _exists(ctx, ref, attrs, where, "shape rule names unknown attr"):
            return None
        if not _attr_of_type(ctx, attrs[ref], AttrType.LIST_INT, "shape", where):
            return None
        return ShapeRule(ShapeKind.ATTR, call.args)
    ok = True
    for ref in call.args:
        if not _exists(ctx, ref, inputs, where, "shape rule names unknown input"):
            ok = False
        elif call.func == "same_as":
            ok = _single_shape(ctx, inputs[ref], where) and ok
    return ShapeRule(ShapeKind(call.func), call.args) if ok else None


def _single_shape(ctx: Checker, item: Input, where: YamlPath) -> bool:
    """``same_as(x)``: one input that is always there, with one shape."""
    if item.kind is InputKind.DYNAMIC:
        ctx.report(
            "E611",
            where,
            f"same_as({item.name}): '{item.name}' is a dynamic input, which has no "
            "single shape",
            f"broadcast({item.name}) broadcasts all its instances",
        )
        return False
    return _present(
        ctx,
        f"same_as({item.name})",
        item,
        where,
        "use broadcast(...), which skips absent optional inputs, or a required input",
    )


def _dtype_rule(
    ctx: Checker,
    value: str,
    where: YamlPath,
    inputs: Mapping[str, Input],
    attrs: Mapping[str, Attr],
    output: Output,
) -> DtypeRule | None:
    if "(" in value:
        call = _parse(ctx, value, where, _DTYPE_CALLS)
        if call is None:
            return None
        (ref,) = call.args
        if not _exists(ctx, ref, attrs, where, "dtype rule names unknown attr"):
            return None
        if not _attr_of_type(ctx, attrs[ref], AttrType.DTYPE, "dtype", where):
            return None
        return DtypeRule(DtypeRuleKind.ATTR, ref=ref)
    if value in inputs:
        return _input_dtype(ctx, inputs[value], where, output)
    try:
        fixed = dtype_from_spec_name(value)
    except KeyError:
        ctx.report(
            "E602",
            where,
            f"dtype rule '{value}' is neither an input nor a dtype name",
            suggest(value, list(inputs) + list(dtype_spec_names())),
        )
        return None
    allowed = output.dtype.dtypes
    if allowed and fixed not in allowed:
        ctx.report(
            "E613",
            where,
            f"infer_meta gives output '{output.name}' dtype {value}, which its dtype "
            "constraint does not allow",
            f"give a dtype of output '{output.name}', or allow {value} in its dtype",
        )
        return None
    return DtypeRule(DtypeRuleKind.FIXED, dtype=fixed)


def _input_dtype(
    ctx: Checker, item: Input, where: YamlPath, output: Output
) -> DtypeRule | None:
    """A dtype rule naming an input: the input is always there (E612) and
    may have a dtype the output allows (E613)."""
    if not _present(
        ctx, "the dtype rule", item, where, "name a required input, or a dtype name"
    ):
        return None
    allowed = set(output.dtype.dtypes)
    if allowed and item.dtype.dtypes and not allowed & set(item.dtype.dtypes):
        ctx.report(
            "E613",
            where,
            f"output '{output.name}' takes the dtype of '{item.name}', but their "
            "dtype sets do not overlap",
            f"name an input whose dtypes output '{output.name}' allows, or change "
            "either dtype",
        )
        return None
    return DtypeRule(DtypeRuleKind.INPUT, ref=item.name)
