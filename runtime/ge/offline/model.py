"""Loading a model file and executing it (ACL's ``mdl`` API in spirit).

Loading decodes and checks the file (model_file.decode), loads each kernel
binary from memory (refusing binaries with initializers), checks every
launch against its kernel's declaration (``ge.device.launch_check``, as
compiling does): argument count, slot kinds, which buffer a pointer may be
bound to, and the span each pointer reaches inside its buffer, and checks
foreign libraries without loading them (Note [Opening a model runs
nothing]). Nothing from the
file is unpickled, evaluated or run; no operator Python module is imported.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import Any

from ge._container import FileFormatError, read_regular_file
from ge.custom_op.control_flow import ControlFlow
from ge.device.kernels import BadKernelBinary, Kernel, load_binary
from ge.device.launch_check import (
    LaunchRefusal,
    Memory,
    Refused,
    check_args,
    declarations,
)
from ge.device.memory import DeviceBuffer
from ge.engine.binding import ACCESS_OF_BUFFER
from ge.engine.branch_step import BranchStep
from ge.engine.compiled import CompiledGraph, TaskSegment, TensorInfo
from ge.engine.layout import BufferKind
from ge.engine.tasks import TaskTable
from ge.graph.graph import TensorMeta
from ge.graph.tensor import Tensor, wrap_buffer
from ge.graph.types import DataType, Format, Placement
from ge.offline import model_file
from ge.offline.model_file import ModelData, TensorDescription
from ge.offline.portable_model import check_payloads, restore_addresses

_BUFFER_WORDS = {
    BufferKind.ARENA: "an arena",
    BufferKind.INPUT: "a graph input",
    BufferKind.OUTPUT: "a graph output",
    BufferKind.CONST: "a constant",
    BufferKind.WORKSPACE: "a workspace",
}


def _meta(t: TensorDescription) -> TensorMeta:
    return TensorMeta(t.shape, DataType[t.dtype], Format[t.format])


def _tensor_infos(
    data: ModelData,
) -> tuple[list[TensorInfo], list[tuple[int, int]]]:
    """The run's tensors (inputs, outputs, then each output copy's source)
    and the output copies as (output, tensor)."""
    layout = data.layout
    tensors = [
        TensorInfo(_meta(t), t.nbytes, layout.index(BufferKind.INPUT, i), 0, t.name)
        for i, t in enumerate(data.inputs)
    ]
    tensors += [
        TensorInfo(_meta(t), t.nbytes, layout.index(BufferKind.OUTPUT, j), 0, t.name)
        for j, t in enumerate(data.outputs)
    ]
    copies = []
    for output, buffer, offset, nbytes in data.output_copies:
        tensors.append(
            TensorInfo(_meta(data.outputs[output]), nbytes, buffer, offset, "copy")
        )
        copies.append((output, len(tensors) - 1))
    return tensors, copies


def _buffers(data: ModelData) -> tuple[DeviceBuffer, list[DeviceBuffer], TaskTable]:
    """The arena, the constants (filled) and a task table with the
    workspaces; FileFormatError when memory runs out."""
    try:
        arena = DeviceBuffer(data.arena_size)
        consts = []
        at = 0
        for size in data.const_sizes:
            const = DeviceBuffer(size)
            const.array[:] = memoryview(data.consts)[at : at + size]
            consts.append(const)
            at += size
        table = TaskTable(data.layout.with_workspaces(0), data.slots)
        table.add_workspaces(data.workspace_sizes)
    except MemoryError:
        raise FileFormatError(
            f"{model_file.WHAT}: not enough memory for its buffers"
        ) from None
    return arena, consts, table


def _words(
    kernel: Kernel,
    count: int,
    refused: LaunchRefusal,
    data: ModelData,
    binding: tuple[int, int] | None,
) -> str:
    """A task's refusal, as model loading says it after naming the task."""
    name, k, decl = kernel.name, refused.index, refused.decl
    if refused.what is Refused.ARITY:
        return f"kernel {name} takes {kernel.arity()}, the task has {count} slots"
    if refused.what is Refused.LIST_COUNT or decl is None:
        return str(refused)
    if refused.what is Refused.VALUE:
        return (
            f"argument {k} of {name} is a pointer, but the file binds no buffer to it"
        )
    if refused.what is Refused.MEMORY:
        return f"argument {k} of {name} is a scalar, but the file binds a buffer to it"
    if refused.what is Refused.ACCESS:
        assert binding is not None
        kind, _ = data.layout.locate(binding[0])
        return (
            f"argument {k} of {name} is {decl.describe()}, but the file binds it to "
            f"{_BUFFER_WORDS[kind]} buffer ({refused.reason})"
        )
    # Refused.SPAN
    return (
        f"kernel {name} argument {k} reaches {refused.needed} bytes, its buffer "
        f"has {refused.available}"
    )


# Note [Opening a model runs nothing]: ``load_model`` (and
# ``load_model_bytes``, ``model_file.decode`` and every query of a
# ``Model``) only parses and checks: digests, every index and limit, each
# launch against its kernel's declaration, and each foreign library's
# payload and ELF structure (``portable_model.check_payloads``). Kernel
# binaries are mapped by the device's own loader, which never runs an
# initializer (Note [Our own loader] in ``ge.device.elf``). A foreign
# library is code that *does* run as it is loaded (its constructors, Note
# [Foreign libraries] in ``ge.device.foreign``), so it is mapped only at the
# model's first ``execute``, after its digest and checks have passed, with
# its constructors probed in a forked child first (Note [Constructor probe]);
# the task table is completed with the functions' addresses then. A refusal
# at that point is a FileFormatError naming the op and payload; the model
# keeps it and every later ``execute`` raises it again, running nothing.
# A model without foreign libraries is complete when it is opened.


class Model:
    """A loaded model: describe its inputs and outputs, and execute it."""

    def __init__(self, data: ModelData) -> None:
        self._data = data
        self._tensors, self._copies = _tensor_infos(data)
        arena, consts, table = _buffers(data)
        for slot, buffer_index, offset in data.bindings:
            table.bind(slot, buffer_index, offset)
        kernels = self._kernels(data)
        bound = {slot: (buffer, offset) for slot, buffer, offset in data.bindings}
        for i, (binary, name, block_dim, first, count) in enumerate(data.tasks):
            kernel = kernels[(binary, name)]
            self._check_task(i, kernel, block_dim, first, count, bound)
            table.add_launch(kernel, first, count, block_dim)
        # Note [Opening a model runs nothing]: checked here, loaded at the
        # first execute.
        self._libraries = check_payloads(
            data.portable_ops, data.payloads, data.foreign, model_file.WHAT
        )
        # Each branch plan is a model of its own, loaded with every check
        # (Note [Branch steps in a model file] in ge.offline.model_file).
        self._subplans = [Model(p) for p in data.subplans]
        self._parts = (arena, consts, table)
        self._graph: CompiledGraph | None = None
        self._fast: Callable[[Any, Any], list[Any] | None] | None = None
        self._refusal: str | None = None
        self._first_run = threading.Lock()
        if not _has_foreign(data):
            self._complete()

    def _complete(self) -> CompiledGraph:
        """The runnable graph: foreign libraries loaded (their constructors
        probed first) and their addresses in the task table."""
        data = self._data
        arena, consts, table = self._parts
        if data.foreign:
            slots = list(data.slots)
            restore_addresses(
                data.portable_ops, data.payloads, data.foreign, slots, model_file.WHAT
            )
            for slot, *_ in data.foreign:
                table.set_slot(slot, slots[slot])
        n_in, n_out = len(data.inputs), len(data.outputs)
        graph = CompiledGraph(
            name=data.name,
            tensors=self._tensors,
            steps=self._steps(),
            input_ids=list(range(n_in)),
            output_ids=list(range(n_in, n_in + n_out)),
            output_copies=self._copies,
            arena=arena,
            consts=consts,
            tasks=table,
        )
        # Note [Fast run path] (ge.engine.hotpath): DeviceBuffers accepted.
        self._fast = graph.fast_runner(
            [t.nbytes for t in (*data.inputs, *data.outputs)]
        )
        self._graph = graph
        return graph

    def _steps(self) -> list[TaskSegment | BranchStep]:
        """The tasks as segments, with the branch steps between them (their
        plans completed first)."""
        data = self._data
        if not data.branches:
            return [TaskSegment(0, len(data.tasks))]
        steps: list[TaskSegment | BranchStep] = []
        start = 0
        for record in data.branches:
            if record.at > start:
                steps.append(TaskSegment(start, record.at))
                start = record.at
            steps.append(
                BranchStep(
                    name=record.node,
                    rule=ControlFlow(record.rule),
                    selector=record.selector,
                    selector_dtype=DataType[record.selector_dtype],
                    selector_dims=record.selector_shape,
                    inputs=tuple((b, o) for b, o, _ in record.inputs),
                    outputs=tuple((b, o) for b, o, _ in record.outputs),
                    plans=tuple(
                        self._subplans[p]._first_execute() for p in record.plans
                    ),
                )
            )
        if start < len(data.tasks):
            steps.append(TaskSegment(start, len(data.tasks)))
        return steps

    def _first_execute(self) -> CompiledGraph:
        """Complete the model once (Note [Opening a model runs nothing]);
        a refusal is kept and raised again by every later call."""
        with self._first_run:
            if self._graph is not None:
                return self._graph
            if self._refusal is not None:
                raise FileFormatError(self._refusal)
            try:
                return self._complete()
            except FileFormatError as exc:
                self._refusal = str(exc)
                raise

    @staticmethod
    def _kernels(data: ModelData) -> dict[tuple[int, int], Kernel]:
        loaded: dict[tuple[int, int], Kernel] = {}
        for binary_index, name_index, *_ in data.tasks:
            key = (binary_index, name_index)
            if key in loaded:
                continue
            try:
                binary = load_binary(data.binaries[binary_index])
                loaded[key] = binary.get_function(data.kernel_names[name_index])
            except (BadKernelBinary, LookupError) as exc:
                raise FileFormatError(
                    f"{model_file.WHAT}: kernel binary {binary_index}: {exc}"
                ) from None
        return loaded

    def _check_task(
        self,
        index: int,
        kernel: Kernel,
        block_dim: int,
        first: int,
        count: int,
        bound: dict[int, tuple[int, int]],
    ) -> None:
        """The launch against the kernel's declaration, before anything runs
        (``ge.device.launch_check``, the check every launch path asks)."""
        data = self._data
        values = data.slots[first : first + count]
        memory: list[Memory | None] = []  # a bound slot's buffer, from it on
        for slot in range(first, first + count):
            binding = bound.get(slot)
            if binding is None:
                memory.append(None)
                continue
            buffer, offset = binding
            kind, _ = data.layout.locate(buffer)
            available = data.buffer_size(buffer) - offset
            memory.append((ACCESS_OF_BUFFER[kind], available))
        try:
            decls = declarations(kernel, count)
            check_args(kernel, decls, block_dim, values, memory)
        except LaunchRefusal as refused:
            raise FileFormatError(
                f"{model_file.WHAT}: task {index}: "
                + _words(kernel, count, refused, data, bound.get(first + refused.index))
            ) from None

    # -- descriptions (ACL's acl.mdl.get_*) --------------------------------------------

    @property
    def restored_libraries(self) -> int:
        """How many foreign libraries the model's portable payloads give its
        foreign calls (GE's Deserialize): decoded and checked when the model
        was opened, loaded at its first execute (Note [Opening a model runs
        nothing])."""
        return self._libraries

    @property
    def name(self) -> str:
        return self._data.name

    def get_num_inputs(self) -> int:
        return len(self._data.inputs)

    def get_num_outputs(self) -> int:
        return len(self._data.outputs)

    def _input(self, index: int) -> TensorDescription:
        if not isinstance(index, int) or not 0 <= index < len(self._data.inputs):
            raise IndexError(
                f"model has {len(self._data.inputs)} input(s), not {index!r}"
            )
        return self._data.inputs[index]

    def _output(self, index: int) -> TensorDescription:
        if not isinstance(index, int) or not 0 <= index < len(self._data.outputs):
            raise IndexError(
                f"model has {len(self._data.outputs)} output(s), not {index!r}"
            )
        return self._data.outputs[index]

    def get_input_size_by_index(self, index: int) -> int:
        return self._input(index).nbytes

    def get_output_size_by_index(self, index: int) -> int:
        return self._output(index).nbytes

    def get_input_dims(self, index: int) -> list[int]:
        return list(self._input(index).shape)

    def get_output_dims(self, index: int) -> list[int]:
        return list(self._output(index).shape)

    def get_input_data_type(self, index: int) -> DataType:
        return DataType[self._input(index).dtype]

    def get_output_data_type(self, index: int) -> DataType:
        return DataType[self._output(index).dtype]

    def get_input_name_by_index(self, index: int) -> str:
        return self._input(index).name

    def get_output_name_by_index(self, index: int) -> str:
        return self._output(index).name

    # -- execution ------------------------------------------------------------------

    def _tensor(
        self, value: Tensor | DeviceBuffer, description: TensorDescription, what: str
    ) -> Tensor:
        if isinstance(value, Tensor):
            return value
        if isinstance(value, DeviceBuffer):
            if value.size < description.nbytes:
                raise ValueError(
                    f"{what} needs {description.nbytes} bytes, the buffer has {value.size}"
                )
            return wrap_buffer(
                value,
                description.shape,
                DataType[description.dtype],
                Format[description.format],
                Placement.PLACEMENT_DEVICE,
            )
        raise TypeError(
            f"{what} must be a ge.graph.Tensor or a DeviceBuffer, "
            f"got {type(value).__name__}"
        )

    def execute(
        self,
        inputs: Sequence[Tensor | DeviceBuffer],
        outputs: Sequence[Tensor | DeviceBuffer],
    ) -> None:
        """Run once: read ``inputs``, write ``outputs`` (any buffers of the
        right size; their addresses may change from run to run)."""
        graph = self._graph
        if graph is None:
            graph = self._first_execute()
        fast = self._fast
        if fast is not None and fast(inputs, outputs) is not None:
            return
        if len(inputs) != len(self._data.inputs) or len(outputs) != len(
            self._data.outputs
        ):
            raise ValueError(
                f"model '{self.name}' takes {len(self._data.inputs)} input(s) and "
                f"{len(self._data.outputs)} output(s), got {len(inputs)} and {len(outputs)}"
            )
        ins = [
            self._tensor(v, d, f"input {i}")
            for i, (v, d) in enumerate(zip(inputs, self._data.inputs))
        ]
        outs = [
            self._tensor(v, d, f"output {j}")
            for j, (v, d) in enumerate(zip(outputs, self._data.outputs))
        ]
        graph.run(ins, outs)


def _has_foreign(data: ModelData) -> bool:
    """Whether the model or a branch plan in it calls foreign libraries."""
    return bool(data.foreign) or any(_has_foreign(p) for p in data.subplans)


def load_model_bytes(data: bytes) -> Model:
    return Model(model_file.decode(data))


def load_model(path: str | os.PathLike[str]) -> Model:
    """Load a model file; FileFormatError (a ValueError) if it is damaged,
    or is not a regular file of at most ``MAX_FILE_BYTES`` (Note [Untrusted
    container files] in ``ge._container``)."""
    data = read_regular_file(path, model_file.MAX_FILE_BYTES, model_file.WHAT)
    return load_model_bytes(data)
