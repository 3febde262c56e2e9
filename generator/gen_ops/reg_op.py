"""What GE's REG_OP macros declare for an op, so clashes are caught before g++.

Each element macro pastes the element's name into member names (GE's
operator_reg.h): INPUT(x, t) declares ``name_in_x``, ``set_input_x``, ...
and a private ``__input_x``. Two elements that paste to the same member, or a
member that the system headers define as a macro, make the header fail.
"""

from __future__ import annotations

from gen_ops.cpp_reserved import SYSTEM_MACROS
from gen_ops.model import InputKind, OpSpec

_MEMBERS = {
    "input": (
        "name_in_{}",
        "set_input_{}",
        "set_input_{}_by_name",
        "get_input_desc_{}",
        "update_input_desc_{}",
        "__input_{}",
    ),
    "optional_input": (
        "name_in_{}",
        "set_input_{}",
        "set_input_{}_by_name",
        "get_input_desc_{}",
        "update_input_desc_{}",
        "__optional_input_{}",
    ),
    "dynamic_input": (
        "create_dynamic_input_{}",
        "create_dynamic_input_byindex_{}",
        "get_dynamic_input_desc_{}",
        "update_dynamic_input_desc_{}",
        "set_dynamic_input_{}",
        "__dy_input_{}",
    ),
    "output": (
        "name_out_{}",
        "get_output_desc_{}",
        "update_output_desc_{}",
        "__out_{}",
    ),
    "dynamic_output": (
        "create_dynamic_output_{}",
        "get_dynamic_output_desc_{}",
        "update_dynamic_output_desc_{}",
        "__dy_output_{}",
    ),
    "attr": ("name_attr_{}", "get_attr_{}", "set_attr_{}", "__attr_{}"),
    "required_attr": (
        "name_attr_{}",
        "get_attr_{}",
        "set_attr_{}",
        "__required_attr_{}",
    ),
    "graph": (
        "name_graph_{}",
        "get_subgraph_builder_{}",
        "set_subgraph_builder_{}",
        "get_subgraph_{}",
        "__graph_{}",
    ),
    "dynamic_graph": (
        "name_graph_{}",
        "create_dynamic_subgraph_{}",
        "get_dynamic_subgraph_builder_{}",
        "get_dynamic_subgraph_{}",
        "set_dynamic_subgraph_builder_{}",
        "__graph_{}",
    ),
    "datatype": ("__datatype_{}",),
}

# Names of GE's C++ API that REG_OP's expansion refers to inside the op's
# class, where an op class of the same name would shadow them.
GE_TYPE_NAMES = frozenset("""
    Operator OpReg AscendString TensorDesc TensorType ListTensorType Promote
    OperatorCreatorRegister Tensor NamedAttrs DataType Format Graph
    SubgraphBuilder Shape InferShapeFuncRegister VerifyFuncRegister
    InferFormatFuncRegister InferValueRangeFuncRegister
    OpInt OpFloat OpString OpAscendString OpBool OpTensor OpType OpNamedAttrs
    OpListInt OpListFloat OpListString OpListAscendString OpListAcendString
    OpListBool OpListTensor OpBytes OpListListInt OpListType OpListNamedAttrs
    """.split())

_INPUT_KIND = {
    InputKind.REQUIRED: "input",
    InputKind.OPTIONAL: "optional_input",
    InputKind.DYNAMIC: "dynamic_input",
}


def elements(op: OpSpec) -> list[tuple[str, str, object]]:
    """(element kind, name, spec item) for every REG_OP element of ``op``."""
    out: list[tuple[str, str, object]] = []
    out += [(_INPUT_KIND[i.kind], i.name, i) for i in op.inputs]
    out += [
        ("dynamic_output" if o.dynamic else "output", o.name, o) for o in op.outputs
    ]
    out += [
        ("attr" if a.default is not None else "required_attr", a.name, a)
        for a in op.attrs
    ]
    out += [("dynamic_graph" if g.dynamic else "graph", g.name, g) for g in op.graphs]
    out += [("datatype", v.name, v) for v in op.type_vars]
    return out


def member_clashes(op: OpSpec) -> list[tuple[str, object, str]]:
    """(member, item, what it clashes with) for every member REG_OP would
    declare twice or that is a system macro."""
    seen: dict[str, str] = {f"__{op.op_type}": f"op {op.op_type}"}
    problems: list[tuple[str, object, str]] = []
    if f"__{op.op_type}" in SYSTEM_MACROS:
        problems.append((f"__{op.op_type}", op, "a macro of the system headers"))
    for kind, name, item in elements(op):
        label = f"{kind.replace('_', ' ')} '{name}'"
        for pattern in _MEMBERS[kind]:
            member = pattern.format(name)
            if member in SYSTEM_MACROS:
                problems.append((member, item, "a macro of the system headers"))
            elif member in seen and seen[member] != label:
                problems.append((member, item, seen[member]))
            seen.setdefault(member, label)
    return problems
