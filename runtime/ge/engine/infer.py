"""Metadata inference: every node's output shapes and dtypes, before running.

Op nodes use their registered prototype's ``infer_meta`` (ge.custom_op's
register_op) with TensorDescs of their inputs; Data and Const nodes carry
their own. Results are checked against the prototype (kinds, counts) and
against the op's dtype constraints (the generated OpDef table, when the op's
builder module is loaded).
"""

from __future__ import annotations

from typing import Any

from ge.custom_op.contexts import InferMetaContext, IrSlot, inferring
from ge.custom_op.proto import OpProto, get_registered_op_proto_by_op_type
from ge.engine.errors import CompileError
from ge.graph.attrs import AttrType
from ge.graph.graph import InputKind, Node, TensorMeta
from ge.graph.types import DataType
from ge.runtime.types import TensorDesc
from ge_ir.names import DATA_NODE_TYPES

DATA_TYPES = DATA_NODE_TYPES


def node_label(node: Node) -> str:
    return f"node '{node.name}' ({node.type})"


def prototype_of(node: Node) -> OpProto:
    proto = get_registered_op_proto_by_op_type(node.type)
    if proto is None:
        raise CompileError(
            f"{node_label(node)}: no prototype is registered for {node.type}; import "
            "its op module or list it in ASCEND_CUSTOM_OPP_PATH"
        )
    return proto


def check_layout(node: Node, proto: OpProto) -> None:
    """The node (built from the ES table) and the prototype (register_op)
    must describe the same IR: the check GE never makes."""
    built = [(ir.name, ir.kind.value) for ir in node.ir_inputs]
    declared = [(i.name, i.kind.value) for i in proto.inputs]
    if built != declared:
        raise CompileError(
            f"{node_label(node)}: its inputs {built} differ from the registered "
            f"prototype's {declared} ({proto.source})"
        )
    outs = [(ir.name, ir.dynamic) for ir in node.ir_outputs]
    declared_outs = [(o.name, o.dynamic) for o in proto.outputs]
    if [d for _, d in outs] != [d for _, d in declared_outs]:
        raise CompileError(
            f"{node_label(node)}: its outputs {outs} differ from the registered "
            f"prototype's {declared_outs} ({proto.source})"
        )
    known = {a.name for a in proto.attrs}
    for name in node.attrs:
        if name not in known and ":" not in name and not name.startswith("_"):
            raise CompileError(
                f"{node_label(node)}: attr '{name}' is not an attr of the registered "
                f"prototype ({proto.source})"
            )
    for attr in proto.attrs:
        if attr.name in node.attrs and node.attrs[attr.name][0] is not attr.type:
            raise CompileError(
                f"{node_label(node)}: attr '{attr.name}' is {node.attrs[attr.name][0].value} "
                f"on the node but {attr.type.value} in the prototype"
            )
        if attr.required and attr.name not in node.attrs:
            raise CompileError(
                f"{node_label(node)}: required attr '{attr.name}' is missing"
            )


def attr_values(node: Node, proto: OpProto) -> list[tuple[str, AttrType, Any]]:
    """Every prototype attr of the node, in IR order: the node's value, else
    the prototype's default (None for an optional attr without one)."""
    out = []
    for attr in proto.attrs:
        if attr.name in node.attrs:
            out.append((attr.name, attr.type, node.attrs[attr.name][1]))
        else:
            out.append((attr.name, attr.type, attr.default))
    return out


def python_attr(value: Any) -> Any:
    """Attr values as callbacks receive them: lists, not tuples."""
    if isinstance(value, tuple):
        return [python_attr(v) for v in value]
    return value


def _desc(meta: TensorMeta) -> TensorDesc:
    shape = list(meta.shape) if meta.shape is not None else []
    dtype = (
        meta.dtype if meta.dtype is not DataType.DT_UNDEFINED else DataType.DT_UNDEFINED
    )
    return TensorDesc(shape, dtype)


def infer_op(
    node: Node, proto: OpProto, inputs: list[TensorMeta | None]
) -> list[TensorMeta]:
    """Run the prototype's infer_meta for ``node``; the output metas."""
    args: list[Any] = []
    slot = 0
    for ir in node.ir_inputs:
        metas = inputs[slot : slot + ir.count]
        slot += ir.count
        if ir.kind is InputKind.DYNAMIC:
            args.append([_desc(m) for m in metas if m is not None])
        elif metas[0] is None:
            args.append(None)
        else:
            args.append(_desc(metas[0]))
    kwargs = {name: python_attr(value) for name, _, value in attr_values(node, proto)}
    ctx = InferMetaContext(
        node.name,
        [
            IrSlot(o.name, InputKind.of_output(o.dynamic), o.count)
            for o in node.ir_outputs
        ],
    )
    try:
        with inferring(ctx):
            result = proto.infer_meta(*args, **kwargs)
    except Exception as exc:
        raise CompileError(
            f"{node_label(node)}: infer_meta failed: {type(exc).__name__}: {exc}"
        ) from exc
    return _check_result(node, proto, result)


def _check_result(node: Node, proto: OpProto, result: Any) -> list[TensorMeta]:
    outputs = node.ir_outputs
    if not outputs:
        if result is not None:
            raise CompileError(f"{node_label(node)}: infer_meta must return None")
        return []
    if len(outputs) == 1 and not proto.returns_tuple:
        items = [result]
    else:
        if not isinstance(result, (tuple, list)) or len(result) != len(outputs):
            raise CompileError(
                f"{node_label(node)}: infer_meta must return {len(outputs)} results "
                f"(one per output), got {type(result).__name__}"
            )
        items = list(result)
    metas: list[TensorMeta] = []
    for ir, item in zip(outputs, items):
        descs = item if ir.dynamic else [item]
        if ir.dynamic and not isinstance(item, (list, tuple)):
            raise CompileError(
                f"{node_label(node)}: output '{ir.name}' is dynamic; infer_meta must "
                "return a list of TensorDesc for it"
            )
        if ir.dynamic and len(descs) != ir.count:
            raise CompileError(
                f"{node_label(node)}: output '{ir.name}' has {ir.count} instance(s), "
                f"infer_meta returned {len(descs)}"
            )
        for desc in descs:
            if not isinstance(desc, TensorDesc):
                raise CompileError(
                    f"{node_label(node)}: infer_meta returned {type(desc).__name__} "
                    f"for output '{ir.name}', not TensorDesc"
                )
            dims = desc.shape.origin_shape.dims
            metas.append(TensorMeta(tuple(dims), desc.data_type))
    return metas


def check_dtypes(
    node: Node, inputs: list[TensorMeta | None], outputs: list[TensorMeta]
) -> None:
    """Inputs and outputs against the op's dtype constraints and type
    variables, when its generated OpDef is loaded."""
    from ge.es._op_api import OP_DEFS

    op_def = OP_DEFS.get(node.type)
    if op_def is None:
        return
    bound: dict[str, tuple[DataType, str]] = {}

    def check(
        kind: str, name: str, index: int, meta: TensorMeta | None, constraint: Any
    ) -> None:
        if meta is None or meta.dtype is DataType.DT_UNDEFINED:
            return
        where = f"{kind} '{name}'" + (f"[{index}]" if index >= 0 else "")
        if constraint.allowed and meta.dtype not in constraint.allowed:
            raise CompileError(
                f"{node_label(node)}: {where} is {meta.dtype.spec_name}; "
                f"{constraint.words()} allowed"
            )
        if constraint.var is not None:
            previous = bound.setdefault(constraint.var, (meta.dtype, where))
            if previous[0] is not meta.dtype:
                raise CompileError(
                    f"{node_label(node)}: {where} is {meta.dtype.spec_name} but "
                    f"{previous[1]} is {previous[0].spec_name}; both are type "
                    f"variable {constraint.var}"
                )

    slot = 0
    for ir in node.ir_inputs:
        constraint = op_def.input_constraints.get(ir.name)
        for i in range(ir.count):
            if constraint is not None:
                check(
                    "input",
                    ir.name,
                    i if ir.kind is InputKind.DYNAMIC else -1,
                    inputs[slot],
                    constraint,
                )
            slot += 1
    slot = 0
    for out in node.ir_outputs:
        constraint = op_def.output_constraints.get(out.name)
        for i in range(out.count):
            if constraint is not None:
                check(
                    "output",
                    out.name,
                    i if out.dynamic else -1,
                    outputs[slot],
                    constraint,
                )
            slot += 1
