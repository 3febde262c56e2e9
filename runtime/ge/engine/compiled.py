"""A compiled graph and how it runs.

Run-time addresses come from a small table of buffers (Note [Buffer layout]
in ``layout``): the arena (all intermediates), the graph inputs and
outputs, the constants and the workspaces. Annotated-args nodes are
launches in a task table (``tasks``) whose argument slots were written at
compile time; a run writes the slots bound to buffers (only where the
address changed) and replays the table in one native call. Execute nodes
call their Python ``execute``. What a run writes (addresses, slots, arena,
workspaces) is a RunState taken from a pool, so runs on several threads
never share it (Note [Concurrent runs]). A run may take its memory from
a ``RunMemory`` instead of the graph's own pool (a session's external
allocator, Note [External allocators] in ``ge.session.allocators``).
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, NoReturn, Protocol

import numpy as np

from ge.custom_op.contexts import IrSlot
from ge.custom_op.subgraphs import NO_SUBGRAPHS, SubgraphTable
from ge.device import rt
from ge.device.memory import DeviceBuffer
from ge.device.native import KernelFault, PackedRun, Task, fault_message, library
from ge.engine import hotpath
from ge.engine.branch_step import BranchFrame, BranchStep
from ge.engine.execute_frame import ExecuteFrame, grouped, slot_bounds
from ge.engine.layout import ARENA, BufferKind, BufferLayout
from ge.engine.tasks import Binding, ForeignCall, TaskSpec, TaskTable
from ge.graph.attrs import AttrType
from ge.graph.graph import Node, TensorMeta
from ge.graph.tensor import Tensor as GraphTensor
from ge.graph.tensor import wrap_buffer, write_addresses
from ge.graph.types import Placement
from ge.runtime.lease import Lease
from ge.runtime.tensor import Tensor as RuntimeTensor
from ge.runtime.tensor import borrow
from ge.runtime.types import TensorPlacement


@dataclass
class TensorInfo:
    """One tensor of the graph: what it is and where it lives."""

    meta: TensorMeta
    nbytes: int
    buffer: int  # index into the run's address table
    offset: int  # bytes into that buffer
    producer: str  # for messages


@dataclass
class ExecuteStep:
    """An op node run by calling its Python ``execute``."""

    node: Node
    instance: Any
    ir_inputs: list[IrSlot]
    ir_outputs: list[IrSlot]
    inputs: list[int | None]
    outputs: list[int]
    attrs: list[tuple[str, AttrType, Any]]
    kwargs: dict[str, Any]
    # The node's subgraphs, compiled on demand (Note [Subgraph ops] in
    # ge.custom_op.subgraphs).
    subgraphs: SubgraphTable = NO_SUBGRAPHS
    # The execute this step calls, bound to ``instance`` (Note [Kernel
    # backends] in ge.custom_op.kernels); None: ``instance.execute``.
    execute: Any = None


@dataclass
class TaskSegment:
    """A run of consecutive annotated-args launches: tasks [start, end)."""

    start: int
    end: int


def runtime_view(info: TensorInfo, addr: int, lease: Lease) -> RuntimeTensor:
    shape = info.meta.shape or ()
    return borrow(
        addr=addr,
        size=info.nbytes,
        origin_dims=shape,
        storage_dims=shape,
        data_type=info.meta.dtype,
        origin_format=info.meta.format,
        storage_format=info.meta.format,
        placement=TensorPlacement.kOnDeviceHbm,
        lease=lease,
    )


def group(slots: Sequence[IrSlot], flat: Sequence[Any]) -> list[Any]:
    """Flattened instances grouped by IR slot: dynamic ones as lists (the
    bounds worked out on each call; an execute frame keeps them)."""
    return grouped(slot_bounds(slots), list(flat))


class RunMemory(Protocol):
    """Where a run's memory comes from when not from the compiled graph:
    its run state (arena and workspaces), new outputs and the workspaces
    of execute callbacks."""

    def take(self, graph: CompiledGraph) -> RunState:
        """A run state of ``graph`` made by ``graph.make_state``."""

    def give_back(self, graph: CompiledGraph, state: RunState) -> None:
        """The state ``take`` gave, after the run."""

    def outputs(self, graph: CompiledGraph) -> list[GraphTensor]:
        """New output tensors of ``graph``."""

    def allocate(self, size: int, what: str) -> DeviceBuffer:
        """``size`` bytes of device memory for ``what``."""

    def release(self, buffer: DeviceBuffer) -> None:
        """A buffer ``allocate`` gave, no longer used."""


class RunState:
    """What one run writes, so that runs on several threads never share it:
    the run's buffer addresses, a copy of the argument table (refreshed
    slots), the launches pointing into that copy, the arena and the
    workspaces. Constants and everything else compiled are shared, read
    only (Note [Concurrent runs]). ``memory`` is where the arena and
    workspaces came from, when not from the graph's own pool."""

    __slots__ = (
        "addrs",
        "table",
        "tasks",
        "arena",
        "workspaces",
        "packed",
        "run_arg",
        "memory",
        "plan",
    )

    def __init__(
        self,
        graph: CompiledGraph,
        arena: DeviceBuffer,
        workspaces: list[DeviceBuffer],
        memory: RunMemory | None = None,
    ) -> None:
        self.arena = arena
        self.workspaces = workspaces
        self.memory = memory
        layout = graph.layout
        # The run's buffer addresses: a ctypes array, cheap to write from
        # Python and read in place by the native runner.
        self.addrs = (ctypes.c_uint64 * layout.size)()
        self.addrs[ARENA] = arena.addr
        for kind, buffers in (
            (BufferKind.CONST, graph.consts),
            (BufferKind.WORKSPACE, workspaces),
        ):
            for i, buffer in enumerate(buffers):
                self.addrs[layout.index(kind, i)] = buffer.addr
        self.table = graph.table.copy()
        self.tasks = (Task * max(len(graph.task_specs), 1))()
        base = self.table.ctypes.data
        for i, spec in enumerate(graph.task_specs):
            self.tasks[i].fn = spec.kernel.address
            self.tasks[i].args = base + 8 * spec.first
            self.tasks[i].block_dim = spec.block_dim
        # The slots bound to the arena, constants and workspaces: written
        # once, as their addresses never change for this state; a run
        # refreshes those bound to inputs and outputs (Note [Packed run
        # state] in native.c).
        fixed = graph.fixed_bindings
        if len(fixed[0]):
            addrs = np.array(self.addrs[:], dtype=np.uint64)
            self.table[fixed[0]] = addrs[fixed[1]] + fixed[2]
        slots, sources, offsets = graph.io_bindings
        self.packed = PackedRun(
            base,
            slots.ctypes.data,
            sources.ctypes.data,
            offsets.ctypes.data,
            ctypes.addressof(self.addrs),
            ctypes.addressof(self.tasks),
            len(slots),
            len(graph.task_specs),
        )
        self.run_arg = ctypes.addressof(self.packed)  # the one argument of a run
        # The steps as this state runs them: task segments as (first task's
        # address, count, its index), execute nodes as their frames (Note
        # [Execute frames]).
        tasks = ctypes.addressof(self.tasks)
        # A model's branch steps run by their rule (ge.engine.branch_step).
        self.plan: list[tuple[int, int, int] | ExecuteFrame | BranchFrame] = [
            (
                (
                    tasks + ctypes.sizeof(Task) * step.start,
                    step.end - step.start,
                    step.start,
                )
                if isinstance(step, TaskSegment)
                else (
                    step.frame(self)
                    if isinstance(step, BranchStep)
                    else ExecuteFrame(step, graph.tensors, self)
                )
            )
            for step in graph.steps
        ]

    def address(self, info: TensorInfo) -> int:
        return self.addrs[info.buffer] + info.offset


class CompiledGraph:
    """Everything a run needs; built by ``compiler.compile_graph``.

    Note [Concurrent runs]: a compiled graph (and a loaded model, which is
    one) may be run from several threads at once. What a run writes lives
    in a RunState; the graph keeps a pool of them. A run takes one (or
    makes one: a new arena and new workspaces, the argument table copied)
    and gives it back, so sequential runs reuse one state and k concurrent
    runs hold k states at most. The native call releases the GIL, so the
    kernels of concurrent runs execute in parallel. Shared and never
    written by a run: the compiled task list, slot bindings, constants and
    the template argument table (``table``, which model files store). The
    implementations' Python objects are shared too: an ``execute`` called
    from concurrent runs must be safe to call so (docs/runtime.md, Threads).
    """

    def __init__(
        self,
        *,
        name: str,
        tensors: list[TensorInfo],
        steps: Sequence[ExecuteStep | TaskSegment | BranchStep],
        input_ids: list[int],
        output_ids: list[int],
        output_copies: list[tuple[int, int]],
        arena: DeviceBuffer,
        consts: list[DeviceBuffer],
        tasks: TaskTable,
    ) -> None:
        self.name = name
        # What the passes did (a ge.engine.passes.CompileReport; set by compile_graph).
        self.report: Any = None
        self.tensors = tensors
        self.steps = steps
        self.input_ids = input_ids
        self.output_ids = output_ids
        self.output_copies = output_copies  # (output index, source tensor id)
        self.arena = arena
        self.consts = consts
        self.workspaces = tasks.workspaces  # the first run state's
        self.layout = tasks.layout
        assert self.layout == BufferLayout(
            len(input_ids), len(output_ids), len(consts), len(self.workspaces)
        )
        self.task_specs: list[TaskSpec] = tasks.specs
        self.table = np.array(tasks.slots, dtype=np.uint64)  # the template
        self.bindings: list[Binding] = tasks.bindings
        self.foreign_calls: list[ForeignCall] = tasks.foreign
        self.ntasks = len(self.task_specs)
        self.fixed_bindings, self.io_bindings = self._split_bindings()
        self._first_input = self.layout.first(BufferKind.INPUT)
        self._first_output = self.layout.first(BufferKind.OUTPUT)
        self._ge_run_state = library().ge_run_state
        self._ge_refresh_state = library().ge_refresh_state
        self._ge_replay = library().ge_replay
        first = RunState(self, arena, self.workspaces)
        self._states = [first]  # every state made, for run_states()
        self._free = [first]  # the pool: list.pop and append are atomic
        self._states_lock = threading.Lock()
        self.only_tasks = all(isinstance(s, TaskSegment) for s in steps)
        self.output_metas = [tensors[t].meta for t in output_ids]
        self._input_sig = [
            (tensors[t].meta.dtype, tensors[t].meta.shape or ()) for t in input_ids
        ]
        self._output_sig = [(m.dtype, m.shape or ()) for m in self.output_metas]
        self._io_ids = [*input_ids, *output_ids]

    def _split_bindings(
        self,
    ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...]:
        """The bindings as (slots, sources, offsets) arrays: those to the
        buffers fixed per run state, and those to graph inputs and outputs."""
        first = self.layout.first(BufferKind.INPUT)
        end = self.layout.first(BufferKind.CONST)
        parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for io in (False, True):
            chosen = [b for b in self.bindings if (first <= b.buffer < end) is io]
            parts.append(
                (
                    np.array([b.slot for b in chosen], dtype=np.uint32),
                    np.array([b.buffer for b in chosen], dtype=np.uint32),
                    np.array([b.offset for b in chosen], dtype=np.uint64),
                )
            )
        return parts[0], parts[1]

    def run_states(self) -> int:
        """How many run states the graph holds (its peak concurrency)."""
        return len(self._states)

    def make_state(self, memory: RunMemory) -> RunState:
        """A run state whose arena and workspaces ``memory`` allocates (a
        failure leaves what was allocated to ``memory`` to give back)."""
        arena = memory.allocate(self.arena.size, f"the arena of graph '{self.name}'")
        workspaces = [
            memory.allocate(b.size, f"workspace {i} of graph '{self.name}'")
            for i, b in enumerate(self.workspaces)
        ]
        return RunState(self, arena, workspaces, memory)

    def _new_state(self) -> RunState:
        workspaces = [DeviceBuffer(b.size) for b in self.workspaces]
        state = RunState(self, DeviceBuffer(self.arena.size), workspaces)
        with self._states_lock:
            self._states.append(state)
        return state

    # -- binding -------------------------------------------------------------------

    def _check_inputs(self, inputs: Sequence[GraphTensor]) -> None:
        if len(inputs) != len(self.input_ids):
            raise ValueError(
                f"graph '{self.name}' takes {len(self.input_ids)} input(s), got {len(inputs)}"
            )
        for i, (tensor, tid) in enumerate(zip(inputs, self.input_ids)):
            if not isinstance(tensor, GraphTensor):
                raise TypeError(
                    f"input {i} must be a ge.graph.Tensor, got {type(tensor).__name__}"
                )
            meta = self.tensors[tid].meta
            if tensor.data_type is not meta.dtype or tuple(tensor.shape) != meta.shape:
                raise ValueError(
                    f"graph '{self.name}' input {i} must be {meta.describe()}, got "
                    f"{tensor.data_type.spec_name}{list(tensor.shape)}"
                )

    def new_outputs(self) -> list[GraphTensor]:
        return [
            self.output_tensor(j, DeviceBuffer(self.tensors[t].nbytes))
            for j, t in enumerate(self.output_ids)
        ]

    def output_tensor(self, j: int, buffer: DeviceBuffer) -> GraphTensor:
        """Output ``j`` as a tensor over ``buffer`` (of the output's size)."""
        meta = self.output_metas[j]
        return wrap_buffer(
            buffer, meta.shape or (), meta.dtype, meta.format, Placement.PLACEMENT_HOST
        )

    def _check_outputs(self, outputs: Sequence[GraphTensor]) -> None:
        if len(outputs) != len(self.output_ids):
            raise ValueError(
                f"graph '{self.name}' has {len(self.output_ids)} output(s), got "
                f"{len(outputs)} output tensors"
            )
        for j, (tensor, meta) in enumerate(zip(outputs, self.output_metas)):
            if not isinstance(tensor, GraphTensor):
                raise TypeError(
                    f"output {j} must be a ge.graph.Tensor, got {type(tensor).__name__}"
                )
            if tensor.data_type is not meta.dtype or tuple(tensor.shape) != meta.shape:
                raise ValueError(
                    f"graph '{self.name}' output {j} must be {meta.describe()}, got "
                    f"{tensor.data_type.spec_name}{list(tensor.shape)}"
                )

    # -- running ---------------------------------------------------------------------

    def run(
        self,
        inputs: Sequence[GraphTensor],
        outputs: Sequence[GraphTensor] | None = None,
        stream: int = rt.DEFAULT_STREAM,
        memory: RunMemory | None = None,
    ) -> list[GraphTensor]:
        """Run once with ``inputs`` (any placement; read in place) writing into
        ``outputs`` (fresh tensors when None); returns the outputs. The run's
        memory comes from ``memory`` when given. Safe to call from several
        threads at once (Note [Concurrent runs])."""
        if memory is not None:
            state = memory.take(self)
        else:
            try:
                state = self._free.pop()
            except IndexError:  # runs overlap: a new state, for a sound call
                self._check_inputs(inputs)
                if outputs is not None:
                    self._check_outputs(outputs)
                state = self._new_state()
        try:
            outputs = self._bind(state.addrs, inputs, outputs, memory)
            if self.only_tasks:
                if fault := self._ge_run_state(state.run_arg):
                    self._fault(fault, 0)
            else:
                self._run_steps(state, stream)
            for j, source in self.output_copies:
                info = self.tensors[source]
                ctypes.memmove(outputs[j].addr, state.address(info), info.nbytes)
        finally:
            if memory is None:
                self._free.append(state)
            else:
                memory.give_back(self, state)
        return list(outputs)

    def run_at(
        self, inputs: Sequence[int], outputs: Sequence[int], stream: int
    ) -> None:
        """Run once on tensors at the addresses ``inputs``, writing outputs at
        ``outputs``: a subgraph run from its node's callback, whose tensors
        ``ge.engine.subgraphs`` checked against the plan (Note [Subgraph ops]
        in ``ge.custom_op.subgraphs``)."""
        try:
            state = self._free.pop()
        except IndexError:  # the plan runs on several threads at once
            state = self._new_state()
        try:
            addrs = state.addrs
            for i, addr in enumerate(inputs):
                addrs[self._first_input + i] = addr
            for j, addr in enumerate(outputs):
                addrs[self._first_output + j] = addr
            if self.only_tasks:
                if fault := self._ge_run_state(state.run_arg):
                    self._fault(fault, 0)
            else:
                self._run_steps(state, stream)
            for j, source in self.output_copies:
                info = self.tensors[source]
                ctypes.memmove(outputs[j], state.address(info), info.nbytes)
        finally:
            self._free.append(state)

    def _bind(
        self,
        addrs: ctypes.Array[ctypes.c_uint64],
        inputs: Sequence[GraphTensor],
        outputs: Sequence[GraphTensor] | None,
        memory: RunMemory | None,
    ) -> Sequence[GraphTensor]:
        """Write the run's input and output addresses (checking the tensors
        when the one-pass write refuses them); returns the outputs, new
        ones when ``outputs`` is None."""
        if not write_addresses(inputs, self._input_sig, addrs, self._first_input):
            self._check_inputs(inputs)  # raises, naming what is wrong
            self._write_each_address(inputs, addrs, self._first_input)
        if outputs is None:
            outputs = self.new_outputs() if memory is None else memory.outputs(self)
        if not write_addresses(outputs, self._output_sig, addrs, self._first_output):
            self._check_outputs(outputs)
            self._write_each_address(outputs, addrs, self._first_output)
        return outputs

    @staticmethod
    def _write_each_address(
        tensors: Sequence[GraphTensor], addrs: ctypes.Array[ctypes.c_uint64], first: int
    ) -> None:
        """The addresses of checked tensors that ``write_addresses`` refused
        (instances of a Tensor subclass)."""
        for i, tensor in enumerate(tensors):
            addrs[first + i] = tensor.addr

    def _fault(self, code: int, first: int) -> NoReturn:
        """Raise KernelFault for a replay's fault code (Note [Kernel faults]
        in native.c); ``first`` is the replayed segment's first task."""
        task = first + (code >> 32)
        kernel = self.task_specs[task].kernel.name
        raise KernelFault(
            fault_message(code, f"graph '{self.name}' launch {task} (kernel {kernel})")
            + "; the run's outputs are not valid"
        )

    def fast_runner(
        self, buffer_sizes: Sequence[int] | None = None
    ) -> Callable[[Any, Any], list[Any] | None] | None:
        """The fast run path (Note [Fast run path] in ``ge.engine.hotpath``):
        ``run(inputs, outputs)`` runs with exactly Tensors of the
        graph's inputs and outputs (and DeviceBuffers of at least
        ``buffer_sizes[i]`` bytes when given) and returns the outputs as a
        list, or returns None, having done nothing, for the Python path to
        take the run. In Python (Tensors only) when the extension cannot be
        had; None when the graph has no fast path (execute nodes, output
        copies)."""
        if not self.only_tasks or self.output_copies:
            return None
        module = hotpath.module() if hotpath.enabled() else None
        if module is None:
            return self._python_runner()
        sigs = [*self._input_sig, *self._output_sig]
        sizes = buffer_sizes or [self.tensors[t].nbytes for t in self._io_ids]
        kinds = tuple((dtype, shape, size) for (dtype, shape), size in zip(sigs, sizes))
        # The runner holds the graph (through this bound method), so kernels
        # and bindings outlive a run in progress when the graph is dropped.
        fault = partial(self._fault, first=0)
        runner = module.runner(
            ctypes.cast(self._ge_run_state, ctypes.c_void_p).value,  # type: ignore[arg-type]
            self._free,
            kinds,
            len(self._input_sig),
            self._first_input,
            GraphTensor,
            DeviceBuffer if buffer_sizes is not None else None,
            fault,
        )
        return runner.run

    def _python_runner(self) -> Callable[[Any, Any], list[Any] | None]:
        """``fast_runner``'s contract in Python: the least a run does (one
        state from the pool, one pass over the tensors, one native call)."""
        free, ins, outs = self._free, self._input_sig, self._output_sig
        first, after = self._first_input, self._first_output
        run_state, graph = self._ge_run_state, self  # held: see fast_runner

        def run(inputs: Any, outputs: Any) -> list[Any] | None:
            if outputs is None:
                return None
            try:
                state = free.pop()
            except IndexError:
                return None
            try:
                addrs = state.addrs
                if not (
                    write_addresses(inputs, ins, addrs, first)
                    and write_addresses(outputs, outs, addrs, after)
                ):
                    return None
                fault = run_state(state.run_arg)
            finally:
                free.append(state)
            if fault:
                graph._fault(fault, 0)
            return list(outputs)

        return run

    def _run_steps(self, state: RunState, stream: int) -> None:
        """A graph with execute nodes: refresh the task slots once, then run
        task segments natively and execute nodes in Python, in order."""
        self._ge_refresh_state(state.run_arg)
        replay = self._ge_replay
        for step in state.plan:
            if type(step) is tuple:
                address, count, first = step
                if fault := replay(address, count):
                    self._fault(fault, first)
            else:
                step.run(stream)  # type: ignore[union-attr]
