"""``elementwise:``: the op's scalar expression, which lets element-wise
fusion compute its nodes inside a fused kernel (E631-E633;
docs/spec-reference.md, "elementwise"; Note [Element-wise expressions] in
``ge_ir.elementwise``).

What a spec can check without running anything:

- the expression parses in the grammar (E631);
- it reads only the op's inputs and int, float and bool attrs, and an
  optional input only where it tests present (E632);
- the op can be element-wise: one output, no dynamic input, an output shape
  that is ``same_as`` or ``broadcast`` of inputs, and one dtype for every
  input and the output, from the float dtypes the expression computes in
  (E633).
"""

from __future__ import annotations

from ge_ir import elementwise as grammar
from gen_ops.semantics.context import Checker
from gen_ops.spec.model import (
    Attr,
    DtypeConstraint,
    Elementwise,
    InferOutput,
    Input,
    InputKind,
    Output,
    ShapeKind,
)
from gen_ops.spec.source import YamlPath

WHERE: YamlPath = ("elementwise",)


def elementwise(
    ctx: Checker,
    inputs: list[Input],
    outputs: list[Output],
    attrs: list[Attr],
    infer: tuple[InferOutput, ...] | None,
) -> Elementwise | None:
    if "elementwise" not in ctx.data:
        return None
    text = str(ctx.value(WHERE)).strip()
    try:
        expr = grammar.parse(text)
    except grammar.ExpressionError as exc:
        ctx.report(
            "E631",
            WHERE,
            f"elementwise is not an element-wise expression: {exc}",
            "write + - * / over inputs, attrs and numbers, with "
            f"{', '.join(grammar.FUNCTIONS)}; such as x1 + x2",
        )
        return None
    for message, hint in grammar.problems(
        expr,
        {i.name: i.kind is InputKind.OPTIONAL for i in inputs},
        {a.name: a.type.value for a in attrs},
    ):
        ctx.report("E632", WHERE, f"elementwise {message}", hint)
    why = _not_elementwise(inputs, outputs, infer)
    if why is not None:
        ctx.report(
            "E633",
            WHERE,
            f"the op cannot be element-wise: {why[0]}",
            why[1],
        )
    return Elementwise(text, ctx.at(WHERE))


def _not_elementwise(
    inputs: list[Input],
    outputs: list[Output],
    infer: tuple[InferOutput, ...] | None,
) -> tuple[str, str] | None:
    """(why, hint) when the op's shape is not one element-wise fusion can
    compute, else None."""
    if len(outputs) != 1 or outputs[0].dynamic:
        return "it has more than one output, or a dynamic one", "remove elementwise"
    if not inputs or any(i.kind is InputKind.DYNAMIC for i in inputs):
        return "it has no inputs, or a dynamic one", "remove elementwise"
    rule = next((r for r in infer or () if r.output == outputs[0].name), None)
    if (
        rule is None
        or rule.shape is None
        or rule.shape.kind
        not in (
            ShapeKind.SAME_AS,
            ShapeKind.BROADCAST,
        )
    ):
        return (
            f"output '{outputs[0].name}' has no shape rule same_as(...) or "
            "broadcast(...) of its inputs",
            "give infer_meta a shape same_as(x) or broadcast(x1, x2)",
        )
    slots: list[DtypeConstraint] = [i.dtype for i in inputs] + [outputs[0].dtype]
    first = slots[0]
    same = all(
        (s.var is not None and first.var is not None and s.var.name == first.var.name)
        or (s.var is None and first.var is None and s.dtypes == first.dtypes)
        for s in slots
    )
    if not same or (first.var is None and len(first.dtypes) != 1):
        return (
            "its inputs and output do not share one type variable (or one dtype)",
            "give every input and the output the same type variable",
        )
    other = [
        d.spec_name for d in first.dtypes if d.spec_name not in grammar.FLOAT_DTYPES
    ]
    if other:
        return (
            f"an element-wise expression computes in {', '.join(grammar.FLOAT_DTYPES)}, "
            f"not {', '.join(other)}",
            "limit the type variable to float dtypes, or remove elementwise",
        )
    return None


__all__ = ["elementwise"]
