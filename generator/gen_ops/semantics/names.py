"""Names (E3xx, W901, W902, W904): what a module, an op type and each element
may be called, and the notes for names the generated APIs change.

Which Python name each element gets is decided by ``gen_ops.lowering.names`` (Note
[Keyword renaming]); which members REG_OP declares by ``gen_ops.lowering.reg_op``.
Here those decisions are checked and reported.
"""

from __future__ import annotations

from ge_ir.names import RESERVED_NODE_TYPES, module_name_refusal
from gen_ops.lowering.imports import may_be_imported
from gen_ops.lowering.lower_impl import author_imported_names
from gen_ops.lowering.lower_python import imported_names
from gen_ops.lowering.names import (
    CPP_KEYWORDS,
    PYTHON_KEYWORDS,
    ROLE_PREFIX,
    impl_body_names,
    python_names,
)
from gen_ops.lowering.reg_op import ge_names_of, member_clashes
from gen_ops.semantics.context import Checker
from gen_ops.spec.model import Attr, Impl, InferOutput, OpSpec

DEFAULT_MODULE = "custom"


def module_name(ctx: Checker) -> str:
    """The spec's module (E304 when Python or the runtime cannot have it)."""
    module: str = ctx.data.get("module", DEFAULT_MODULE)
    if module in PYTHON_KEYWORDS:
        ctx.report(
            "E304",
            ("module",),
            f"module '{module}' is a Python keyword; "
            f"'from ge.es.{module} import ...' would not parse",
            "choose another module name",
        )
    elif isinstance(module, str) and module_name_refusal(module) is not None:
        ctx.report(
            "E304",
            ("module",),
            str(module_name_refusal(module)),
            "choose another module name: a letter first, and not a name of "
            "ge.es itself (docs/spec-reference.md lists them)",
        )
    return module


def check_op_type(ctx: Checker) -> None:
    """E308 for a node type the runtime reserves; E304 for a Python or C++
    keyword (lower-case op types are GE's too: ``phony_1i_1o``) (the names the generated code needs: ``check_op_type_hides``).
    """
    op = ctx.op
    if op in RESERVED_NODE_TYPES:
        ctx.report(
            "E308",
            ("op",),
            f"op type '{op}' is a node type the runtime itself creates or "
            "treats specially (" + ", ".join(sorted(RESERVED_NODE_TYPES)) + ")",
            f"choose another op type, e.g. {op}Custom",
        )
    elif op in PYTHON_KEYWORDS:
        ctx.report(
            "E304",
            ("op",),
            f"op type '{op}' is a Python keyword; the builder function "
            "could not be defined",
            "choose another op type",
        )
    elif op in CPP_KEYWORDS:
        ctx.report(
            "E304",
            ("op",),
            f"op type '{op}' is a C++ keyword; REG_OP's class and the C++ ES "
            "function could not be declared",
            "choose another op type",
        )


def check_op_type_hides(ctx: Checker, op: OpSpec) -> None:
    """E304 for an op type that would hide a name its generated code needs:
    a GE name REG_OP refers to (Note [Names REG_OP refers to] in reg_op), or
    a name the builder module or the author module imports (the function
    or class named after the op would take its place)."""
    if op.op_type in ge_names_of(op):
        user = "REG_OP's expansion refers to (GE's C++ API)"
    elif not may_be_imported(op.op_type):
        return  # Note [Names an op type could hide] in imports: no lowering needed
    elif op.op_type in imported_names(op):
        user = "its builder module imports"
    elif op.op_type in author_imported_names(op):
        user = "its author module imports"
    else:
        return
    ctx.report(
        "E304",
        op.span,
        f"op type '{op.op_type}' is a name {user}; the op's class or function "
        "would hide it",
        "choose another op type",
    )


def check_unique(ctx: Checker, key: str) -> None:
    """E301: names are unique within ``inputs``, ``outputs``, ``attrs`` or
    ``graphs``."""
    seen: dict[str, int] = {}
    for i, item in enumerate(ctx.data.get(key, [])):
        name = item["name"]
        if name in seen:
            ctx.report(
                "E301",
                (key, i, "name"),
                f"{key[:-1]} '{name}' is declared twice (also {key}[{seen[name]}])",
                "give each a distinct name",
            )
        else:
            seen[name] = i


def check_attrs_bound_by_name(
    ctx: Checker,
    attrs: list[Attr],
    infer: tuple[InferOutput, ...] | None,
    impl: Impl | None,
) -> None:
    """E304: with infer_meta or impl, register_op and register_op_impl take
    attrs as keyword parameters of exactly their names, so an attr cannot be
    a Python keyword (nor ``self`` when there are implementation methods),
    nor a name the generated bodies read (gen_ops.lowering.names.impl_body_names)."""
    if infer is None and impl is None:
        return
    outputs = [o["name"] for o in ctx.data.get("outputs", [])]
    body = impl_body_names(outputs)
    for i, attr in enumerate(attrs):
        if attr.name in PYTHON_KEYWORDS:
            what = "a Python keyword"
        elif impl is not None and attr.name == "self":
            what = "self, the implementation's own parameter"
        elif attr.name in body:
            what = "a name the generated prototype or methods use for themselves"
        else:
            continue
        ctx.report(
            "E304",
            ("attrs", i, "name"),
            f"attr '{attr.name}' is {what}; register_op and register_op_impl bind "
            "attrs by name, so no prototype or implementation method could take it",
            "rename the attr (the op can keep it only without infer_meta and impl)",
        )


def check_reg_op_members(ctx: Checker, op: OpSpec) -> None:
    """E306/E307: members GE's REG_OP would declare twice, or that the system
    headers define as macros (gen_ops.lowering.reg_op)."""
    for clash in member_clashes(op):
        if clash.other is None:
            ctx.report(
                "E307",
                clash.span,
                f"REG_OP would declare '{clash.member}', which the C/C++ system "
                "headers define as a macro",
                "rename it",
            )
        else:
            ctx.report(
                "E306",
                clash.span,
                f"REG_OP would declare '{clash.member}' twice (also for "
                f"{clash.other})",
                "rename one of the two",
            )


def naming_notes(ctx: Checker, op: OpSpec) -> None:
    """W901/W904 for every name the Python builder cannot keep as written
    (gen_ops.lowering.names decides), W902 for C++ keywords GE's C/C++ API renames."""
    spans = {
        **{("input", i.name): i.span for i in op.inputs},
        **{("num", o.name): o.span for o in op.outputs},
        **{("output", o.name): o.span for o in op.outputs},
        **{("graph", g.name): g.span for g in op.graphs},
        **{("attr", a.name): a.span for a in op.attrs},
    }
    names = python_names(op)
    if names.node_name_taken is not None:
        role, ir_name = names.node_name_taken
        ctx.report(
            "W904",
            spans[names.node_name_taken],
            f"{'output' if role == 'num' else role} '{ir_name}' takes the Python "
            f"parameter name 'name', so the builder's node-name keyword is called "
            f"'{names.node_name}'",
        )
    for rename in names.renames:
        span = spans[(rename.role, rename.ir_name)]
        role = "output" if rename.role == "num" else rename.role
        if rename.reason == "keyword":
            ctx.report(
                "W901",
                span,
                f"{role} '{rename.ir_name}' is a Python keyword; the Python API "
                f"calls it '{rename.py_name}' (GE's rule)",
            )
            continue
        what = (
            f"the count parameter of output '{rename.ir_name}'"
            if rename.role == "num"
            else f"{role} '{rename.ir_name}'"
        )
        ctx.report(
            "W904",
            span,
            f"{what} is called '{rename.py_name}' in the Python API, as its name "
            "is taken",
        )
    for role, items in (
        ("input", op.inputs),
        ("output", op.outputs),
        ("attr", op.attrs),
        ("graph", op.graphs),
    ):
        for item in items:
            if item.name in CPP_KEYWORDS and item.name not in PYTHON_KEYWORDS:
                ctx.report(
                    "W902",
                    item.span,
                    f"{role} '{item.name}' is a C++ keyword; GE's C/C++ ES API "
                    f"calls it '{ROLE_PREFIX[role]}{item.name}'",
                )
