"""Lower an OpSpec to its prototype and implementation base (ge_impl package).

Per op, ``python/ge_impl/<module>/<stem>.py`` holds:

- the ``@register_op`` prototype: its signature is the op's prototype under
  GE's register_op rules (ge-reference.md 4.2) and its body infers output
  metadata from the spec's ``infer_meta`` (or asks the author's subclass);
- ``<Op>Base``, the ``@register_op_impl`` base: the schema-bound signatures
  of the declared capabilities (ge-reference.md 4.4), with
  ``declare_launch_args`` written out from ``impl.launch_args``.

Method bodies use only underscore-prefixed module names, so no parameter
name can shadow what they call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ge_ir.attrs import python_annotation

from gen_ops.literals import PyTree, py_str
from gen_ops.model import (
    Capability,
    CountKind,
    DtypeRuleKind,
    InferOutput,
    InputKind,
    LaunchArg,
    LaunchArgKind,
    OpSpec,
    ShapeKind,
)
from gen_ops.lower_python import default_code
from gen_ops.names import impl_names
from gen_ops.pyformat import format_python, layout
from gen_ops.render import render


@dataclass(frozen=True)
class Param:
    name: str
    annotation: str
    default: str | None = None


@dataclass(frozen=True)
class Method:
    name: str
    positional: tuple[Param, ...]
    keyword: tuple[Param, ...]
    returns: str
    doc: str
    abstract: bool
    static: bool = False
    body: tuple[str, ...] = ()


@dataclass(frozen=True)
class ImplModule:
    op_type: str
    doc: str
    proto_name: str
    proto_positional: tuple[Param, ...]
    proto_keyword: tuple[Param, ...]
    proto_returns: str
    output_names: tuple[str, ...]
    proto_body: tuple[str, ...]
    base: str | None
    kernel: str | None
    methods: tuple[Method, ...]
    imports: tuple[str, ...]
    constants: tuple[str, ...] = ()  # module-level lines after KERNEL_NAME
    # The methods of the author's subclass the prototype calls (infer_meta, or
    # infer_shapes / infer_dtypes: Note [Partial infer_meta]), and the comment
    # above the dict that holds them.
    author_infer: tuple[str, ...] = ()
    author_comment: str = ""
    author_imports: tuple[str, ...] = ()  # of the scaffolded author module


def _input_annotation(kind: InputKind, tensor: str) -> str:
    if kind is InputKind.DYNAMIC:
        return f"list[{tensor}]"
    if kind is InputKind.OPTIONAL:
        return f"{tensor} | None"
    return tensor


def _attr_params(op: OpSpec, with_defaults: bool) -> tuple[Param, ...]:
    """Attr parameters; the prototype's list attrs take any Sequence, as their
    defaults are tuples (immutable), while the runtime passes lists."""
    params = []
    for attr in op.attrs:
        annotation = python_annotation(attr.type, tensor="GraphTensor")
        default = None
        if with_defaults and attr.default is not None and attr.default.value is None:
            annotation += " | None"
        if with_defaults and attr.type.is_list:
            annotation = annotation.replace("list[", "Sequence[")
        if with_defaults and attr.default is not None:
            default = default_code(attr.name, annotation, attr)
        params.append(Param(attr.name, annotation, default))
    # Keyword-only parameters with and without defaults may mix freely.
    return tuple(params)


def _offsets(names: list[str], dynamic: list[bool]) -> list[str]:
    """Flattened instance index of each IR slot, as a Python expression."""
    out: list[str] = []
    constant = 0
    terms: list[str] = []
    for name, is_dynamic in zip(names, dynamic):
        parts = ([str(constant)] if constant or not terms else []) + terms
        out.append(" + ".join(parts))
        if is_dynamic:
            terms.append(f"_b.len({name})")
        else:
            constant += 1
    return out


def _plus(base: str, term: str) -> str:
    return term if base == "0" else f"{base} + {term}"


# A literal shape longer than this is a module constant (``_SHAPE_<output>``),
# laid out by pyformat, rather than a list in the return statement: a
# 100,000-dim literal would otherwise be one line that only black could wrap.
_INLINE_SHAPE = 40


def _shape_constants(op: OpSpec) -> tuple[str, ...]:
    """The module constants of the long literal shapes (_INLINE_SHAPE)."""
    lines = []
    for rule in op.infer_meta or ():
        shape = rule.shape
        if shape is not None and shape.kind is ShapeKind.LITERAL:
            if len(str(shape)) > _INLINE_SHAPE:
                dims: PyTree = [str(d) for d in shape.dims]
                lines.append(layout(f"_SHAPE_{rule.output} = ", dims, "", 0))
    return tuple(lines)


def _shape_expr(rule: InferOutput, names: dict[str, str]) -> str:
    shape = rule.shape
    if shape is None:  # the author's infer_shapes gave it
        return f"_{rule.output}_shape"
    if shape.kind is ShapeKind.LITERAL:
        if len(str(shape)) > _INLINE_SHAPE:
            return f"_SHAPE_{rule.output}"
        return "[" + ", ".join(map(str, shape.dims)) + "]"
    if shape.kind is ShapeKind.ATTR:
        return f"_b.list({shape.refs[0]})"
    args = ", ".join(names[r] for r in shape.refs)
    return f"_infer.{shape.kind.value}({args})"


def _dtype_expr(rule: InferOutput, op: OpSpec, names: dict[str, str]) -> str:
    dtype = rule.dtype
    if dtype is None:  # the author's infer_dtypes gave it
        return f"_{rule.output}_dtype"
    if dtype.kind is DtypeRuleKind.FIXED:
        assert dtype.dtype is not None
        return f"_types.DataType.{dtype.dtype.name}"
    assert dtype.ref is not None
    if dtype.kind is DtypeRuleKind.ATTR:
        return dtype.ref
    source = op.input(dtype.ref)
    if source.kind is InputKind.DYNAMIC:
        return f"_infer.dtype_of({names[dtype.ref]})"
    return f"{names[dtype.ref]}.data_type"


@dataclass(frozen=True)
class AuthorPart:
    """What a partial infer_meta leaves to the author's subclass: its method
    (``infer_shapes`` or ``infer_dtypes``), the part and the outputs."""

    method: str
    part: str  # "shape" or "dtype"
    outputs: tuple[str, ...]


def _author_parts(op: OpSpec) -> tuple[AuthorPart, ...]:
    """Note [Partial infer_meta]: an output's rule may give only its shape or
    only its dtype. The prototype computes the declared parts and calls the
    author's ``infer_shapes`` / ``infer_dtypes`` (static methods of the
    subclass, with the prototype's parameters) for the rest: one value per
    output that lacks the part, in IR order (a tuple when there are several; a
    list per dynamic output, one item per instance)."""
    parts = []
    for part, method in (("shape", "infer_shapes"), ("dtype", "infer_dtypes")):
        left = tuple(r.output for r in op.infer_meta or () if getattr(r, part) is None)
        if left:
            parts.append(AuthorPart(method, part, left))
    return tuple(parts)


def _author_call(op: OpSpec, names: dict[str, str]) -> str:
    """The prototype's arguments, passed on: inputs by position, attrs by name."""
    return ", ".join(
        [names[i.name] for i in op.inputs] + [f"{a.name}={a.name}" for a in op.attrs]
    )


def _ask_author(op: OpSpec, method: str, message: str) -> list[str]:
    """Look up the author's ``method`` (Note [Partial infer_meta]); raise
    NotImplementedError with ``message`` while it is not defined."""
    return [
        f'_{method} = _AUTHOR.get("{method}")',
        f"if _{method} is None:",
        "    raise NotImplementedError(",
        f'        "{message}"',
        "    )",
    ]


def _proto_body(op: OpSpec, names: dict[str, str]) -> tuple[str, ...]:
    assert op.infer_meta is not None
    lines: list[str] = []
    for ask in _author_parts(op):
        lines += _ask_author(
            op,
            ask.method,
            f"{op.op_type} leaves the {ask.part}s of {', '.join(ask.outputs)} to "
            f"its implementation: define {ask.method} in a subclass of "
            f"{op.op_type}Base",
        )
        targets = ", ".join(f"_{name}_{ask.part}" for name in ask.outputs)
        lines.append(f"{targets} = _{ask.method}({_author_call(op, names)})")
    exprs = []
    for ir_index, (output, rule) in enumerate(zip(op.outputs, op.infer_meta)):
        shape, dtype = _shape_expr(rule, names), _dtype_expr(rule, op, names)
        desc = f"_rt.TensorDesc({shape}, {dtype})"
        if output.dynamic and rule.shape is None:
            desc = f"[_rt.TensorDesc(_s, {dtype}) for _s in {shape}]"
        elif output.dynamic and rule.dtype is None:
            desc = f"[_rt.TensorDesc({shape}, _d) for _d in {dtype}]"
        elif output.dynamic:
            if output.count is None:
                count = f"_infer.output_count({ir_index})"
            elif output.count.kind is CountKind.LEN:
                count = f"_b.len({names[output.count.ref]})"
            else:
                count = output.count.ref
            desc = f"[{desc} for _ in _b.range({count})]"
        exprs.append(desc)
    if len(exprs) == 1:
        return tuple(lines) + (f"return {exprs[0]}",)
    return tuple(lines) + ("return (",) + tuple(f"    {e}," for e in exprs) + (")",)


def _launch_body(
    op: OpSpec, in_names: dict[str, str], out_names: dict[str, str]
) -> tuple[str, ...]:
    assert op.impl is not None
    in_offsets = dict(
        zip(
            [i.name for i in op.inputs],
            _offsets(
                [in_names[i.name] for i in op.inputs],
                [i.kind is InputKind.DYNAMIC for i in op.inputs],
            ),
        )
    )
    out_offsets = dict(
        zip(
            [o.name for o in op.outputs],
            _offsets(
                [out_names[o.name] for o in op.outputs], [o.dynamic for o in op.outputs]
            ),
        )
    )
    call = ", ".join(
        [in_names[i.name] for i in op.inputs]
        + [out_names[o.name] for o in op.outputs]
        + [f"{a.name}={a.name}" for a in op.attrs]
    )
    lines = [
        f"_config = self.launch_config({call})",
        "_ctx = _cop.get_declare_launch_args_ctx()",
        "_args = _ctx.create_kernel_args()",
    ]
    for arg in op.impl.launch_args:
        if arg.kind is LaunchArgKind.WORKSPACE:
            lines.append(f"_args.append_workspace(_ctx.malloc_workspace({arg.size}))")
        elif arg.kind is LaunchArgKind.ATTR:
            lines.append(f"_args.append_scalar({arg.name})")
        elif arg.kind is LaunchArgKind.INPUT:
            item = op.input(arg.name or "")
            name, base = in_names[item.name], in_offsets[item.name]
            if item.kind is InputKind.DYNAMIC:
                lines += [
                    f"for _i, _t in _b.enumerate({name}):",
                    f"    _args.append_input({_plus(base, '_i')}, _t)",
                ]
            elif item.kind is InputKind.OPTIONAL:
                lines += [
                    f"if {name} is None:",
                    "    _args.append_scalar(0)  # absent optional input: null address",
                    "else:",
                    f"    _args.append_input({base}, {name})",
                ]
            else:
                lines.append(f"_args.append_input({base}, {name})")
        else:
            output = op.output(arg.name or "")
            name, base = out_names[output.name], out_offsets[output.name]
            if output.dynamic:
                lines += [
                    f"for _i, _t in _b.enumerate({name}):",
                    f"    _args.append_output({_plus(base, '_i')}, _t)",
                ]
            else:
                lines.append(f"_args.append_output({base}, {name})")
    lines += [
        "_ctx.add_launch(",
        "    _cop.AnnotatedKernelLaunchInfo(",
        "        kernel_name=KERNEL_NAME,",
        "        kernel_bin=_config.kernel_bin,",
        "        block_dim=_config.block_dim,",
        "        stream_id=_ctx.get_stream_id(),",
        "    ),",
        "    _args,",
        ")",
    ]
    return tuple(lines)


def lower(op: OpSpec) -> ImplModule:
    names = impl_names(op)
    proto_pos = tuple(
        Param(names.inputs[i.name], _input_annotation(i.kind, "TensorDesc"))
        for i in op.inputs
    )
    proto_kw = _attr_params(op, with_defaults=True)
    returns = [("list[TensorDesc]" if o.dynamic else "TensorDesc") for o in op.outputs]
    proto_returns = (
        "None"
        if not returns
        else returns[0] if len(returns) == 1 else "tuple[" + ", ".join(returns) + "]"
    )
    base = f"{op.op_type}Base" if op.impl else None
    call = ", ".join(
        [names.inputs[i.name] for i in op.inputs]
        + [f"{a.name}={a.name}" for a in op.attrs]
    )
    if op.infer_meta is not None:
        proto_body = _proto_body(op, names.inputs)
        author_infer = tuple(ask.method for ask in _author_parts(op))
    else:
        proto_body = tuple(
            _ask_author(
                op,
                "infer_meta",
                f"{op.op_type} has no infer_meta: define it in a subclass of {base}",
            )
            + [f"return _infer_meta({call})"]
        )
        author_infer = ("infer_meta",) if op.impl else ()
    methods: list[Method] = []
    runtime_pos = tuple(
        Param(names.inputs[i.name], _input_annotation(i.kind, "Tensor"))
        for i in op.inputs
    )
    runtime_out = tuple(
        Param(names.outputs[o.name], "list[Tensor]" if o.dynamic else "Tensor")
        for o in op.outputs
    )
    attrs_kw = _attr_params(op, with_defaults=False)
    if op.impl is not None:
        if op.infer_meta is None:
            methods.append(
                Method(
                    "infer_meta",
                    proto_pos,
                    attrs_kw,
                    proto_returns,
                    "Infer output metadata (the spec declares no infer_meta rules).",
                    abstract=True,
                    static=True,
                )
            )
        for ask in _author_parts(op):
            methods.append(
                Method(
                    ask.method,
                    proto_pos,
                    attrs_kw,
                    _part_returns(op, ask),
                    _part_doc(ask),
                    abstract=True,
                    static=True,
                )
            )
        if op.impl.has(Capability.EXECUTE):
            methods.append(
                Method(
                    "execute",
                    runtime_pos,
                    attrs_kw,
                    "None",
                    "Run the op: allocate the outputs with get_execute_ctx() and "
                    "launch the kernel.",
                    abstract=True,
                )
            )
        if op.impl.has(Capability.COMPILE):
            methods.append(
                Method(
                    "compile",
                    runtime_pos + runtime_out,
                    attrs_kw,
                    "None",
                    "Prepare the kernel for these shapes and dtypes (once per key).",
                    abstract=True,
                )
            )
        if op.impl.has(Capability.DECLARE_LAUNCH_ARGS):
            if op.impl.launch_args:
                methods.append(
                    Method(
                        "launch_config",
                        runtime_pos + runtime_out,
                        attrs_kw,
                        "LaunchConfig",
                        "The kernel binary and block_dim that declare_launch_args uses.",
                        abstract=True,
                    )
                )
                slots = ", ".join(_slot_words(a) for a in op.impl.launch_args)
                methods.append(
                    Method(
                        "declare_launch_args",
                        runtime_pos + runtime_out,
                        attrs_kw,
                        "None",
                        f"Declare the launch of {op.impl.kernel}; slots: {slots}.",
                        abstract=False,
                        body=_launch_body(op, names.inputs, names.outputs),
                    )
                )
            else:
                methods.append(
                    Method(
                        "declare_launch_args",
                        runtime_pos + runtime_out,
                        attrs_kw,
                        "None",
                        "Declare the kernel launches and their argument slots.",
                        abstract=True,
                    )
                )
    text = (
        " ".join(
            p.annotation
            for p in proto_pos
            + proto_kw
            + tuple(x for m in methods for x in m.positional + m.keyword)
        )
        + " "
        + proto_returns
        + " "
        + " ".join(m.returns for m in methods)
    )
    imports = _imports(op, text, methods)
    author_text = " ".join(
        " ".join(p.annotation for p in m.positional + m.keyword) + " " + m.returns
        for m in methods
        if m.abstract
    )
    return ImplModule(
        op_type=op.op_type,
        doc=op.doc,
        proto_name=f"{op.file_stem}_infer_meta",
        proto_positional=proto_pos,
        proto_keyword=proto_kw,
        proto_returns=proto_returns,
        output_names=tuple(o.name for o in op.outputs),
        proto_body=proto_body,
        base=base,
        kernel=op.impl.kernel if op.impl else None,
        methods=tuple(methods),
        imports=imports,
        constants=_shape_constants(op),
        author_infer=author_infer,
        author_comment=(
            f"# The author's {' and '.join(author_infer)}, set when a subclass of "
            f"{base} defines {'it' if len(author_infer) == 1 else 'them'}."
            if author_infer
            else ""
        ),
        author_imports=_author_imports(author_text),
    )


def _part_returns(op: OpSpec, ask: AuthorPart) -> str:
    """infer_shapes / infer_dtypes' return annotation: one value per output
    that lacks the part, a list of them for a dynamic output."""
    one = "list[int]" if ask.part == "shape" else "DataType"
    kinds = [f"list[{one}]" if op.output(name).dynamic else one for name in ask.outputs]
    return kinds[0] if len(kinds) == 1 else "tuple[" + ", ".join(kinds) + "]"


def _part_doc(ask: AuthorPart) -> str:
    several = len(ask.outputs) > 1
    return (
        f"The {ask.part}{'s' if several else ''} of output{'s' if several else ''} "
        + ", ".join(ask.outputs)
        + (", in IR order" if several else "")
        + "; infer_meta in the spec declares everything else."
    )


def _slot_words(arg: LaunchArg) -> str:
    if arg.kind is LaunchArgKind.WORKSPACE:
        return f"workspace of {arg.size} bytes"
    return f"{arg.kind.value} {arg.name}"


def _imports(op: OpSpec, text: str, methods: list[Method]) -> tuple[str, ...]:
    def uses(name: str) -> bool:
        return _uses(text, name)

    bodies = _all_bodies(op, methods)
    lines = []
    if methods:
        lines.append("import abc")
    # Bodies reach builtins through _b, so no parameter can shadow them.
    if any("_b." in line for line in bodies):
        lines.append("import builtins as _b")
    if uses("Sequence"):
        lines.append("from collections.abc import Sequence")
    if op.impl and (op.infer_meta is None or _author_parts(op)):
        lines.append("from typing import Any")
    if lines:
        lines.append("")
    lines.append("import ge.custom_op as _cop")
    if any("_infer." in line for line in bodies):
        lines.append("import ge.custom_op.infer as _infer")
    if any("_types." in line for line in bodies):
        lines.append("import ge.graph.types as _types")
    lines.append("import ge.runtime as _rt")
    if uses("LaunchConfig"):
        lines.append("from ge.custom_op import LaunchConfig")
    return tuple(lines + _type_imports(text))


def _uses(text: str, name: str) -> bool:
    return re.search(rf"\b{name}\b", text) is not None


def _type_imports(text: str) -> list[str]:
    """Imports of the ge.graph and ge.runtime names ``text`` mentions."""
    lines = []
    graph_names = [n for n in ("DataType", "NamedAttrs") if _uses(text, n)]
    if graph_names:
        lines.append(f"from ge.graph import {', '.join(graph_names)}")
    if _uses(text, "GraphTensor"):
        lines.append("from ge.graph import Tensor as GraphTensor")
    runtime = [n for n in ("Tensor", "TensorDesc") if _uses(text, n)]
    if runtime:
        lines.append(f"from ge.runtime import {', '.join(runtime)}")
    return lines


def _author_imports(text: str) -> tuple[str, ...]:
    """The scaffolded author module's imports: what its method signatures
    (``text``) mention, and register_op_impl."""
    names = ["LaunchConfig"] if _uses(text, "LaunchConfig") else []
    lines = []
    if _uses(text, "Sequence"):
        lines += ["from collections.abc import Sequence", ""]
    lines.append(f"from ge.custom_op import {', '.join(names + ['register_op_impl'])}")
    return tuple(lines + _type_imports(text))


def _all_bodies(op: OpSpec, methods: list[Method]) -> list[str]:
    names = impl_names(op)
    body = list(_proto_body(op, names.inputs)) if op.infer_meta is not None else []
    return body + [line for m in methods for line in m.body]


def renders(op: OpSpec) -> bool:
    """Ops without infer_meta and without impl get no impl module."""
    return op.infer_meta is not None or op.impl is not None


def files(ops: Sequence[OpSpec]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    modules: set[str] = set()
    for op in ops:
        if not renders(op):
            continue
        modules.add(op.module)
        text = render(
            "python/impl.py.j2",
            m=lower(op),
            banner=f"Generated by gen-ops from {op.label}. Do not edit.",
        )
        out.append(
            (f"python/ge_impl/{op.module}/{op.file_stem}.py", format_python(text))
        )
    for module in sorted(modules):
        out.append(
            (
                f"python/ge_impl/{module}/__init__.py",
                format_python(
                    render(
                        "python/impl_init.py.j2",
                        module=module,
                        banner=f"Generated by gen-ops from the specs of module {module}. "
                        "Do not edit.",
                    )
                ),
            )
        )
    if modules:
        out.append(
            (
                "python/ge_impl/__init__.py",
                render(
                    "python/impl_init.py.j2",
                    module=None,
                    banner="Generated by gen-ops. Do not edit.",
                ),
            )
        )
    return out
