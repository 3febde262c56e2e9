"""Ops whose output shape depends on their input data (GE's "type III" ops).

Note [Data-dependent shapes]: an op's infer_meta may give an output an
unknown dim (-1, or the unknown rank [-2]): only its execute knows the real
shape, as in GE's data_dependent_shape_custom sample. Its execute allocates
the output at an upper bound it chooses (``malloc_output_tensor``), may take
workspaces (GE's sample keeps its shape buffer in the first), and before it
returns writes the real shape into the output's shape
(``y.shape.set_origin_shape(...)`` and ``set_storage_shape(...)``, GE's
``MutableOriginShape()`` / ``MutableStorageShape()``); the real shape's bytes
must fit in what it allocated.

A static memory plan cannot hold such a tensor, so the compile of a graph
with one returns a ``DataDependentGraph``, which runs in three parts, each
run by the compiler's own machinery:

1. the prefix: what the op's inputs depend on (and every graph input), one
   compiled graph whose outputs are the op's inputs;
2. the op: its execute called once on those tensors, its outputs in new
   memory of the size it asked for, cut to the real shape it wrote;
3. the suffix: the graph with the op replaced by new graph inputs of the
   real shapes, compiled once per distinct input shape key (as a graph with
   unknown input dims is) and run; a later op with a data-dependent shape
   in it splits it again.

So downstream nodes and the graph outputs see the real shape, and every run
binds its tensors' addresses anew. A node the prefix and the suffix both
need (one that feeds the op and, by another path, the graph outputs) runs
in both. A model file holds one static plan: ``ge-atc`` and
``compile_model`` refuse such a graph (docs/runtime.md).
"""

from __future__ import annotations

import ctypes
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ge.custom_op.contexts import (
    EagerOpExecutionContext,
    IrSlot,
    OutputAllocator,
    RuntimeAttrs,
)
from ge.custom_op.registry import get_registered_op_impl
from ge.device import rt
from ge.device.memory import DeviceBuffer
from ge.engine import infer
from ge.engine.errors import CompileError, ExecuteError
from ge.graph.attrs import AttrType
from ge.graph.graph import Edge, Graph, InputKind, IrOutput, Node, TensorMeta
from ge.graph.limits import tensor_nbytes
from ge.graph.numpy_dtypes import to_numpy_dtype
from ge.graph.tensor import Tensor as GraphTensor
from ge.graph.types import DataType
from ge.runtime.lease import Lease
from ge.runtime.tensor import Tensor as RuntimeTensor
from ge.runtime.tensor import borrow, place_on_host, settable_output, written_dims
from ge.runtime.types import TensorPlacement

_DATA = ("Data", "RefData")


class DataDependentShape(CompileError):
    """Raised while collecting a graph: ``node``'s output shape is known
    only when it runs (Note [Data-dependent shapes])."""

    def __init__(self, node: Node, index: int, meta: TensorMeta) -> None:
        super().__init__(
            f"{infer.node_label(node)} output {index} has a data-dependent shape "
            f"({meta.describe()}); it is known only when the op runs"
        )
        self.node = node


def _fits(pattern: tuple[int, ...] | None, dims: tuple[int, ...]) -> bool:
    if pattern is None or pattern == (-2,):
        return True
    return len(pattern) == len(dims) and all(
        p in (-1, d) for p, d in zip(pattern, dims)
    )


class _Outputs(OutputAllocator):
    """Output memory of one data-dependent call: what execute asks for."""

    def __init__(self, node: Node, metas: Sequence[TensorMeta], lease: Lease) -> None:
        self.node = node
        self.metas = metas
        self.lease = lease
        self.buffers: dict[int, DeviceBuffer] = {}
        self.views: dict[int, RuntimeTensor] = {}
        self.workspaces: list[DeviceBuffer] = []
        self.allocated: dict[int, object] = {}  # tokens of settable_output
        self.regions = rt.RegionSet({}, [], lease)

    def allocate(
        self, index: int, dims: tuple[int, ...], dtype: DataType
    ) -> RuntimeTensor:
        meta = self.metas[index]
        if not _fits(meta.shape, tuple(dims)) or dtype is not meta.dtype:
            raise ValueError(
                f"node '{self.node.name}' output {index}: infer_meta said "
                f"{meta.describe()}, execute asked for {dtype.spec_name}{list(dims)}"
            )
        size = tensor_nbytes(dims, dtype)
        buffer = DeviceBuffer(max(size, 1))
        view = borrow(
            addr=buffer.addr,
            size=size,
            origin_dims=dims,
            storage_dims=dims,
            data_type=dtype,
            origin_format=meta.format,
            storage_format=meta.format,
            placement=TensorPlacement.kOnDeviceHbm,
            lease=self.lease,
        )
        self.allocated[index] = settable_output(view)
        self.buffers[index], self.views[index] = buffer, view
        self.regions.add(buffer.addr, size)
        return view

    def alias(self, output: int, input_index: int) -> RuntimeTensor:
        raise ValueError(
            f"node '{self.node.name}': an output of data-dependent shape cannot "
            "share an input's memory (make_output_ref_input)"
        )

    def workspace(self, size: int) -> int:
        buffer = DeviceBuffer(max(size, 1))
        self.workspaces.append(buffer)
        self.regions.add(buffer.addr, size)
        return buffer.addr

    def result(self, index: int) -> GraphTensor:
        """Output ``index`` cut to the real shape execute wrote."""
        label = f"node '{self.node.name}' ({self.node.type}) output {index}"
        view, buffer = self.views[index], self.buffers[index]
        real = written_dims(view, self.allocated[index])
        meta = self.metas[index]
        if not _fits(meta.shape, real):
            raise ExecuteError(
                f"{label}: execute wrote the shape {list(real)}, which is not "
                f"{meta.describe()} as infer_meta said"
            )
        size = tensor_nbytes(real, view.data_type)
        if size > view.size:
            raise ExecuteError(
                f"{label}: the real shape {list(real)} needs {size} bytes, more than "
                f"the {view.size} execute allocated; allocate the upper bound"
            )
        raw = (ctypes.c_char * size).from_address(buffer.addr) if size else b""
        array = np.frombuffer(bytes(raw), dtype=to_numpy_dtype(view.data_type))
        return GraphTensor(
            array.reshape(real), data_type=view.data_type, format=meta.format
        )


def call_execute(
    node: Node,
    inputs: Sequence[GraphTensor | None],
    metas: Sequence[TensorMeta],
    instance: Any,
    execute: Callable[..., Any],
    stream: int,
) -> list[GraphTensor]:
    """Call ``node``'s execute on ``inputs``; its outputs at their real shapes."""
    proto = infer.prototype_of(node)
    attrs = infer.attr_values(node, proto)
    lease = Lease(f"the execute callback of node '{node.name}'")
    views: list[RuntimeTensor | None] = []
    outputs = _Outputs(node, metas, lease)
    for tensor in inputs:
        if tensor is None:
            views.append(None)
            continue
        views.append(
            borrow(
                addr=tensor.addr,
                size=tensor.size,
                origin_dims=tensor.shape,
                storage_dims=None,
                data_type=tensor.data_type,
                origin_format=tensor.format,
                storage_format=None,
                placement=TensorPlacement.kOnDeviceHbm,
                lease=lease,
            )
        )
        outputs.regions.add(tensor.addr, tensor.size)
    for i in infer.host_inputs(node):  # GE's input_kinds, as the execute path
        if views[i] is not None:
            place_on_host(views[i])  # type: ignore[arg-type]
    ir_inputs = [IrSlot(ir.name, ir.kind, ir.count) for ir in node.ir_inputs]
    ir_outputs = [
        IrSlot(ir.name, InputKind.of_output(ir.dynamic), ir.count)
        for ir in node.ir_outputs
    ]
    ctx = EagerOpExecutionContext(
        node_name=node.name,
        lease=lease,
        inputs=views,
        ir_inputs=ir_inputs,
        ir_outputs=ir_outputs,
        attrs=RuntimeAttrs(attrs, lease),
        runtime=outputs,
        stream=stream,
    )
    args: list[Any] = []
    at = 0
    for slot in ir_inputs:
        part = views[at : at + slot.count]
        args.append(part if slot.kind is InputKind.DYNAMIC else part[0])
        at += slot.count
    kwargs = {name: infer.python_attr(value) for name, _, value in attrs}
    outputs.regions.context = ctx
    bound = rt.CALLBACK.set(outputs.regions)
    label = infer.node_label(node)
    try:
        result = execute(*args, **kwargs)
    except Exception as exc:
        raise ExecuteError(
            f"{label}: execute failed: {type(exc).__name__}: {exc}"
        ) from exc
    finally:
        rt.CALLBACK.reset(bound)
    try:
        if result is not None:
            raise ExecuteError(
                f"{label}: execute must return None, got {type(result).__name__}"
            )
        missing = [i for i in range(len(metas)) if i not in outputs.views]
        if missing:
            raise ExecuteError(
                f"{label}: execute did not allocate output(s) {missing} "
                "(malloc_output_tensor)"
            )
        return [outputs.result(i) for i in range(len(metas))]
    finally:
        lease.end()


# --- the graph ---------------------------------------------------------------------------


def _ancestors(node: Node) -> dict[int, Node]:
    seen: dict[int, Node] = {}
    stack = [e.node for e in node.inputs if e is not None] + list(node.control_inputs)
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen[id(n)] = n
        stack += [e.node for e in n.inputs if e is not None] + list(n.control_inputs)
    return seen


def _data_node(name: str, index: int, meta: TensorMeta) -> Node:
    return Node(
        name=name,
        type="Data",
        ir_outputs=(IrOutput("y", False, 1),),
        outputs=[meta],
        attrs={"index": (AttrType.INT, index)},
    )


def prefix_graph(graph: Graph, node: Node) -> Graph:
    """Every graph input and what ``node``'s inputs depend on; its outputs
    are ``node``'s inputs (present ones, in order)."""
    needed = _ancestors(node)
    prefix = Graph(f"{graph.name}_before_{node.name}")
    prefix.attrs = dict(graph.attrs)
    prefix.nodes = [n for n in graph.nodes if id(n) in needed or n.type in _DATA]
    prefix.outputs = [(e.node, e.index) for e in node.inputs if e is not None]
    return prefix


def suffix_graph(
    graph: Graph, node: Node, first_index: int, metas: Sequence[TensorMeta]
) -> Graph:
    """``graph`` with ``node``'s outputs made graph inputs ``first_index``...,
    and what no output needs left out (graph inputs stay)."""
    data = [
        _data_node(f"{node.name}:{j}", first_index + j, meta)
        for j, meta in enumerate(metas)
    ]
    new: dict[int, Node] = {}

    def edge(e: Edge | None) -> Edge | None:
        if e is None:
            return None
        if e.node is node:
            return Edge(data[e.index], 0)
        return Edge(new.get(id(e.node), e.node), e.index)

    nodes: list[Node] = []
    for n in graph.nodes:
        if n is node:
            continue
        if node in n.control_inputs:
            raise CompileError(
                f"{infer.node_label(n)} has a control edge from "
                f"{infer.node_label(node)}, whose output shape is data-dependent; "
                "data-dependent ops cannot be control sources"
            )
        if any(
            e is not None and (e.node is node or id(e.node) in new) for e in n.inputs
        ) or any(id(c) in new for c in n.control_inputs):
            new[id(n)] = dataclasses.replace(
                n,
                inputs=[edge(e) for e in n.inputs],
                control_inputs=[new.get(id(c), c) for c in n.control_inputs],
            )
        nodes.append(new.get(id(n), n))
    outputs = [
        (data[i], 0) if n is node else (new.get(id(n), n), i) for n, i in graph.outputs
    ]
    live: dict[int, Node] = {}
    for out, _ in outputs:
        live[id(out)] = out
        live.update(_ancestors(out))
    suffix = Graph(f"{graph.name}_after_{node.name}")
    suffix.attrs = dict(graph.attrs)
    suffix.nodes = [n for n in nodes if id(n) in live or n.type in _DATA] + data
    suffix.outputs = outputs
    return suffix


def _meta(tensor: GraphTensor) -> TensorMeta:
    return TensorMeta(tuple(tensor.shape), tensor.data_type, tensor.format)


class DataDependentGraph:
    """A compiled graph with an op of data-dependent output shape, run in
    parts (Note [Data-dependent shapes]); runs as a CompiledGraph does."""

    def __init__(
        self,
        graph: Graph,
        node: Node,
        options: Mapping[str, str],
        cache: Any,
        input_metas: Sequence[TensorMeta] | None,
        variables: Any,
        compile_graph: Callable[..., Any],
        report: Any,
    ) -> None:
        self.name = graph.name
        self.graph = graph
        self.node = node
        self.options = dict(options)
        self.cache = cache
        self.variables = variables
        self.compile_graph = compile_graph
        self.report = report
        self.input_count = len(graph.input_nodes)
        self.prefix = compile_graph(
            prefix_graph(graph, node), options, cache, input_metas, variables
        )
        self.proto = infer.prototype_of(node)
        self.op_metas: dict[tuple[Any, ...], list[TensorMeta]] = {}
        impl = get_registered_op_impl(node.type)
        if impl is None:
            raise CompileError(
                f"{infer.node_label(node)}: no implementation is registered for "
                f"{node.type} (register_op_impl)"
            )
        instance = cache.instance(node, impl)
        if impl.kernels:
            self.execute = impl.execute_function().__get__(instance, type(instance))
        else:
            self.execute = instance.execute
        self.instance = instance
        self.suffixes: dict[tuple[Any, ...], Any] = {}

    def _suffix(self, inputs: Sequence[GraphTensor]) -> Any:
        key = tuple((t.data_type, tuple(t.shape)) for t in inputs)
        compiled = self.suffixes.get(key)
        if compiled is None:
            metas = [_meta(t) for t in inputs]
            graph = suffix_graph(
                self.graph, self.node, self.input_count, metas[self.input_count :]
            )
            compiled = self.compile_graph(
                graph, self.options, self.cache, metas, self.variables
            )
            self.suffixes[key] = compiled
        return compiled

    def run(
        self,
        inputs: Sequence[GraphTensor],
        outputs: Sequence[GraphTensor] | None = None,
        stream: int = 0,
        memory: Any = None,
    ) -> list[GraphTensor]:
        inputs = list(inputs)
        before = (
            self.prefix.run(inputs, None, stream, memory)
            if memory
            else (self.prefix.run(inputs, None, stream))
        )
        it = iter(before)
        op_inputs = [None if e is None else next(it) for e in self.node.inputs]
        key = tuple(
            None if t is None else (t.data_type, tuple(t.shape)) for t in op_inputs
        )
        metas = self.op_metas.get(key)
        if metas is None:  # the op's output metas for these inputs (unknown dims kept)
            in_metas = [None if t is None else _meta(t) for t in op_inputs]
            metas = self.op_metas[key] = infer.infer_op(self.node, self.proto, in_metas)
        results = call_execute(
            self.node, op_inputs, metas, self.instance, self.execute, stream
        )
        all_inputs = inputs + results
        suffix = self._suffix(all_inputs)
        if memory is not None:
            return suffix.run(all_inputs, outputs, stream, memory)
        return suffix.run(all_inputs, outputs, stream)

    def fast_runner(self) -> Callable[[Any, Any], list[Any] | None]:
        """No fast path: every run takes ``run`` (None: fall back)."""
        return lambda inputs, outputs: None
