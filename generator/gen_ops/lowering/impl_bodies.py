"""The bodies of the generated prototype and ``declare_launch_args``, as views.

Each view says what a statement does (which rule gives a shape, which slot a
launch argument fills, which module alias it reaches); the macros of
``templates/python/impl_code.j2`` write the statements. The module aliases a
body uses (``_b`` for builtins, ``_infer``, ``_types``) are recorded in the
module's imports where the view that needs them is made.

Note [Partial infer_meta]: an output's rule may give only its shape or only
its dtype. The prototype computes the declared parts and calls the author's
``infer_shapes`` / ``infer_dtypes`` (static methods of the subclass, with the
prototype's parameters) for the rest: one value per output that lacks the
part, in IR order (a tuple when there are several; a list per dynamic
output, one item per instance). ``author_parts`` decides which.
"""

from __future__ import annotations

from dataclasses import dataclass

from gen_ops.emit.literals import PyTree
from gen_ops.emit.pyformat import layout
from gen_ops.lowering.imports import Imports
from gen_ops.lowering.names import ImplNames
from gen_ops.spec.model import (
    CountKind,
    DtypeRuleKind,
    InferOutput,
    InputKind,
    LaunchArgKind,
    OpSpec,
    ShapeKind,
    TypeVarKind,
)

# A literal shape longer than this is a module constant (``_SHAPE_<output>``),
# laid out by pyformat, rather than a list in the return statement: a
# 100,000-dim literal would otherwise be one line that only black could wrap.
_INLINE_SHAPE = 40


@dataclass(frozen=True)
class CallArgs:
    """The prototype's arguments passed on: inputs (and outputs) by
    position, attrs by name."""

    positional: tuple[str, ...]
    keywords: tuple[str, ...]


@dataclass(frozen=True)
class AuthorCall:
    """Look up the author's ``method``; raise NotImplementedError with
    ``message`` while no subclass defines it; call it with ``args``, and
    unpack the result into ``targets`` (none: return it)."""

    method: str
    message: str
    targets: tuple[str, ...]
    args: CallArgs


@dataclass(frozen=True)
class Expr:
    """One part of an output's metadata, by ``form``:

    - shapes: ``local`` (a name: the author's result or a module constant),
      ``literal`` (``dims``), ``attr`` (a list_int attr ``name``), ``infer``
      (``_infer.<name>(<args>)``: same_as, broadcast);
    - dtypes: ``local`` (the author's result, or a dtype attr ``name``),
      ``fixed`` (``DataType.<name>``), ``input`` (the input ``name``'s),
      ``dynamic_input`` (the one dtype of a dynamic input's instances),
      ``promote`` (the promotion of the inputs ``args``' dtypes),
      ``per_instance`` (a list: each instance's dtype of dynamic input
      ``name``);
    - counts: ``output_count`` (the node's, of IR output ``index``), ``len``
      (of the dynamic input ``name``), ``local`` (an int attr ``name``).
    """

    form: str
    name: str = ""
    args: tuple[str, ...] = ()
    dims: tuple[int, ...] = ()
    index: int = 0


@dataclass(frozen=True)
class OutputDesc:
    """``_rt.TensorDesc(shape, dtype)`` for one output; for a dynamic one a
    list of them, by ``form``: ``per_shape`` (one per shape the author
    gives), ``per_dtype`` (one per dtype in a list: the author's, or a list
    variable's), ``per_shape_dtype`` (pairs of both lists), ``per_count``
    (``count`` copies); ``one`` for a static output."""

    form: str
    shape: Expr
    dtype: Expr
    count: Expr | None = None


@dataclass(frozen=True)
class ShapeConstant:
    """``<name> = <literal>``, the literal laid out by pyformat."""

    name: str
    literal: str


@dataclass(frozen=True)
class Offset:
    """A flattened instance index: ``constant`` plus the instance counts of
    the dynamic inputs (or outputs) named in ``dynamic``."""

    constant: int
    dynamic: tuple[str, ...]


@dataclass(frozen=True)
class LaunchSlot:
    """One launch argument, by ``kind``: input, optional_input,
    dynamic_input, output, dynamic_output (``name`` at ``offset``),
    workspace (``size`` bytes) or attr (``name``, by value)."""

    kind: str
    name: str = ""
    offset: Offset = Offset(0, ())
    size: int = 0


@dataclass(frozen=True)
class LaunchBody:
    """``declare_launch_args``: ask ``launch_config(config_args)``, fill the
    ``slots`` in order, add the launch."""

    config_args: CallArgs
    slots: tuple[LaunchSlot, ...]
    # A foreign library's call (impl.library): ask library_key(config_args)
    # and launch ForeignLaunchInfo instead of launch_config's kernel.
    library: bool = False


@dataclass(frozen=True)
class AuthorPart:
    """What a partial infer_meta leaves to the author's subclass: its method
    (``infer_shapes`` or ``infer_dtypes``), the part and the outputs."""

    method: str
    part: str  # "shape" or "dtype"
    outputs: tuple[str, ...]


def author_parts(op: OpSpec) -> tuple[AuthorPart, ...]:
    """Note [Partial infer_meta]."""
    parts = []
    for part, method in (("shape", "infer_shapes"), ("dtype", "infer_dtypes")):
        left = tuple(r.output for r in op.infer_meta or () if getattr(r, part) is None)
        if left:
            parts.append(AuthorPart(method, part, left))
    return tuple(parts)


def prototype_args(op: OpSpec, names: ImplNames) -> CallArgs:
    return CallArgs(
        tuple(names.inputs[i.name] for i in op.inputs),
        tuple(a.name for a in op.attrs),
    )


def author_calls(
    op: OpSpec, names: ImplNames, base: str | None
) -> tuple[AuthorCall, ...]:
    """What the prototype asks the author's subclass: infer_meta when the
    spec declares none (and the call gives the result), else the parts a
    partial infer_meta leaves out."""
    args = prototype_args(op, names)
    if op.infer_meta is None:
        message = f"{op.op_type} has no infer_meta: define it in a subclass of {base}"
        return (AuthorCall("infer_meta", message, (), args),)
    return tuple(
        AuthorCall(
            ask.method,
            f"{op.op_type} leaves the {ask.part}s of {', '.join(ask.outputs)} to its "
            f"implementation: define {ask.method} in a subclass of {op.op_type}Base",
            tuple(f"_{name}_{ask.part}" for name in ask.outputs),
            args,
        )
        for ask in author_parts(op)
    )


def shape_constants(op: OpSpec) -> tuple[ShapeConstant, ...]:
    """The module constants of the long literal shapes (_INLINE_SHAPE)."""
    constants = []
    for rule in op.infer_meta or ():
        shape = rule.shape
        if shape is not None and _is_constant(rule):
            name = f"_SHAPE_{rule.output}"
            dims: PyTree = [str(d) for d in shape.dims]
            literal = layout(f"{name} = ", dims, "", 0)[len(f"{name} = ") :]
            constants.append(ShapeConstant(name, literal))
    return tuple(constants)


def _is_constant(rule: InferOutput) -> bool:
    shape = rule.shape
    return (
        shape is not None
        and shape.kind is ShapeKind.LITERAL
        and len(str(shape)) > _INLINE_SHAPE
    )


def _shape(rule: InferOutput, names: ImplNames, imports: Imports) -> Expr:
    shape = rule.shape
    if shape is None:  # the author's infer_shapes gave it
        return Expr("local", f"_{rule.output}_shape")
    if _is_constant(rule):
        return Expr("local", f"_SHAPE_{rule.output}")
    if shape.kind is ShapeKind.LITERAL:
        return Expr("literal", dims=shape.dims)
    if shape.kind is ShapeKind.ATTR:
        imports.module("builtins", "_b")
        return Expr("attr", shape.refs[0])
    imports.module("ge.custom_op.infer", "_infer")
    return Expr(
        "infer", shape.kind.value, args=tuple(names.inputs[r] for r in shape.refs)
    )


def _dtype(rule: InferOutput, op: OpSpec, names: ImplNames, imports: Imports) -> Expr:
    dtype = rule.dtype
    if dtype is None:  # the author's infer_dtypes gave it
        return Expr("local", f"_{rule.output}_dtype")
    if dtype.kind is DtypeRuleKind.FIXED:
        assert dtype.dtype is not None
        imports.module("ge.graph.types", "_types")
        return Expr("fixed", dtype.dtype.name)
    assert dtype.ref is not None
    if dtype.kind is DtypeRuleKind.ATTR:
        return Expr("local", dtype.ref)
    if dtype.kind is DtypeRuleKind.VAR:
        imports.module("ge.custom_op.infer", "_infer")
        return _var_dtype(op, dtype.ref, names)
    if op.input(dtype.ref).kind is InputKind.DYNAMIC:
        imports.module("ge.custom_op.infer", "_infer")
        return Expr("dynamic_input", names.inputs[dtype.ref])
    return Expr("input", names.inputs[dtype.ref])


def _var_dtype(op: OpSpec, var_name: str, names: ImplNames) -> Expr:
    """The dtype a list or promoted type variable gives (Note [Type variable
    kinds] in ge_ir/dtype_rules.py): read from the first input of each
    variable that is always there (semantics.dtypes checked there is one)."""
    var = next(v for v in op.type_vars if v.name == var_name)

    def source(name: str) -> str:
        item = next(
            i
            for i in op.inputs
            if i.dtype.var is not None
            and i.dtype.var.name == name
            and i.kind is not InputKind.OPTIONAL
        )
        return names.inputs[item.name]

    if var.kind is TypeVarKind.LIST:
        return Expr("per_instance", source(var.name))
    return Expr("promote", args=tuple(source(s) for s in var.promote))


def output_descs(
    op: OpSpec, names: ImplNames, imports: Imports
) -> tuple[OutputDesc, ...]:
    """The prototype's result: one TensorDesc (or list of them) per output."""
    assert op.infer_meta is not None
    imports.module("ge.runtime", "_rt")
    descs = []
    for index, (output, rule) in enumerate(zip(op.outputs, op.infer_meta)):
        shape, dtype = _shape(rule, names, imports), _dtype(rule, op, names, imports)
        listed = rule.dtype is None or dtype.form == "per_instance"
        if not output.dynamic:
            descs.append(OutputDesc("one", shape, dtype))
        elif rule.shape is None and listed:
            imports.module("builtins", "_b")
            descs.append(OutputDesc("per_shape_dtype", shape, dtype))
        elif rule.shape is None:
            descs.append(OutputDesc("per_shape", shape, dtype))
        elif listed:
            descs.append(OutputDesc("per_dtype", shape, dtype))
        else:
            imports.module("builtins", "_b")
            if output.count is None:
                imports.module("ge.custom_op.infer", "_infer")
                count = Expr("output_count", index=index)
            elif output.count.kind is CountKind.LEN:
                count = Expr("len", names.inputs[output.count.ref])
            else:
                count = Expr("local", output.count.ref)
            descs.append(OutputDesc("per_count", shape, dtype, count))
    return tuple(descs)


def _offsets(names: list[str], dynamic: list[bool]) -> list[Offset]:
    """The flattened instance index of each IR slot."""
    out: list[Offset] = []
    constant = 0
    before: tuple[str, ...] = ()
    for name, is_dynamic in zip(names, dynamic):
        out.append(Offset(constant, before))
        if is_dynamic:
            before += (name,)
        else:
            constant += 1
    return out


_INPUT_SLOT = {
    InputKind.REQUIRED: "input",
    InputKind.OPTIONAL: "optional_input",
    InputKind.DYNAMIC: "dynamic_input",
}


def launch_body(op: OpSpec, names: ImplNames, imports: Imports) -> LaunchBody:
    """declare_launch_args from ``impl.launch_args`` (or a library's
    ``call_args``): instance indices are flattened (a dynamic slot counts
    its instances)."""
    assert op.impl is not None
    library = op.impl.library
    launch_args = library.call_args if library else op.impl.launch_args
    in_names = [names.inputs[i.name] for i in op.inputs]
    out_names = [names.outputs[o.name] for o in op.outputs]
    in_offsets = dict(
        zip(
            (i.name for i in op.inputs),
            _offsets(in_names, [i.kind is InputKind.DYNAMIC for i in op.inputs]),
        )
    )
    out_offsets = dict(
        zip(
            (o.name for o in op.outputs),
            _offsets(out_names, [o.dynamic for o in op.outputs]),
        )
    )
    slots = []
    for arg in launch_args:
        if arg.kind is LaunchArgKind.WORKSPACE:
            assert arg.size is not None
            slots.append(LaunchSlot("workspace", size=arg.size))
            continue
        if arg.kind is LaunchArgKind.ATTR:
            slots.append(LaunchSlot("attr", str(arg.name)))
            continue
        if arg.kind is LaunchArgKind.INPUT:
            item = op.input(str(arg.name))
            dynamic = item.kind is InputKind.DYNAMIC
            offset = in_offsets[item.name]
            slot = LaunchSlot(_INPUT_SLOT[item.kind], names.inputs[item.name], offset)
        else:
            output = op.output(str(arg.name))
            dynamic = output.dynamic
            offset = out_offsets[output.name]
            kind = "dynamic_output" if dynamic else "output"
            slot = LaunchSlot(kind, names.outputs[output.name], offset)
        if dynamic or offset.dynamic:  # _b.enumerate, _b.len
            imports.module("builtins", "_b")
        slots.append(slot)
    config_args = CallArgs(tuple(in_names + out_names), tuple(a.name for a in op.attrs))
    return LaunchBody(config_args, tuple(slots), library is not None)
