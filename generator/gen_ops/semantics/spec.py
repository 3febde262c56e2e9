"""One spec, checked by every meaning check and built into its OpSpec."""

from __future__ import annotations

from gen_ops.base.diagnostics import Sink
from gen_ops.lowering.layout import file_stem
from gen_ops.semantics import (
    attrs,
    breaking,
    dtypes,
    elements,
    elementwise,
    evolution,
    names,
    reuse,
    rules,
    selftest,
)
from gen_ops.semantics.context import Checker
from gen_ops.semantics.impl import impl
from gen_ops.semantics.text import doc_text
from gen_ops.spec.model import OpSpec
from gen_ops.spec.source import LoadedSpec


def check_spec(spec: LoadedSpec, sink: Sink) -> OpSpec | None:
    """Check one structurally valid spec; its OpSpec, or None on any error.

    Each part is built from the parts before it: attrs read the inputs (for
    derive rules), outputs read both (for count rules), infer_meta and impl
    read all three; the name checks that need the whole op run on the model.
    """
    ctx = Checker(spec, sink)
    module = names.module_name(ctx)
    names.check_op_type(ctx)
    doc = doc_text(ctx, ("doc",)) if "doc" in ctx.data else ""
    variables = dtypes.type_vars(ctx)
    inputs = elements.inputs(ctx, variables)
    attr_list = attrs.attrs(ctx, inputs)
    outputs = elements.outputs(ctx, variables, inputs, attr_list)
    graphs = elements.graphs(ctx)
    dtypes.check_kinds(ctx, variables, inputs, outputs)
    dtypes.check_unused(ctx, variables, inputs, outputs)
    infer = rules.infer_meta(ctx, inputs, outputs, attr_list)
    implementation = impl(ctx, inputs, outputs, attr_list)
    outputs = reuse.reuse(ctx, inputs, outputs, infer, implementation is not None)
    names.check_attrs_bound_by_name(ctx, attr_list, infer, implementation)
    marks = breaking.marks(ctx)
    meaning = selftest.reference(ctx, inputs, attr_list)
    drawn = selftest.samples(ctx, inputs, outputs, attr_list)
    tolerances = selftest.tolerance(ctx, inputs, outputs)
    selftest.check_sample_graphs(ctx, graphs, meaning, drawn)
    expression = elementwise.elementwise(ctx, inputs, outputs, attr_list, infer)
    if ctx.failed():
        return None
    op = OpSpec(
        op_type=ctx.op,
        module=module,
        doc=doc,
        since=ctx.data.get("since"),
        deprecated=ctx.data.get("deprecated"),
        type_vars=tuple(variables.values()),
        inputs=tuple(inputs),
        outputs=tuple(outputs),
        attrs=tuple(attr_list),
        graphs=tuple(graphs),
        infer_meta=infer,
        impl=implementation,
        spec_path=spec.path,
        label=spec.label or spec.path,
        file_stem=file_stem(ctx.op),
        span=ctx.at(("op",)),
        project=spec.project,
        breaking=marks,
        reference=meaning,
        samples=drawn,
        tolerance=tolerances,
        elementwise=expression,
    )
    op = evolution.apply(ctx, op)
    names.check_op_type_hides(ctx, op)
    names.naming_notes(ctx, op)
    names.check_reg_op_members(ctx, op)
    return op
