"""Compiling a graph: order, infer, check, plan memory, prepare every node.

Every failure is a CompileError naming the graph or node: a graph the CPU
device cannot hold (Note [Tensor size limits] in ``ge.graph.limits``) is
refused before anything is allocated, and an allocation that fails anyway
(the machine's memory) is reported as a CompileError too, never as a bare
MemoryError.

Note [Compile once per key]: implementation instances are shared per op type
within a session (GE builds an instance per holder; one per op type keeps
compiled kernels in one place), and ``compile`` runs once per distinct key of
input/output shapes, dtypes and attrs, under a lock, so it is thread-safe.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ge.custom_op.contexts import ArgSlot, IrSlot, LaunchSlotKind
from ge.custom_op.kernels import OpBackend
from ge.custom_op.portable import ForeignLaunchInfo
from ge.custom_op.registry import Capability, OpImplDescriptor, get_registered_op_impl
from ge.custom_op.subgraphs import NO_SUBGRAPHS, SubgraphTable
from ge.device.kernels import BadKernelBinary, load_binary
from ge.device.memory import DeviceBuffer
from ge.engine import infer
from ge.engine.callbacks import NodeCall, call_compile, call_declare
from ge.engine.compiled import (
    CompiledGraph,
    ExecuteStep,
    TaskSegment,
    TensorInfo,
)
from ge.engine.dds import DataDependentGraph, DataDependentShape
from ge.engine.errors import CompileError
from ge.engine.foreign_launch import bind_foreign
from ge.engine.graph_order import topological_order
from ge.engine.launches import Place, bind_launch
from ge.engine.layout import ARENA, BufferKind, BufferLayout
from ge.engine.passes.custom_run import (
    EARLY,
    LATE,
    PassStats,
    record_compile,
    run_custom_passes,
)
from ge.engine.passes.folding import fold_constants
from ge.engine.passes.fusion import FusedOp, declare_fused, fuse
from ge.engine.passes.report import CompileReport, dump_stage
from ge.engine.passes.switches import FOLDING_PASS, HOST_KERNELS, NO_PASSES, Switches
from ge.engine.plan import Interval, plan
from ge.engine.reuse import reuse_slots, share_reused_inputs
from ge.engine.subgraphs import subgraphs_of
from ge.engine.tasks import TaskTable
from ge.engine.variables import VARIABLE, VariableStore, offline_refusal
from ge.graph.attrs import AttrType
from ge.graph.graph import Graph, InputKind, Node, TensorMeta, check_ir
from ge.graph.limits import MAX_DEVICE_BYTES, MAX_TENSOR_BYTES, tensor_nbytes
from ge.graph.tensor import Tensor as GraphTensor
from ge.graph.types import DataType

UNKNOWN_RANK = (-2,)  # GE's shape of unknown rank
# Nodes that are no op with an infer_meta (their unknown dims are the graph's).
_NOT_OPS = frozenset({"Data", "RefData", "Const", "Constant", "Variable"})

# Note [Execute or declared launch]: a node whose implementation has both
# ``execute`` and ``declare_launch_args`` runs its declared launch (address
# refresh, no Python per run). ``gen-ops test`` (ge.opcheck) compiles the
# graph again with this option "1" to run the same node through ``execute``
# and compare the bits of the two paths (docs/opcheck.md, "paths"); it is
# not a GE option.
EXECUTE_PATH = "ge.cpu.internal.executePath"


def nbytes(meta: TensorMeta) -> int:
    """Bytes of a tensor of concrete shape (ValueError over the limits)."""
    return tensor_nbytes(meta.shape or (), meta.dtype)


def allocate(size: int, what: str) -> DeviceBuffer:
    """Device memory for ``what``; CompileError if the machine has none left."""
    try:
        return DeviceBuffer(size)
    except MemoryError as exc:
        raise CompileError(
            f"{what} needs {size} bytes, which the CPU device cannot allocate "
            f"({exc})"
        ) from None


def const_value(node: Node) -> GraphTensor:
    """A Const node's data: its tensor attr ``value``."""
    entry = node.attrs.get("value")
    if (
        entry is None
        or entry[0] is not AttrType.TENSOR
        or not isinstance(entry[1], GraphTensor)
    ):
        what = "no attr 'value'" if entry is None else f"a {entry[0].value} 'value'"
        raise CompileError(
            f"Const node '{node.name}' has {what}; it needs the tensor attr 'value' "
            "(its data), e.g. GraphBuilder.create_const(tensor)"
        )
    return entry[1]


@dataclass
class ImplCache:
    """Per session: one instance per op type, and the compile keys done
    (Note [Compile once per key])."""

    instances: dict[str, Any] = field(default_factory=dict)
    compiled: set[tuple[Any, ...]] = field(default_factory=set)
    lock: threading.RLock = field(default_factory=threading.RLock)

    def instance(self, node: Node, impl: OpImplDescriptor) -> Any:
        with self.lock:
            if node.type not in self.instances:
                try:
                    self.instances[node.type] = impl.cls()
                except Exception as exc:
                    raise CompileError(
                        f"{infer.node_label(node)}: {impl.class_name}() failed: {exc}"
                    ) from exc
            return self.instances[node.type]


def _concrete(meta: TensorMeta) -> bool:
    return meta.shape is not None and all(d >= 0 for d in meta.shape)


@dataclass
class _Op:
    node: Node
    position: int
    impl: OpImplDescriptor
    inputs: list[int | None]
    outputs: list[int]
    proto_attrs: list[tuple[str, AttrType, Any]]
    # (output, input slot) pairs that may share memory (Note [Reuse input]).
    reuse: tuple[tuple[int, int], ...] = ()
    # Its subgraphs, compiled on demand (Note [Subgraph ops]).
    subgraphs: SubgraphTable = NO_SUBGRAPHS


def _node_call(op: _Op, instance: Any) -> NodeCall:
    """What the op's callbacks are called with."""
    return NodeCall(
        op.node,
        instance,
        [IrSlot(ir.name, ir.kind, ir.count) for ir in op.node.ir_inputs],
        [
            IrSlot(ir.name, InputKind.of_output(ir.dynamic), ir.count)
            for ir in op.node.ir_outputs
        ],
        op.inputs,
        op.outputs,
        {name: infer.python_attr(value) for name, _, value in op.proto_attrs},
    )


def _runs_declared_launch(op: _Op, host: bool, options: Mapping[str, str]) -> bool:
    """Whether the node runs its declared launch rather than a Python
    execute (Note [Execute or declared launch]); a node with subgraphs
    cannot."""
    if not op.impl.has(Capability.DECLARE_LAUNCH_ARGS) or host:
        return False
    if op.impl.has(Capability.EXECUTE) and options.get(EXECUTE_PATH) == "1":
        return False
    if op.subgraphs:
        raise CompileError(
            f"{infer.node_label(op.node)} has subgraphs, which only an "
            "execute callback can run; give the implementation execute "
            "instead of declare_launch_args"
        )
    return True


class _Compiler:
    def __init__(
        self,
        graph: Graph,
        options: Mapping[str, str],
        cache: ImplCache,
        input_metas: Sequence[TensorMeta] | None,
        variables: VariableStore | None = None,
    ) -> None:
        self.graph = graph
        self.variables = variables
        self.options = dict(options)
        self.cache = cache
        self.input_metas = input_metas
        self.tensors: list[TensorInfo] = []
        self.tensor_of: dict[tuple[int, int], int] = {}
        self.consts: list[DeviceBuffer] = []
        self.ops: list[_Op] = []
        self.last_use: dict[int, int] = {}
        self.input_ids: list[int] = []
        self.aliases: dict[int, int] = {}  # ref outputs -> the tensor they share
        self.device_bytes = 0  # constants, arena and workspaces so far
        self.layout = BufferLayout(0, 0)  # set by collect

    # -- metadata ---------------------------------------------------------------

    def _add_tensor(
        self, node: Node, index: int, meta: TensorMeta, buffer: int = ARENA
    ) -> int:
        if not _concrete(meta):
            if node.type not in _NOT_OPS and meta.shape is not None:
                raise DataDependentShape(
                    node, index, meta
                )  # Note [Data-dependent shapes]
            raise CompileError(
                f"{infer.node_label(node)} output {index} has no concrete shape "
                f"({meta.describe()}); give the graph inputs concrete shapes, or run it "
                "and let run_graph compile for the inputs' shapes"
            )
        try:
            size = nbytes(meta)
        except ValueError as exc:
            raise CompileError(
                f"{infer.node_label(node)} output {index} ({meta.describe()}): {exc}"
            ) from None
        self.tensors.append(TensorInfo(meta, size, buffer, 0, node.name))
        tensor_id = len(self.tensors) - 1
        self.tensor_of[(id(node), index)] = tensor_id
        return tensor_id

    def collect(self) -> None:
        order = topological_order(self.graph)
        try:
            data = self.graph.graph_inputs()  # Note [Data nodes]
        except ValueError as exc:
            raise CompileError(str(exc)) from None
        n_inputs = len(data)
        if self.input_metas is not None and len(self.input_metas) != n_inputs:
            raise CompileError(
                f"graph '{self.graph.name}' has {n_inputs} input(s), got {len(self.input_metas)}"
            )
        self.layout = BufferLayout(
            n_inputs,
            len(self.graph.outputs),
            sum(1 for node in order if node.type in ("Const", VARIABLE)),
        )
        input_ids: dict[int, int] = {}
        for position, node in enumerate(order):
            if node.type in infer.DATA_TYPES:
                index = node.get_attr("index")
                meta = node.outputs[0].copy()
                if self.input_metas is not None:
                    given = self.input_metas[index]
                    declared_dtype = meta.dtype is not DataType.DT_UNDEFINED
                    if (
                        meta.shape is not None
                        and not _fits(meta.shape, given.shape or ())
                    ) or (declared_dtype and given.dtype is not meta.dtype):
                        raise CompileError(
                            f"graph input {index} ({node.name}) is declared "
                            f"{meta.describe()}; it cannot take {given.describe()}"
                        )
                    meta = given.copy()
                at = self.layout.index(BufferKind.INPUT, index)
                input_ids[index] = self._add_tensor(node, 0, meta, at)
            elif node.type == "Const":
                value = const_value(node)
                meta = TensorMeta(tuple(value.shape), value.data_type, value.format)
                at = self.layout.index(BufferKind.CONST, len(self.consts))
                self._add_tensor(node, 0, meta, at)
                what = f"Const node '{node.name}'"
                self._reserve(value.size, what)
                buffer = allocate(value.size, what)
                buffer.array[:] = np.frombuffer(value.tobytes(), np.uint8)
                self.consts.append(buffer)
            elif node.type == VARIABLE:
                self._collect_variable(node)
            else:
                self._collect_op(node, position)
        self.input_ids = [input_ids[i] for i in range(n_inputs)]

    def _collect_variable(self, node: Node) -> None:
        """A variable: a buffer of the constants' group that is the
        session's memory (Note [Variables] in ``ge.engine.variables``)."""
        if self.variables is None:
            raise offline_refusal(self.graph.name, node)
        meta, buffer = self.variables.buffer(node)
        at = self.layout.index(BufferKind.CONST, len(self.consts))
        self._add_tensor(node, 0, meta, at)
        self.consts.append(buffer)

    def _collect_op(self, node: Node, position: int) -> None:
        try:
            check_ir(node)
        except ValueError as exc:
            raise CompileError(f"{infer.node_label(node)}: {exc}") from None
        proto = infer.prototype_of(node)
        infer.check_layout(node, proto)
        inputs: list[int | None] = []
        for edge in node.inputs:
            if edge is None:
                inputs.append(None)
                continue
            key = (id(edge.node), edge.index)
            if key not in self.tensor_of:
                raise CompileError(
                    f"{infer.node_label(node)} reads output {edge.index} of "
                    f"'{edge.node.name}', which has no such output"
                )
            inputs.append(self.tensor_of[key])
        in_metas = [None if t is None else self.tensors[t].meta for t in inputs]
        subgraphs = NO_SUBGRAPHS
        if node.subgraphs:  # Note [Subgraph ops] in ge.custom_op.subgraphs
            subgraphs = subgraphs_of(node, infer.node_label(node), self._subgraph)
        out_metas = infer.infer_op(node, proto, in_metas, subgraphs)
        infer.check_dtypes(node, proto, in_metas, out_metas)
        impl = get_registered_op_impl(node.type)
        if impl is None:
            raise CompileError(
                f"{infer.node_label(node)}: no implementation is registered for "
                f"{node.type} (register_op_impl)"
            )
        outputs = [self._add_tensor(node, i, m) for i, m in enumerate(out_metas)]
        for t in inputs:
            if t is not None:
                self.last_use[t] = position
        self.ops.append(
            _Op(
                node,
                position,
                impl,
                inputs,
                outputs,
                infer.attr_values(node, proto),
                reuse_slots(node, proto),
                subgraphs,
            )
        )

    def _subgraph(self, graph: Graph, metas: Sequence[TensorMeta]) -> CompiledGraph:
        """A subgraph compiled as this graph is: same options, session
        cache and variables (Note [Subgraph ops] in ge.custom_op.subgraphs)."""
        return compile_graph(graph, self.options, self.cache, metas, self.variables)

    # -- memory ---------------------------------------------------------------------

    def place(self) -> tuple[list[int], list[tuple[int, int]], DeviceBuffer]:
        """Bind graph outputs to output buffers, share memory for ref pairs
        and for the reuse pairs that are safe (Note [Reuse input]), plan the
        arena; (output ids, output copies, arena)."""
        output_ids: list[int] = []
        copies: list[tuple[int, int]] = []
        bound: set[int] = set()
        producers = {t for op in self.ops for t in op.outputs}
        for j, (node, index) in enumerate(self.graph.outputs):
            tensor_id = self.tensor_of.get((id(node), index))
            if tensor_id is None:
                raise CompileError(
                    f"graph output {j} names a node output that does not exist"
                )
            output_ids.append(tensor_id)
            if (
                tensor_id in producers
                and tensor_id not in bound
                and not self._is_alias(tensor_id)
            ):
                self.tensors[tensor_id].buffer = self.layout.index(BufferKind.OUTPUT, j)
                bound.add(tensor_id)
            else:
                copies.append((j, tensor_id))
            self.last_use[tensor_id] = len(self.graph.nodes)
        self._alias_refs()
        share_reused_inputs(self.ops, self.tensors, self.aliases, self.last_use)
        arena_ids = [
            t
            for op in self.ops
            for t in op.outputs
            if self.tensors[t].buffer == ARENA and t not in self.aliases
        ]
        intervals = [
            Interval(
                self.tensors[t].nbytes,
                self._producer_position(t),
                max(self.last_use.get(t, 0), self._producer_position(t)),
            )
            for t in arena_ids
        ]
        offsets, total = plan(intervals)
        for t, offset in zip(arena_ids, offsets):
            self.tensors[t].offset = offset
        for alias, root in self.aliases.items():
            self.tensors[alias].buffer = self.tensors[root].buffer
            self.tensors[alias].offset = self.tensors[root].offset
        what = f"graph '{self.graph.name}': the arena of its intermediate tensors"
        if total > MAX_TENSOR_BYTES:
            raise CompileError(
                f"{what} needs {total} bytes (tensors alive at once share no "
                f"memory); one device buffer holds at most {MAX_TENSOR_BYTES}"
            )
        self._reserve(total, what)
        return output_ids, copies, allocate(total, what)

    def _reserve(self, size: int, what: str) -> None:
        """Count ``size`` bytes of device memory against MAX_DEVICE_BYTES."""
        self.device_bytes += size
        used = self.device_bytes
        if used > MAX_DEVICE_BYTES:
            raise CompileError(
                f"{what} brings graph '{self.graph.name}' to {used} bytes of device "
                f"memory (arena, constants, workspaces); a compiled graph uses at "
                f"most {MAX_DEVICE_BYTES}"
            )

    def _is_alias(self, tensor_id: int) -> bool:
        return any(
            tensor_id == op.outputs[out]
            for op in self.ops
            for out in op.node.ref_outputs
        )

    def _alias_refs(self) -> None:
        """GE's ref pairs: an output named like an input shares its memory."""
        self.aliases = {}
        for op in self.ops:
            for out, slot in op.node.ref_outputs.items():
                source = op.inputs[slot]
                if source is None:
                    continue
                root = self.aliases.get(source, source)
                self.aliases[op.outputs[out]] = root
                self.last_use[root] = max(
                    self.last_use.get(root, 0),
                    self.last_use.get(op.outputs[out], op.position),
                )

    def _producer_position(self, tensor_id: int) -> int:
        for op in self.ops:
            if tensor_id in op.outputs:
                return op.position
        return 0

    # -- preparing nodes -------------------------------------------------------------

    def prepare(
        self, arena: DeviceBuffer, output_ids: list[int], copies: list[tuple[int, int]]
    ) -> CompiledGraph:
        tasks = TaskTable(self.layout)
        steps: list[ExecuteStep | TaskSegment] = []
        host_kernels = self.options.get(HOST_KERNELS) == "1"
        for op in self.ops:
            if isinstance(op, FusedOp):  # Note [Fusion regions]
                # A custom op's compile still checks its key (its refusals
                # stay); the math library's ops need none.
                for member, fused in zip(op.members, op.spec.nodes):
                    if fused.expr is not None and member.impl.has(Capability.COMPILE):
                        self._compile_once(self._call(member), arena)
                start = tasks.launch_count
                declare_fused(op, self.tensors, tasks)
                _segment(steps, start, tasks.launch_count)
                continue
            call = self._call(op)
            host = host_kernels and op.impl.host_kernel is not None
            if op.impl.has(Capability.COMPILE) and not host:  # as GE does
                self._compile_once(call, arena)
            if _runs_declared_launch(op, host, self.options):
                start = tasks.launch_count
                self._declare(call, arena, tasks)
                _segment(steps, start, tasks.launch_count)
            else:
                steps.append(
                    ExecuteStep(
                        op.node,
                        call.instance,
                        call.ir_inputs,
                        call.ir_outputs,
                        op.inputs,
                        op.outputs,
                        op.proto_attrs,
                        call.kwargs,
                        op.subgraphs,
                        _bound_execute(op.impl, call.instance, host),
                    )
                )
        return CompiledGraph(
            name=self.graph.name,
            tensors=self.tensors,
            steps=steps,
            input_ids=self.input_ids,
            output_ids=output_ids,
            output_copies=copies,
            arena=arena,
            consts=self.consts,
            tasks=tasks,
        )

    def _call(self, op: _Op) -> NodeCall:
        return _node_call(op, self.cache.instance(op.node, op.impl))

    def _compile_once(self, call: NodeCall, arena: DeviceBuffer) -> None:
        """Call ``compile`` once per key (Note [Compile once per key])."""
        key = (
            call.node.type,
            tuple(
                (
                    (self.tensors[t].meta.shape, self.tensors[t].meta.dtype)
                    if t is not None
                    else None
                )
                for t in call.inputs + call.outputs
            ),
            repr(sorted(call.kwargs.items())),
        )
        with self.cache.lock:
            if key not in self.cache.compiled:
                call_compile(call, self.tensors, arena, self.options)
                self.cache.compiled.add(key)

    def _declare(self, call: NodeCall, arena: DeviceBuffer, tasks: TaskTable) -> None:
        """``declare_launch_args``, then its workspaces and launches into
        ``tasks``."""
        label = infer.node_label(call.node)
        ctx = call_declare(call, self.tensors, arena)
        for size in ctx.workspaces:
            self._reserve(size, f"{label}: a workspace")
        try:
            workspaces = tasks.add_workspaces(ctx.workspaces)
        except MemoryError as exc:
            raise CompileError(
                f"{label}: its workspaces ({sum(ctx.workspaces)} bytes) cannot be "
                f"allocated on the CPU device ({exc})"
            ) from None

        def place(slot: ArgSlot) -> Place:
            if slot.kind is LaunchSlotKind.WORKSPACE:
                return Place(workspaces[slot.index], 0, ctx.workspaces[slot.index])
            ids = call.inputs if slot.kind is LaunchSlotKind.INPUT else call.outputs
            tensor_id = ids[slot.index]
            assert tensor_id is not None  # declare_launch_args checked it
            info = self.tensors[tensor_id]
            return Place(info.buffer, info.offset, info.nbytes)

        for launch in ctx.launches:
            if isinstance(launch.info, ForeignLaunchInfo):
                bind_foreign(
                    label,
                    call.node.type,
                    call.instance,
                    launch.info,
                    launch.slots,
                    place,
                    tasks,
                )
                continue
            try:
                kernel = load_binary(launch.info.kernel_bin).get_function(
                    launch.info.kernel_name
                )
            except (BadKernelBinary, LookupError) as exc:
                raise CompileError(
                    f"{label}: kernel {launch.info.kernel_name!r}: {exc}"
                ) from None
            bind_launch(
                label, kernel, launch.slots, launch.info.block_dim, place, tasks
            )


def _bound_execute(impl: OpImplDescriptor, instance: Any, host: bool) -> Any:
    """The execute a step calls (Note [Kernel backends] in
    ge.custom_op.kernels); None: the instance's ``execute``."""
    if not impl.kernels:
        return None
    function = impl.execute_function(OpBackend.HOST if host else None)
    return function.__get__(instance, type(instance))


def _segment(steps: list[ExecuteStep | TaskSegment], start: int, end: int) -> None:
    """Launches ``start..end`` join the task segment before them, if any."""
    if steps and isinstance(steps[-1], TaskSegment) and steps[-1].end == start:
        steps[-1].end = end
    elif end > start:
        steps.append(TaskSegment(start, end))


def _fits(declared: tuple[int, ...], actual: tuple[int, ...]) -> bool:
    if declared == UNKNOWN_RANK:
        return True
    return len(declared) == len(actual) and all(
        d in (-1, a) for d, a in zip(declared, actual)
    )


def compile_graph(
    graph: Graph,
    options: Mapping[str, str] | None = None,
    cache: ImplCache | None = None,
    input_metas: Sequence[TensorMeta] | None = None,
    variables: VariableStore | None = None,
) -> CompiledGraph:
    """Compile ``graph`` for the CPU device (CompileError names the node;
    TypeError for arguments of the wrong type). ``variables`` holds the
    memory of its Variable nodes (a Session's); without it a graph with a
    variable is refused (Note [Variables])."""
    if not isinstance(graph, Graph):
        raise TypeError(
            f"compile_graph takes a ge.graph.Graph, got {type(graph).__name__}"
        )
    if options is not None:
        if not isinstance(options, Mapping):
            raise TypeError(
                f"options must be a dict of str to str, got {type(options).__name__}"
            )
        for key, value in options.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise TypeError(
                    f"options must be a dict of str to str; option {key!r} is "
                    f"{type(value).__name__} {value!r}"
                )
    options = options or {}
    cache = cache or ImplCache()
    try:
        switches = Switches.of(options)
    except ValueError as exc:
        raise CompileError(f"graph '{graph.name}': {exc}") from None
    report = CompileReport(switches.folding, switches.fusion)
    passes = options.get(NO_PASSES) != "1"
    stats: dict[str, PassStats] = {}
    if passes:  # Note [Running custom passes]
        dump_stage(graph, "00_compile_begin")
        graph = run_custom_passes(
            graph, options, switches.pass_on, input_metas, EARLY, stats
        )
    if switches.folding:  # Note [Constant folding]
        graph, report.folded = fold_constants(
            graph, options, cache, input_metas, compile_graph, report
        )
        dump_stage(graph, "01_after_constant_folding")
    if passes:
        graph = run_custom_passes(
            graph, options, switches.pass_on, input_metas, LATE, stats
        )
        report.passes = {n: (s.match_times, s.effect_times) for n, s in stats.items()}
        if report.fold_candidates:  # custom ops with constant inputs, GE's pass name
            stats[FOLDING_PASS] = PassStats(
                report.fold_candidates, len(report.host_folded)
            )
        record_compile(options, stats)
    compiler = _Compiler(graph, options, cache, input_metas, variables)
    try:
        compiler.collect()
    except DataDependentShape as dds:  # Note [Data-dependent shapes] in ge.engine.dds
        return DataDependentGraph(  # type: ignore[return-value]
            graph,
            dds.node,
            options,
            cache,
            input_metas,
            variables,
            compile_graph,
            report,
        )
    if switches.fusion:  # Note [Fusion regions]
        report.regions, report.breaks = fuse(compiler)
    if passes:
        dump_stage(graph, "02_after_elementwise_fusion", report.text())
    output_ids, copies, arena = compiler.place()
    compiled = compiler.prepare(arena, output_ids, copies)
    compiled.report = report
    return compiled
