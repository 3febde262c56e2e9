"""Inputs, outputs and graphs: each declaration checked and built into the
model (E301, E305, E605, W907; their dtypes: ``semantics.dtypes``, count
rules: ``semantics.rules``)."""

from __future__ import annotations

from gen_ops.semantics.context import Checker
from gen_ops.semantics.dtypes import constraint
from gen_ops.semantics.names import check_unique
from gen_ops.semantics.rules import count_rule
from gen_ops.semantics.text import item_doc
from gen_ops.spec.model import (
    Attr,
    CountRule,
    Input,
    InputKind,
    Output,
    Subgraph,
    TypeVar,
)
from gen_ops.spec.source import YamlPath


def inputs(ctx: Checker, variables: dict[str, TypeVar]) -> list[Input]:
    """The spec's inputs in IR order; none is both optional and dynamic."""
    check_unique(ctx, "inputs")
    result = []
    for i, item in enumerate(ctx.data.get("inputs", [])):
        where: YamlPath = ("inputs", i)
        optional, dynamic = item.get("optional", False), item.get("dynamic", False)
        if optional and dynamic:
            ctx.report(
                "E305",
                where + ("dynamic",),
                f"input '{item['name']}' cannot be both optional and dynamic",
                "a dynamic input may simply have zero instances; drop optional",
            )
        kind = (
            InputKind.DYNAMIC
            if dynamic
            else InputKind.OPTIONAL if optional else InputKind.REQUIRED
        )
        result.append(
            Input(
                name=item["name"],
                kind=kind,
                dtype=constraint(ctx, item["dtype"], where + ("dtype",), variables),
                doc=item_doc(ctx, item, where),
                span=ctx.at(where + ("name",)),
            )
        )
    return result


def outputs(
    ctx: Checker,
    variables: dict[str, TypeVar],
    inputs: list[Input],
    attrs: list[Attr],
) -> list[Output]:
    """The spec's outputs in IR order. An output named like an input is GE's
    ref pair when both are dynamic or neither; when only one is, it is no
    pair, only a name GE's generated code prefixes (W907)."""
    check_unique(ctx, "outputs")
    by_input = {i.name: i for i in inputs}
    by_attr = {a.name: a for a in attrs}
    result = []
    for i, item in enumerate(ctx.data.get("outputs", [])):
        where: YamlPath = ("outputs", i)
        name, dynamic = item["name"], item.get("dynamic", False)
        ref = by_input.get(name)
        if ref is not None and (ref.kind is InputKind.DYNAMIC) != dynamic:
            ctx.report(
                "W907",
                where + ("name",),
                f"output '{name}' is named like input '{name}' but only one of them "
                "is dynamic, so they are no ref pair: the output does not write "
                "the input in place (GE names a dynamic output's instances "
                f"{name}0, {name}1, ...); its generated names take the prefix ref_",
                "rename the output if it is not meant to share the name, or make "
                "both dynamic or neither for an in-place pair",
            )
        count: CountRule | None = None
        if "count" in item and not dynamic:
            ctx.report(
                "E605",
                where + ("count",),
                f"output '{name}' has a count rule but is not dynamic",
                "add dynamic: true or remove count",
            )
        elif "count" in item:
            count = count_rule(
                ctx, item["count"], where + ("count",), by_input, by_attr
            )
        result.append(
            Output(
                name=name,
                dynamic=dynamic,
                count=count,
                dtype=constraint(ctx, item["dtype"], where + ("dtype",), variables),
                doc=item_doc(ctx, item, where),
                span=ctx.at(where + ("name",)),
                ref_input=name if ref is not None else None,
            )
        )
    return result


def graphs(ctx: Checker) -> list[Subgraph]:
    """The spec's subgraph parameters in IR order."""
    check_unique(ctx, "graphs")
    return [
        Subgraph(
            name=item["name"],
            dynamic=item.get("dynamic", False),
            doc=item_doc(ctx, item, ("graphs", i)),
            span=ctx.at(("graphs", i, "name")),
        )
        for i, item in enumerate(ctx.data.get("graphs", []))
    ]
