"""How a parameter evolves across releases: ``deprecated:`` and
``renamed_from:`` on inputs and attrs (E310, E311; docs/releases.md,
"Builders that keep old calls").

A deprecated parameter warns when a call gives it a value, so callers must
be able to leave it out: only an optional input or an attr with a default
can be deprecated. An earlier name is kept by the builder as a keyword
alias, so it must be a name a call can spell (not a Python keyword) and one
no other parameter of the builder has.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from gen_ops.lowering.names import PYTHON_KEYWORDS, python_names
from gen_ops.semantics.context import Checker
from gen_ops.spec.model import Attr, FormerName, Input, InputKind, OpSpec
from gen_ops.spec.source import YamlPath

Param = Input | Attr
P = TypeVar("P", Input, Attr)


def apply(ctx: Checker, op: OpSpec) -> OpSpec:
    """``op`` with each input's and attr's ``deprecated`` and
    ``renamed_from``; E310 and E311 for those that cannot be kept."""
    if not any(
        _evolves(raw) for key in ("inputs", "attrs") for raw in ctx.data.get(key, ())
    ):
        return op  # the common case: no parameter evolves
    names = python_names(op)
    taken = set(names.params.values()) | {names.node_name}
    if names.owner is not None:
        taken.add(names.owner)
    seen: dict[str, str] = {}
    inputs = tuple(
        _param(ctx, ("inputs", i), item, "input", taken, seen)
        for i, item in enumerate(op.inputs)
    )
    attrs = tuple(
        _param(ctx, ("attrs", i), item, "attr", taken, seen)
        for i, item in enumerate(op.attrs)
    )
    if inputs == op.inputs and attrs == op.attrs:
        return op
    return dataclasses.replace(op, inputs=inputs, attrs=attrs)


def _evolves(raw: dict[str, Any]) -> bool:
    """Whether a spec's input or attr says how it evolved."""
    return "deprecated" in raw or "renamed_from" in raw


def _param(
    ctx: Checker,
    where: YamlPath,
    item: P,
    word: str,
    taken: set[str],
    seen: dict[str, str],
) -> P:
    raw = ctx.value(where)
    if not _evolves(raw):
        return item
    deprecated = raw.get("deprecated")
    if deprecated is not None:
        _check_deprecated(ctx, where, item, word)
    former = tuple(
        FormerName(entry["name"], entry["release"], ctx.at(where + ("renamed_from", k)))
        for k, entry in enumerate(raw.get("renamed_from", ()))
    )
    for k, old in enumerate(former):
        _check_former(ctx, where + ("renamed_from", k, "name"), item, word, old, taken)
        first = seen.get(old.name)
        if first is not None:
            ctx.report(
                "E311",
                where + ("renamed_from", k, "name"),
                f"{word} '{item.name}': earlier name '{old.name}' is also an earlier "
                f"name of {first}",
                "an old name can be kept by one parameter only; remove one",
            )
        seen.setdefault(old.name, f"{word} '{item.name}'")
    return dataclasses.replace(item, deprecated=deprecated, renamed_from=former)


def _check_deprecated(ctx: Checker, where: YamlPath, item: Param, word: str) -> None:
    if isinstance(item, Input):
        if item.kind is InputKind.OPTIONAL:
            return
        why = f"is {item.kind.value}: every call must give it"
    elif item.derive is not None:
        why = f"is derived ({item.derive}): no call gives it"
    elif item.required:
        why = "is required: every call must give it"
    else:
        return
    ctx.report(
        "E310",
        where + ("deprecated",),
        f"{word} '{item.name}' cannot be deprecated: it {why}, so the warning "
        "could not be avoided",
        (
            "deprecate the op instead (deprecated: at the top), or make the "
            + ("input optional: true" if isinstance(item, Input) else "attr optional")
            + " first"
            if not (isinstance(item, Attr) and item.derive is not None)
            else "remove deprecated: from the derived attr"
        ),
    )


def _check_former(
    ctx: Checker,
    where: YamlPath,
    item: Param,
    word: str,
    old: FormerName,
    taken: set[str],
) -> None:
    problem = None
    if isinstance(item, Attr) and item.derive is not None:
        problem = "the attr is derived, so the builder has no parameter to alias"
        hint = "remove renamed_from: from the derived attr"
    elif old.name == item.name:
        problem = "it is the current name"
        hint = "list only names the parameter had before"
    elif old.name in PYTHON_KEYWORDS:
        problem = "it is a Python keyword, which no call can spell as a keyword"
        hint = "leave it out: callers could only have passed it by position"
    elif old.name in taken:
        problem = "another parameter of the builder has that name"
        hint = "rename the other parameter, or drop the alias"
    if problem is not None:
        ctx.report(
            "E311",
            where,
            f"{word} '{item.name}': earlier name '{old.name}' cannot be kept as a "
            f"keyword alias: {problem}",
            hint,
        )
