"""Constant folding (docs/compiler.md, "Constant folding").

Note [Constant folding]: a node of the built-in math library whose inputs
are all constants (Const nodes, or nodes folded before it; an absent
optional input counts as constant) is computed when the graph is compiled,
and the graph compiled in its place holds a Const of the same name with
the result. The value comes from the op's own kernel: the node alone,
with its constant inputs, is compiled (passes off) and run once, so a
folded graph gives the unfolded graph's bits. Consts that only fed folded
nodes are dropped (they would take memory and model-file bytes for
nothing). Nodes with control edges or subgraphs, custom ops (whose kernels
may do anything) and variables are never folded. The caller's graph is not
changed: folding returns a new Graph sharing the unchanged nodes.

A node whose compile fails is left in place, so the compile of the whole
graph reports the failure as it would without folding.

Note [Folding custom ops]: a custom op is folded like a math op when its
implementation registered a host kernel (``register_kernel(backend=
OpBackend.HOST)`` on its ``execute``, Note [Kernel backends] in
``ge.custom_op.kernels``), as GE's ConstantFoldingPass calls a HostCpu
kernel: the node alone is compiled with the option ``HOST_KERNELS``, so its
step calls the host kernel (no ``compile``, no launch declaration), and run
once. A custom op whose inputs are all constants but has no host kernel is
left in place, and the report says why (``CompileReport.not_folded``). A
host kernel that fails when run (it raises, allocates an output of another
shape or dtype than infer_meta gave, returns a value) is a CompileError
naming the node and the op: the graph cannot be compiled as its author
meant, and running it would call the same kernel.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ge.custom_op.builtin import OP_TYPES
from ge.custom_op.registry import get_registered_op_impl
from ge.engine.errors import CompileError
from ge.engine.graph_order import topological_order
from ge.engine.passes.report import CompileReport
from ge.engine.passes.switches import HOST_KERNELS, NO_PASSES
from ge.graph.attrs import AttrType
from ge.graph.graph import Edge, Graph, IrOutput, Node, TensorMeta
from ge.graph.tensor import Tensor as GraphTensor


def _value(node: Node) -> GraphTensor | None:
    entry = node.attrs.get("value")
    if entry is None or not isinstance(entry[1], GraphTensor):
        return None
    return entry[1]


def const_node(name: str, value: GraphTensor) -> Node:
    """A Const node holding ``value``, as GraphBuilder.create_const makes one."""
    return Node(
        name=name,
        type="Const",
        ir_outputs=(IrOutput("y", False, 1),),
        outputs=[TensorMeta(tuple(value.shape), value.data_type, value.format)],
        attrs={"value": (AttrType.TENSOR, value)},
    )


def _constant_inputs(node: Node, constant: Mapping[int, Node]) -> bool:
    present = [e for e in node.inputs if e is not None]
    return bool(present) and all(
        id(e.node) in constant and e.index == 0 for e in present
    )


def _foldable(node: Node, constant: Mapping[int, Node]) -> bool:
    if node.type not in OP_TYPES or node.control_inputs or node.subgraphs:
        return False
    return _constant_inputs(node, constant)


def _custom_refusal(node: Node) -> str | None:
    """Why a custom op with constant inputs is not folded; None: fold it
    with its host kernel (Note [Folding custom ops])."""
    impl = get_registered_op_impl(node.type)
    if impl is None:
        return "no implementation is registered (the compile reports it)"
    if impl.host_kernel is None:
        return (
            f"{node.type} has no host kernel (decorate its execute with "
            "register_kernel(backend=OpBackend.HOST) to fold it)"
        )
    if node.control_inputs or node.subgraphs:
        return "it has control edges or subgraphs"
    if len(node.outputs) != 1:
        return f"it has {len(node.outputs)} outputs (only single-output nodes fold)"
    return None


def evaluate(
    node: Node,
    inputs: Sequence[GraphTensor | None],
    options: Mapping[str, str],
    cache: Any,
    compile_graph: Callable[..., Any],
    host: bool = False,
) -> list[GraphTensor]:
    """``node`` computed on ``inputs`` by its own kernel, or its host
    kernel (CompileError if it cannot compile; the run's error if it fails)."""
    graph = Graph(f"fold_{node.name}")
    consts = [
        None if v is None else const_node(f"{node.name}_input_{i}", v)
        for i, v in enumerate(inputs)
    ]
    op = dataclasses.replace(
        node,
        inputs=[None if c is None else Edge(c, 0) for c in consts],
        control_inputs=[],
    )
    graph.nodes = [c for c in consts if c is not None] + [op]
    graph.outputs = [(op, i) for i in range(len(node.outputs) or 1)]
    internal = {NO_PASSES: "1", HOST_KERNELS: "1"} if host else {NO_PASSES: "1"}
    compiled = compile_graph(graph, {**options, **internal}, cache)
    try:
        results = compiled.run([])
    except Exception as exc:
        raise _HostKernelFailed(str(exc)) from exc
    return [
        GraphTensor(r.numpy(), data_type=r.data_type, format=r.format) for r in results
    ]


class _HostKernelFailed(Exception):
    """The folded node's graph compiled, and its run failed."""


def _check_result(node: Node, result: GraphTensor) -> None:
    """CompileError unless the kernel's result is what infer_meta gave."""
    meta = node.outputs[0] if node.outputs else None
    if meta is None or meta.shape is None or meta.dtype is None:
        return
    if tuple(result.shape) != tuple(meta.shape) or result.data_type != meta.dtype:
        raise CompileError(
            f"constant folding of node '{node.name}' ({node.type}): its host kernel "
            f"gave {result.data_type.spec_name}{list(result.shape)}, but the graph "
            f"says {meta.dtype.spec_name}{list(meta.shape)}; make execute allocate "
            "what infer_meta returns"
        )


def fold_constants(
    graph: Graph,
    options: Mapping[str, str],
    cache: Any,
    input_metas: Any,
    compile_graph: Callable[..., Any],
    report: CompileReport | None = None,
) -> tuple[Graph, list[str]]:
    """(the graph to compile, names of the folded nodes); the graph itself
    when nothing folds (Note [Constant folding]). ``report`` gets why custom
    ops with constant inputs were not folded, and which were folded by
    their host kernels (Note [Folding custom ops])."""
    del input_metas  # constants do not depend on the inputs
    report = report if report is not None else CompileReport()
    try:
        order = topological_order(graph)
    except ValueError:
        return graph, []
    constant: dict[int, Node] = {}  # id(original node) -> its Const
    replacements: dict[int, Node] = {}  # id(folded node) -> its Const
    folded: list[str] = []
    for node in order:
        if node.type == "Const" and _value(node) is not None:
            constant[id(node)] = node
            continue
        host = False
        if node.type not in OP_TYPES and _constant_inputs(node, constant):
            why = _custom_refusal(node)
            report.fold_candidates += 1
            if why is not None:
                report.not_folded[node.name] = why
                continue
            host = True
        elif not _foldable(node, constant):
            continue
        values = [
            None if e is None else _value(constant[id(e.node)]) for e in node.inputs
        ]
        try:
            results = evaluate(node, values, options, cache, compile_graph, host)
        except _HostKernelFailed as exc:
            if not host:
                continue
            raise CompileError(
                f"constant folding of node '{node.name}' ({node.type}) failed: its "
                f"host kernel raised: {exc}; fix the host kernel, or turn folding "
                "off (GE_CPU_FOLDING=0 or ConstantFoldingPass off in the fusion "
                "switch file)"
            ) from exc
        except Exception:  # any failure: the whole graph's compile reports it
            continue
        if len(results) != 1:
            continue
        if host:
            _check_result(node, results[0])
            report.host_folded[node.name] = node.type
        constant[id(node)] = replacements[id(node)] = const_node(node.name, results[0])
        folded.append(node.name)
    if not folded:
        return graph, []
    return _rebuilt(graph, replacements), folded


def _rebuilt(graph: Graph, replaced: Mapping[int, Node]) -> Graph:
    """``graph`` with each folded node replaced by its Const, and the Consts
    nobody reads any more left out."""
    new: dict[int, Node] = {}

    def mapped(node: Node) -> Node:
        return new.get(id(node), node)

    for node in graph.nodes:
        if id(node) in replaced:
            new[id(node)] = replaced[id(node)]
            continue
        touched = any(e is not None and id(e.node) in new for e in node.inputs) or any(
            id(c) in new for c in node.control_inputs
        )
        if touched:
            new[id(node)] = dataclasses.replace(
                node,
                inputs=[
                    None if e is None else Edge(mapped(e.node), e.index)
                    for e in node.inputs
                ],
                control_inputs=[mapped(c) for c in node.control_inputs],
                input_descs=dict(node.input_descs),
            )
    nodes = [mapped(n) for n in graph.nodes]
    outputs = [(mapped(n), i) for n, i in graph.outputs]
    read = {id(e.node) for n in nodes for e in n.inputs if e is not None}
    read |= {id(c) for n in nodes for c in n.control_inputs}
    read |= {id(n) for n, _ in outputs}
    result = Graph(graph.name)
    result.attrs = dict(graph.attrs)
    result.nodes = [n for n in nodes if n.type != "Const" or id(n) in read]
    result.outputs = outputs
    return result
