"""Lower an OpSpec to its prototype and implementation base (package ge_impl).

Per op, ``python/ge_impl/<module>/<stem>.py`` holds:

- the ``@register_op`` prototype: its signature is the op's prototype under
  GE's register_op rules (docs/ge-compat.md, "register_op") and its body
  infers output metadata from the spec's ``infer_meta``, or asks the
  author's subclass (Note [Partial infer_meta] in ``impl_bodies``);
- ``<Op>Base``, the ``@register_op_impl`` base: the schema-bound signatures
  of the declared capabilities (docs/ge-compat.md, "Schema-bound
  signatures"), with ``declare_launch_args`` written out from
  ``impl.launch_args``.

Method bodies use only underscore-prefixed module names, so no parameter
name can shadow what they call. The templates (``python/impl.py.j2``,
``python/author.py.j2``, ``python/impl_code.j2``) write the code.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from gen_ops.emit.outputs import Shared
from gen_ops.emit.pyformat import format_python
from gen_ops.emit.render import render
from gen_ops.lowering import layout
from gen_ops.lowering.dtype_table import DtypeTable, dtype_table
from gen_ops.lowering.facts import OpFacts
from gen_ops.lowering.impl_bodies import (
    AuthorCall,
    AuthorPart,
    LaunchBody,
    OutputDesc,
    ShapeConstant,
    author_calls,
    author_parts,
    launch_body,
    output_descs,
    shape_constants,
)
from gen_ops.lowering.imports import (
    Both,
    ImportLine,
    Imports,
    NameRecorder,
    bound_names,
)
from gen_ops.lowering.names import ImplNames, impl_names
from gen_ops.lowering.signature import Param, attr_annotation, default_code
from gen_ops.spec.model import Capability, InputKind, LaunchArg, LaunchArgKind, OpSpec


@dataclass(frozen=True)
class Method:
    """A method of the implementation base (and of the author's stub when
    ``abstract``)."""

    name: str
    positional: tuple[Param, ...]
    keyword: tuple[Param, ...]
    returns: str
    doc: str
    abstract: bool
    static: bool = False
    launch: LaunchBody | None = None  # declare_launch_args written out


@dataclass(frozen=True)
class Prototype:
    """The ``@register_op`` function. Its body asks the author's subclass
    (``asks``), then returns ``results``; with no results (no infer_meta),
    the last ask returns the author's."""

    name: str
    positional: tuple[Param, ...]
    keyword: tuple[Param, ...]
    returns: str
    output_names: tuple[str, ...]
    # The inputs' IR names, when a parameter had to be renamed (else empty).
    input_names: tuple[str, ...]
    # (output, input) for each output with reuse_input (Note [Reuse input]).
    reuse_inputs: tuple[tuple[str, str], ...]
    # The spec's elementwise expression (Note [Element-wise expressions]).
    elementwise: str | None
    asks: tuple[AuthorCall, ...]
    results: tuple[OutputDesc, ...] | None


@dataclass(frozen=True)
class ImplModule:
    op_type: str
    origin: str  # the spec, as the banner names it
    base: str | None  # the implementation base, for ops with an impl
    kernel: str | None
    library_function: str | None  # impl.library's function
    imports: tuple[tuple[ImportLine, ...], ...]
    constants: tuple[ShapeConstant, ...]
    # The methods of the author's subclass the prototype calls (infer_meta,
    # or infer_shapes / infer_dtypes: Note [Partial infer_meta]).
    author_methods: tuple[str, ...]
    proto: Prototype
    dtypes: DtypeTable
    methods: tuple[Method, ...]
    # The scaffolded author module: its imports, and where the base is.
    author_imports: tuple[tuple[ImportLine, ...], ...]


def _tensor(
    kind: InputKind | None, tensor: str, imports: NameRecorder, dynamic: bool = False
) -> str:
    """A positional parameter's annotation: an input's of ``kind``, or an
    output's (``kind`` None), ``dynamic`` or not."""
    imports.name("ge.runtime", tensor)
    if kind is InputKind.DYNAMIC or dynamic:
        return f"list[{tensor}]"
    if kind is InputKind.OPTIONAL:
        return f"{tensor} | None"
    return tensor


def _proto_attrs(op: OpSpec, imports: NameRecorder) -> tuple[Param, ...]:
    """The prototype's attrs, with their defaults: list attrs take any
    Sequence, as their defaults are tuples (immutable). Keyword-only
    parameters with and without defaults may mix freely."""
    params = []
    for attr in op.attrs:
        annotation = attr_annotation(attr.type, imports, "Sequence", "GraphTensor")
        default = None
        if attr.default is not None:
            if attr.default.value is None:
                annotation += " | None"
            default = default_code(attr.name, annotation, attr)
        params.append(Param(attr.name, annotation, default))
    return tuple(params)


def _method_attrs(op: OpSpec, imports: NameRecorder) -> tuple[Param, ...]:
    """The methods' attrs: the runtime passes lists, and every attr."""
    return tuple(
        Param(a.name, attr_annotation(a.type, imports, "list", "GraphTensor"))
        for a in op.attrs
    )


def _descs(op: OpSpec, names: ImplNames, imports: NameRecorder) -> tuple[Param, ...]:
    return tuple(
        Param(names.inputs[i.name], _tensor(i.kind, "TensorDesc", imports))
        for i in op.inputs
    )


def _proto_returns(op: OpSpec, imports: NameRecorder) -> str:
    returns = ["list[TensorDesc]" if o.dynamic else "TensorDesc" for o in op.outputs]
    if not returns:
        return "None"
    imports.name("ge.runtime", "TensorDesc")
    return returns[0] if len(returns) == 1 else "tuple[" + ", ".join(returns) + "]"


def _part_returns(op: OpSpec, ask: AuthorPart, imports: NameRecorder) -> str:
    """infer_shapes / infer_dtypes' return annotation: one value per output
    that lacks the part, a list of them for a dynamic output."""
    one = "list[int]"
    if ask.part == "dtype":
        one = "DataType"
        imports.name("ge.graph", "DataType")
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


def _infer_methods(op: OpSpec, names: ImplNames, imports: NameRecorder) -> list[Method]:
    """The static methods the prototype asks the author for (abstract)."""
    methods = []
    attrs = _method_attrs(op, imports)
    if op.infer_meta is None:
        methods.append(
            Method(
                "infer_meta",
                _descs(op, names, imports),
                attrs,
                _proto_returns(op, imports),
                "Infer output metadata (the spec declares no infer_meta rules).",
                abstract=True,
                static=True,
            )
        )
    for ask in author_parts(op):
        methods.append(
            Method(
                ask.method,
                _descs(op, names, imports),
                attrs,
                _part_returns(op, ask, imports),
                _part_doc(ask),
                abstract=True,
                static=True,
            )
        )
    return methods


def _runtime_params(
    op: OpSpec, names: ImplNames, with_outputs: bool, imports: NameRecorder
) -> tuple[Param, ...]:
    """A capability method's positional parameters: the runtime's tensors of
    the inputs, and of the outputs for compile and declare_launch_args."""
    params = [
        Param(names.inputs[i.name], _tensor(i.kind, "Tensor", imports))
        for i in op.inputs
    ]
    if with_outputs:
        params += [
            Param(names.outputs[o.name], _tensor(None, "Tensor", imports, o.dynamic))
            for o in op.outputs
        ]
    return tuple(params)


def _capability_methods(
    op: OpSpec, names: ImplNames, impl: Imports, author: Imports
) -> list[Method]:
    """The schema-bound methods of the declared capabilities: execute takes
    the inputs, the others the inputs and outputs; attrs keyword-only."""
    assert op.impl is not None
    abstract, generated = Both(impl, author), impl

    def method(name: str, returns: str, doc: str, outputs: bool = True) -> Method:
        params = _runtime_params(op, names, outputs, abstract)
        attrs = _method_attrs(op, abstract)
        return Method(name, params, attrs, returns, doc, abstract=True)

    methods = []
    if op.impl.has(Capability.EXECUTE):
        doc = (
            "Run the op: allocate the outputs with get_execute_ctx() and launch "
            "the kernel."
        )
        methods.append(method("execute", "None", doc, outputs=False))
    if op.impl.has(Capability.COMPILE):
        doc = "Prepare the kernel for these shapes and dtypes (once per key)."
        methods.append(method("compile", "None", doc))
    if op.impl.has(Capability.DECLARE_LAUNCH_ARGS) and op.impl.launch_args:
        abstract.name("ge.custom_op", "LaunchConfig")
        doc = "The kernel binary and block_dim that declare_launch_args uses."
        methods.append(method("launch_config", "LaunchConfig", doc))
        slots = ", ".join(_slot_words(a) for a in op.impl.launch_args)
        methods.append(
            Method(
                "declare_launch_args",
                _runtime_params(op, names, True, generated),
                _method_attrs(op, generated),
                "None",
                f"Declare the launch of {op.impl.kernel}; slots: {slots}.",
                abstract=False,
                launch=launch_body(op, names, impl),
            )
        )
    elif op.impl.has(Capability.DECLARE_LAUNCH_ARGS) and op.impl.library:
        methods += _library_methods(op, names, impl, abstract, method)
    elif op.impl.has(Capability.DECLARE_LAUNCH_ARGS):
        doc = "Declare the kernel launches and their argument slots."
        methods.append(method("declare_launch_args", "None", doc))
    return methods


def _library_methods(
    op: OpSpec,
    names: ImplNames,
    impl: Imports,
    abstract: Both,
    method: Callable[[str, str, str], Method],
) -> list[Method]:
    """library_key (the author's) and declare_launch_args calling the
    library's function with impl.library.call_args."""
    assert op.impl is not None and op.impl.library is not None
    library = op.impl.library
    doc = (
        "The key of the library these tensors use: one kept with "
        "add_library (in compile, say); serialize stores it under this key."
    )
    args = ", ".join(_slot_words(a) for a in library.call_args)
    return [
        method("library_key", "str", doc),
        Method(
            "declare_launch_args",
            _runtime_params(op, names, True, impl),
            _method_attrs(op, impl),
            "None",
            f"Declare the call of the library's {library.function}({args}, stream).",
            abstract=False,
            launch=launch_body(op, names, impl),
        ),
    ]


def _prototype(
    op: OpSpec, names: ImplNames, imports: Imports, base: str | None
) -> Prototype:
    positional = _descs(op, names, imports)
    ir_names = tuple(i.name for i in op.inputs)
    renamed = tuple(p.name for p in positional[: len(ir_names)]) != ir_names
    return Prototype(
        name=f"{op.file_stem}_infer_meta",
        positional=positional,
        keyword=_proto_attrs(op, imports),
        returns=_proto_returns(op, imports),
        output_names=tuple(o.name for o in op.outputs),
        input_names=ir_names if renamed else (),
        reuse_inputs=tuple(
            (o.name, o.reuse_input) for o in op.outputs if o.reuse_input is not None
        ),
        elementwise=op.elementwise.text if op.elementwise is not None else None,
        asks=author_calls(op, names, base),
        results=output_descs(op, names, imports) if op.infer_meta is not None else None,
    )


def lower(op: OpSpec) -> ImplModule:
    names = impl_names(op)
    imports, author = Imports(), Imports()
    imports.module("ge.custom_op", "_cop")  # register_op
    base = f"{op.op_type}Base" if op.impl else None
    proto = _prototype(op, names, imports, base)
    methods: list[Method] = []
    if op.impl is not None:
        imports.module("abc")  # the base is an abc.ABC
        methods += _infer_methods(op, names, Both(imports, author))
        methods += _capability_methods(op, names, imports, author)
        author.name("ge.custom_op", "register_op_impl")
        author.name(layout.impl_import_name(op), str(base))
    author_methods = tuple(a.method for a in proto.asks) if op.impl else ()
    if author_methods:
        imports.name("typing", "Any")  # _AUTHOR's values, __init_subclass__
    return ImplModule(
        op_type=op.op_type,
        origin=op.label,
        base=base,
        kernel=op.impl.kernel if op.impl else None,
        library_function=(
            op.impl.library.function if op.impl and op.impl.library else None
        ),
        imports=imports.sections(),
        constants=shape_constants(op),
        author_methods=author_methods,
        proto=proto,
        dtypes=dtype_table(op),
        methods=tuple(methods),
        author_imports=author.sections(),
    )


def author_imported_names(op: OpSpec) -> frozenset[str]:
    """The names ``op``'s author module imports, which its class, named
    after the op, would hide (E304); none without an impl."""
    return bound_names(lower(op).author_imports) if op.impl else frozenset()


def renders(op: OpSpec) -> bool:
    """Ops without infer_meta and without impl get no impl module."""
    return op.infer_meta is not None or op.impl is not None


def op_files(op: OpSpec) -> list[tuple[str, str]]:
    """The op's prototype and implementation base, if it has any."""
    if not renders(op):
        return []
    text = render("python/impl.py.j2", m=lower(op))
    return [(layout.impl_module(op), format_python(text))]


def module_files(ops: Sequence[OpFacts]) -> list[Shared]:
    """The ``__init__.py`` of each module with an impl module, and the root's."""
    modules = sorted({op.module for op in ops if op.impl_renders})
    out = [
        Shared(layout.impl_package(module), module, partial(_package, module))
        for module in modules
    ]
    if modules:
        out.append(Shared(layout.IMPL_ROOT_PACKAGE, None, partial(_package, None)))
    return out


def _package(module: str | None) -> str:
    """A module's ``__init__.py`` (None: the root's, left as rendered)."""
    text = render("python/impl_init.py.j2", module=module)
    return text if module is None else format_python(text)
