"""The REG_OP chain of an op as data: ``REG_OP(<op_type>)``, one element
macro per input, output, attr, graph and type variable in IR order, and its
end. The header prints it (``lower_cpp``) and so does the op's reference
page (``lower_docs``); which macro each element gets is ``reg_op``'s
decision, a default's C++ spelling ``literals``'."""

from __future__ import annotations

from dataclasses import dataclass

from gen_ops.emit.literals import cpp_default
from gen_ops.lowering.reg_op import RegOpMacro, dtype_argument, elements, type_var_range
from gen_ops.spec.model import Attr, Input, OpSpec, Output, Subgraph, TypeVar


@dataclass(frozen=True)
class RegOpElement:
    """``.<macro>(<name>[, <type_arg>[, <default>]])``."""

    macro: str  # a RegOpMacro's name
    name: str
    type_arg: str | None = None  # the dtype argument, or the attr's GE type
    default: str | None = None  # ATTR's default, as C++ spells it


@dataclass(frozen=True)
class RegOpView:
    """``REG_OP(<op_type>)``, its elements in IR order, and its end."""

    op_type: str
    elements: tuple[RegOpElement, ...]


def _element(
    macro: RegOpMacro, item: Input | Output | Attr | Subgraph | TypeVar
) -> RegOpElement:
    if isinstance(item, (Input, Output)):
        return RegOpElement(macro.value, item.name, dtype_argument(item.dtype))
    if isinstance(item, Attr):
        default = None
        if macro is RegOpMacro.ATTR:
            assert item.default is not None
            default = cpp_default(item.type, item.default)
        return RegOpElement(macro.value, item.name, item.type.ir_name, default)
    if isinstance(item, TypeVar):
        return RegOpElement(macro.value, item.name, type_var_range(item))
    return RegOpElement(macro.value, item.name)


def reg_op_view(op: OpSpec) -> RegOpView:
    """The REG_OP chain of ``op`` (the header's, and the docs page's)."""
    return RegOpView(op.op_type, tuple(_element(e.macro, e.item) for e in elements(op)))
