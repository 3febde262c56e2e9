"""Metadata inference: every node's output shapes and dtypes, before running.

Op nodes use their registered prototype's ``infer_meta`` (ge.custom_op's
register_op) with TensorDescs of their inputs; Data and Const nodes carry
their own. Results are checked against the prototype (kinds, counts) and
against the op's dtype rules (Note [Dtype rules travel with the op]: the
prototype's, which a node's recorded rules must match).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ge.custom_op import bootstrap, builtin
from ge.custom_op.contexts import InferMetaContext, IrSlot, inferring
from ge.custom_op.proto import OpProto, get_registered_op_proto_by_op_type
from ge.custom_op.subgraphs import NO_SUBGRAPHS, SubgraphTable
from ge.engine.errors import CompileError
from ge.graph.attrs import AttrType
from ge.graph.graph import InputKind, Node, TensorMeta
from ge.graph.types import DataType, Format
from ge.runtime.types import TensorDesc
from ge_ir.dtype_rules import SlotDtype
from ge_ir.names import DATA_NODE_TYPES

DATA_TYPES = DATA_NODE_TYPES


# GE's attrs marking non-tensor inputs a kernel reads on the host: the
# ``input_kinds`` list (one kind per IR input) and the first non-tensor kind,
# ``_custom_op_non_tensor_kind_base`` (default 3: after REQUIRED, OPTIONAL,
# DYNAMIC).
HOST_INPUT_KINDS = "input_kinds"
NON_TENSOR_KIND_BASE = "_custom_op_non_tensor_kind_base"


def host_inputs(node: Node) -> list[int]:
    """Flattened indices of the node's non-tensor (host) inputs: those whose
    IR input's kind in ``input_kinds`` is at least the non-tensor base."""
    kinds = node.attrs.get(HOST_INPUT_KINDS)
    if kinds is None or not isinstance(kinds[1], (list, tuple)):
        return []
    base_attr = node.attrs.get(NON_TENSOR_KIND_BASE)
    base = (
        base_attr[1] if base_attr is not None and isinstance(base_attr[1], int) else 3
    )
    out: list[int] = []
    at = 0
    for ir_index, ir in enumerate(node.ir_inputs):
        if ir_index < len(kinds[1]) and kinds[1][ir_index] >= base:
            out += range(at, at + ir.count)
        at += ir.count
    return out


def node_label(node: Node) -> str:
    return f"node '{node.name}' ({node.type})"


def prototype_of(node: Node) -> OpProto:
    """The node's prototype; GE's built-in ops are registered on first use
    (Note [Built-in ops] in ge.custom_op.builtin)."""
    if node.type in builtin.OP_TYPES:
        bootstrap.load_builtin_ops()
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
        if (
            name not in known
            and ":" not in name
            and not name.startswith("_")
            and name != HOST_INPUT_KINDS
        ):
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


CONST_TYPES = frozenset({"Const", "Constant"})


def const_inputs(node: Node) -> dict[int, Any]:
    """The values of the node's inputs that Const nodes produce, by input
    index (InferMetaContext.get_input_const_data)."""
    values: dict[int, Any] = {}
    for i, edge in enumerate(node.inputs):
        if edge is None or edge.node.type not in CONST_TYPES:
            continue
        value = edge.node.attrs.get("value")
        if value is not None and value[0] is AttrType.TENSOR:
            try:
                values[i] = value[1].numpy()
            except TypeError:  # a dtype numpy cannot hold
                continue
    return values


def infer_op(
    node: Node,
    proto: OpProto,
    inputs: list[TensorMeta | None],
    subgraphs: SubgraphTable = NO_SUBGRAPHS,
) -> list[TensorMeta]:
    """Run the prototype's infer_meta for ``node`` (its context handing out
    ``subgraphs``); the output metas."""
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
        subgraphs,
        const_inputs(node),
        [Format.FORMAT_ND if m is None else m.format for m in inputs],
    )
    try:
        with inferring(ctx):
            result = proto.infer_meta(*args, **kwargs)
    except CompileError as exc:  # a subgraph's: it names the node already
        raise CompileError(str(exc)) from exc
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
    node: Node,
    proto: OpProto,
    inputs: list[TensorMeta | None],
    outputs: list[TensorMeta],
) -> None:
    """Inputs and outputs against the op's dtype rules (Note [Dtype rules
    travel with the op]): the prototype's, which a node built or loaded with
    rules of its own must match."""
    rules = proto.dtype_rules
    if node.dtype_rules is not None:
        if rules is None:
            rules = node.dtype_rules
        elif (difference := node.dtype_rules.difference(rules)) is not None:
            raise CompileError(
                f"{node_label(node)}: the node was built with other dtype rules "
                f"than the prototype's ({proto.source}): {difference}; build "
                "the graph again with the current op module"
            )
    if rules is None:
        return
    problem = rules.violation(_slot_dtypes(node, inputs, outputs))
    if problem is not None:
        raise CompileError(f"{node_label(node)}: {problem}")


def _slot_dtypes(
    node: Node, inputs: list[TensorMeta | None], outputs: list[TensorMeta]
) -> Iterator[SlotDtype]:
    slot = 0
    for ir in node.ir_inputs:
        for i in range(ir.count):
            meta = inputs[slot]
            if meta is not None:
                index = i if ir.kind is InputKind.DYNAMIC else -1
                yield SlotDtype("input", ir.name, index, meta.dtype)
            slot += 1
    slot = 0
    for out in node.ir_outputs:
        for i in range(out.count):
            index = i if out.dynamic else -1
            yield SlotDtype("output", out.name, index, outputs[slot].dtype)
            slot += 1
