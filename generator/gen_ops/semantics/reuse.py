"""``reuse_input:`` of an output: the input whose memory it may take (E615,
E616, E617, W906).

The key is a promise about the kernel: it gives the same numbers when the
output and the input are one buffer (docs/spec-reference.md, "reuse_input";
the runtime's side is Note [Reuse input] in ``ge/engine/reuse.py``). What a
spec can check:

- it names an input of the op (E615);
- the input's dtype is the output's whenever the op runs (E616): the two
  share a type variable of one dtype per call, the output's infer_meta
  dtype rule names the input, or both allow exactly the same single dtype;
- both are single tensors: not a dynamic output or input (which instance?),
  not a ref output (named like an input, it shares that input's memory
  already), and each input is reused by one output at most (E617);
- the fact reaches the runtime through the generated register_op
  prototype, which an op with neither infer_meta nor impl does not get
  (W906).

An optional input may be named: the output reuses it when it is there.
"""

from __future__ import annotations

from dataclasses import replace

from gen_ops.base.diagnostics import suggest
from gen_ops.semantics.context import Checker
from gen_ops.spec.model import (
    DtypeKind,
    DtypeRuleKind,
    InferOutput,
    Input,
    InputKind,
    Output,
    TypeVarKind,
)
from gen_ops.spec.source import YamlPath


def _same_dtype(
    output: Output, source: Input, infer: tuple[InferOutput, ...] | None
) -> bool:
    """Whether ``source``'s dtype is ``output``'s in every valid call."""
    rule = next((r.dtype for r in infer or () if r.output == output.name), None)
    if (
        rule is not None
        and rule.kind is DtypeRuleKind.INPUT
        and rule.ref == source.name
    ):
        return True
    out, inp = output.dtype, source.dtype
    if rule is not None and rule.kind is DtypeRuleKind.FIXED:
        return inp.dtypes == (rule.dtype,)
    if (
        out.var is not None
        and inp.var is not None
        and out.var.kind is TypeVarKind.TENSOR
        and out.var.name == inp.var.name
    ):
        return True
    return len(out.dtypes) == 1 and out.dtypes == inp.dtypes


def _dtype_words(item: Input | Output) -> str:
    constraint = item.dtype
    if constraint.kind is DtypeKind.VAR and constraint.var is not None:
        return f"type variable {constraint.var.name}"
    return ", ".join(d.spec_name for d in constraint.dtypes) or "no dtype"


def _refusal(
    output: Output, source: Input, taken: dict[str, str], paired: bool
) -> tuple[str, str] | None:
    """Why the pair cannot share memory whatever the graph, and what to do
    (E617); None when it can."""
    if output.dynamic:
        return (
            f"output '{output.name}' is dynamic (a list of tensors)",
            "remove reuse_input: a dynamic output has no one buffer to share",
        )
    if source.kind is InputKind.DYNAMIC:
        return (
            f"input '{source.name}' is dynamic (a list of tensors)",
            "name a required or optional input, or remove reuse_input",
        )
    if paired:  # a ref pair (W907 when named alike but not paired)
        return (
            f"output '{output.name}' is named like input '{output.ref_input}', a ref "
            "pair that shares its memory already",
            "remove reuse_input (a ref output is written in place anyway), or "
            "rename the output",
        )
    if source.name in taken:
        return (
            f"output '{taken[source.name]}' reuses input '{source.name}' already; one "
            "input's memory can hold one output",
            f"remove reuse_input from output '{output.name}' or from output "
            f"'{taken[source.name]}'",
        )
    return None


def _accepted(
    ctx: Checker,
    index: int,
    output: Output,
    name: str,
    by_input: dict[str, Input],
    taken: dict[str, str],
    infer: tuple[InferOutput, ...] | None,
) -> bool:
    """Whether output ``index`` may reuse input ``name`` (E615, E617, E616
    reported where it may not)."""
    where: YamlPath = ("outputs", index, "reuse_input")
    source = by_input.get(name)
    if source is None:
        ctx.report(
            "E615",
            where,
            f"output '{output.name}' reuses input '{name}', which does not exist",
            suggest(name, by_input)
            or f"name an input of {ctx.op}: {', '.join(by_input) or 'none'}",
        )
        return False
    ref = by_input.get(output.ref_input or "")
    paired = ref is not None and (ref.kind is InputKind.DYNAMIC) == output.dynamic
    refused = _refusal(output, source, taken, paired)
    if refused is not None:
        ctx.report(
            "E617",
            where,
            f"output '{output.name}' cannot reuse input '{name}': {refused[0]}",
            refused[1],
        )
        return False
    if not _same_dtype(output, source, infer):
        ctx.report(
            "E616",
            where,
            f"output '{output.name}' ({_dtype_words(output)}) reuses input "
            f"'{name}' ({_dtype_words(source)}), whose dtype can differ from "
            "the output's",
            f"declare both with one type variable (dtypes: {{T: [...]}}), or "
            f"give output '{output.name}' the infer_meta rule dtype: {name}",
        )
        return False
    return True


def reuse(
    ctx: Checker,
    inputs: list[Input],
    outputs: list[Output],
    infer: tuple[InferOutput, ...] | None,
    impl_declared: bool,
) -> list[Output]:
    """``outputs`` with each valid ``reuse_input`` recorded."""
    by_input = {i.name: i for i in inputs}
    taken: dict[str, str] = {}
    first: int | None = None  # the first output given its reuse_input
    result = []
    for index, output in enumerate(outputs):
        name = ctx.data["outputs"][index].get("reuse_input")
        if name is not None and _accepted(
            ctx, index, output, name, by_input, taken, infer
        ):
            taken[name] = output.name
            output = replace(output, reuse_input=name)
            first = index if first is None else first
        result.append(output)
    if first is not None and infer is None and not impl_declared:
        ctx.report(
            "W906",
            ("outputs", first, "reuse_input"),
            "reuse_input reaches the runtime through the generated register_op "
            "prototype, and an op with neither infer_meta nor impl gets none",
            "add infer_meta (or impl), or pass reuse_inputs= to your own register_op",
        )
    return result
