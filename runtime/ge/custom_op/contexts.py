"""The contexts callbacks receive, and the functions that fetch them.

Each callback runs with its context bound in a ContextVar; ``get_*_ctx()``
outside that callback raises RuntimeError, and nested bindings restore the
outer one. Contexts and everything they hand out (tensors, workspaces,
argument builders) share one lease that ends when the callback returns.
"""

from __future__ import annotations

import contextlib
import enum
import os
import platform
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ge.custom_op.portable import ForeignLaunchInfo
from ge.custom_op.subgraphs import NO_SUBGRAPHS, Subgraph, SubgraphTable
from ge.device.args import MAX_BLOCK_DIM
from ge.device.args import scalar_bits as _device_scalar_bits
from ge.device.rt import CALLBACK
from ge.graph.attrs import AttrType
from ge.graph.graph import InputKind
from ge.graph.limits import MAX_TENSOR_BYTES
from ge.graph.types import DataType, Format
from ge.runtime.lease import Lease
from ge.runtime.tensor import Tensor
from ge.runtime.types import (
    Shape,
    StorageFormat,
    StorageShape,
    checked_dims,
    dims_of,
    storage_dims_of,
)

__all__ = [
    "AnnotatedArgsContext",
    "AnnotatedKernelArgs",
    "AnnotatedKernelLaunchInfo",
    "CompilePlatformInfo",
    "EagerOpExecutionContext",
    "InferMetaContext",
    "LaunchConfig",
    "OpCompileContext",
    "RuntimeAttrs",
    "WorkspaceAddr",
    "get_compile_ctx",
    "get_compile_platform_info",
    "get_declare_launch_args_ctx",
    "get_execute_ctx",
    "get_infer_meta_ctx",
]

C = TypeVar("C")


class _Slot(Generic[C]):
    def __init__(self, name: str, what: str) -> None:
        self.var: ContextVar[C | None] = ContextVar(name, default=None)
        self.what = what

    def get(self) -> C:
        value = self.var.get()
        if value is None:
            raise RuntimeError(f"{self.what} is only available inside its callback")
        return value

    @contextlib.contextmanager
    def bind(self, value: C) -> Iterator[C]:
        token = self.var.set(value)
        try:
            yield value
        finally:
            self.var.reset(token)


_COMPILE: _Slot[OpCompileContext] = _Slot("ge_compile_ctx", "get_compile_ctx()")
_PLATFORM: _Slot[CompilePlatformInfo] = _Slot(
    "ge_platform", "get_compile_platform_info()"
)
_DECLARE: _Slot[AnnotatedArgsContext] = _Slot(
    "ge_declare_ctx", "get_declare_launch_args_ctx()"
)
_INFER: _Slot[InferMetaContext] = _Slot("ge_infer_ctx", "get_infer_meta_ctx()")


def get_execute_ctx() -> EagerOpExecutionContext:
    # The execute path binds the context with its call's RegionSet (Note
    # [One binding per call] in ge.device.rt).
    scope = CALLBACK.get()
    ctx = None if scope is None else scope.context
    if ctx is None:
        raise RuntimeError("get_execute_ctx() is only available inside its callback")
    return ctx  # type: ignore[return-value]


def get_compile_ctx() -> OpCompileContext:
    return _COMPILE.get()


def get_compile_platform_info() -> CompilePlatformInfo:
    return _PLATFORM.get()


def get_declare_launch_args_ctx() -> AnnotatedArgsContext:
    return _DECLARE.get()


def get_infer_meta_ctx() -> InferMetaContext:
    return _INFER.get()


# --- binding contexts: the runtime's internal API (ge.engine calls these; the
# execute path binds its context as Note [One binding per call] in ge.device.rt says) --


@contextlib.contextmanager
def compiling(ctx: OpCompileContext, platform: CompilePlatformInfo) -> Iterator[None]:
    """Run a ``compile`` callback with its compile context and platform."""
    with _COMPILE.bind(ctx), _PLATFORM.bind(platform):
        yield


@contextlib.contextmanager
def declaring(ctx: AnnotatedArgsContext) -> Iterator[None]:
    """Run a ``declare_launch_args`` callback with ``ctx``."""
    with _DECLARE.bind(ctx):
        yield


@contextlib.contextmanager
def inferring(ctx: InferMetaContext) -> Iterator[None]:
    """Run an ``infer_meta`` function with ``ctx``."""
    with _INFER.bind(ctx):
        yield


# --- values every context uses ------------------------------------------------


@dataclass(frozen=True)
class LaunchConfig:
    """What a generated ``declare_launch_args`` needs from the author: the
    kernel binary and how many blocks to launch (an extension of GE)."""

    kernel_bin: bytes
    block_dim: int


class RuntimeAttrs:
    """An op node's attrs by IR index (GE's ``RuntimeAttrs``)."""

    __slots__ = ("_items", "_lease")

    def __init__(
        self, items: Sequence[tuple[str, AttrType, Any]], lease: Lease
    ) -> None:
        self._items = list(items)
        self._lease = lease

    def get_attr_num(self) -> int:
        self._lease.check(self)
        return len(self._items)

    def get_name(self, index: int) -> str:
        self._lease.check(self)
        self._index(index)
        return self._items[index][0]

    def _index(self, index: int) -> None:
        if (
            isinstance(index, bool)
            or not isinstance(index, int)
            or not 0 <= index < len(self._items)
        ):
            raise IndexError(
                f"attr index {index} out of range ({len(self._items)} attrs)"
            )

    def _get(self, index: int, *kinds: AttrType) -> Any:
        self._lease.check(self)
        self._index(index)
        name, kind, value = self._items[index]
        if kind not in kinds:
            raise TypeError(
                f"attr {index} ({name}) is {kind.value}, not {kinds[0].value}"
            )
        return list(value) if isinstance(value, tuple) else value

    def get_int(self, index: int) -> int:
        return self._get(index, AttrType.INT)

    def get_float(self, index: int) -> float:
        return self._get(index, AttrType.FLOAT)

    def get_bool(self, index: int) -> bool:
        return self._get(index, AttrType.BOOL)

    def get_str(self, index: int) -> str:
        return self._get(index, AttrType.STR)

    def get_data_type(self, index: int) -> DataType:
        return self._get(index, AttrType.DTYPE)

    def get_tensor(self, index: int) -> Any:
        return self._get(index, AttrType.TENSOR)

    def get_list_int(self, index: int) -> list[int]:
        return self._get(index, AttrType.LIST_INT)

    def get_list_float(self, index: int) -> list[float]:
        return self._get(index, AttrType.LIST_FLOAT)

    def get_list_bool(self, index: int) -> list[bool]:
        return self._get(index, AttrType.LIST_BOOL)

    def get_list_str(self, index: int) -> list[str]:
        return self._get(index, AttrType.LIST_STR)

    def get_list_data_type(self, index: int) -> list[DataType]:
        return self._get(index, AttrType.LIST_DTYPE)

    def get_list_list_int(self, index: int) -> list[list[int]]:
        return [list(row) for row in self._get(index, AttrType.LIST_LIST_INT)]


@dataclass(frozen=True)
class IrSlot:
    """One IR input or output of the node being run: name, kind, instances."""

    name: str
    kind: InputKind
    count: int


def _flat_index(slots: Sequence[IrSlot], ir_index: int, rel: int = 0) -> int:
    if not isinstance(ir_index, int) or not 0 <= ir_index < len(slots):
        raise IndexError(f"IR index {ir_index} out of range ({len(slots)} IR slots)")
    start = sum(s.count for s in slots[:ir_index])
    if not 0 <= rel < slots[ir_index].count:
        raise IndexError(
            f"instance {rel} out of range for {slots[ir_index].name} "
            f"({slots[ir_index].count} instances)"
        )
    return start + rel


def _workspace_size(size: object) -> int:
    """A workspace is 0..MAX_TENSOR_BYTES bytes (Note [Tensor size limits])."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise ValueError(f"workspace size must be an int >= 0, got {size!r}")
    if size > MAX_TENSOR_BYTES:
        raise ValueError(
            f"a workspace of {size} bytes is more than the CPU device allocates at "
            f"once ({MAX_TENSOR_BYTES} bytes)"
        )
    return size


# --- infer_meta ------------------------------------------------------------------


class _Subgraphs:
    """A node's subgraphs, for the contexts that hand them out (Note
    [Subgraph ops] in ``ge.custom_op.subgraphs``)."""

    _subgraphs: SubgraphTable

    def get_subgraph_names(self) -> list[str]:
        """The IR names of the node's subgraphs, in IR order."""
        return self._subgraphs.names()

    def get_subgraph(self, name: str) -> Subgraph:
        """The subgraph of IR name ``name`` (a ``GRAPH``)."""
        return self._subgraphs.get(name)

    def get_dynamic_subgraph_num(self, name: str) -> int:
        """How many graphs the ``DYNAMIC_GRAPH`` ``name`` holds."""
        return self._subgraphs.count(name)

    def get_dynamic_subgraph(self, name: str, index: int) -> Subgraph:
        """Graph ``index`` of the ``DYNAMIC_GRAPH`` ``name``."""
        return self._subgraphs.dynamic(name, index)


class InferMetaContext(_Subgraphs):
    """What infer_meta may ask beyond its arguments: instance counts, the
    node's subgraphs, and the values of inputs that are constants (GE's
    value-dependent inputs: Split's ``split_dim``, Transpose's ``perm``)."""

    def __init__(
        self,
        node_name: str,
        outputs: Sequence[IrSlot],
        subgraphs: SubgraphTable = NO_SUBGRAPHS,
        const_inputs: Mapping[int, Any] | None = None,
        input_formats: Sequence[Format] = (),
    ) -> None:
        self._node = node_name
        self._outputs = list(outputs)
        self._subgraphs = subgraphs
        self._consts = dict(const_inputs or {})
        self._formats = list(input_formats)

    def get_input_format(self, index: int) -> Format:
        """The format (GE's origin format) of input ``index`` (flattened
        over the dynamic inputs' instances): its producer's output format;
        FORMAT_ND when it is absent or not known. Ops whose layout follows
        the tensor, as GE's convolutions, read it."""
        if 0 <= index < len(self._formats):
            return self._formats[index]
        return Format.FORMAT_ND

    def get_input_const_data(self, index: int) -> Any:
        """The value (a numpy array) of input ``index`` (flattened over the
        dynamic inputs' instances) when a ``Const`` node produces it, else
        None: an op whose output shape depends on it must refuse then."""
        return self._consts.get(index)

    def get_node_name(self) -> str:
        return self._node

    def get_output_num(self) -> int:
        return sum(s.count for s in self._outputs)

    def get_dynamic_output_num(self, ir_index: int) -> int:
        if not 0 <= ir_index < len(self._outputs):
            raise IndexError(f"output IR index {ir_index} out of range")
        return self._outputs[ir_index].count


# --- execute -------------------------------------------------------------------------


class OutputAllocator:
    """The runtime's side of an execute call (implemented by the session)."""

    def allocate(
        self, index: int, dims: tuple[int, ...], dtype: DataType
    ) -> Tensor:  # pragma: no cover - interface
        """Output ``index`` with storage ``dims`` (a tuple of checked ints)
        and ``dtype``: a view ``copy_from`` may write (``ViewTemplate.view``
        with ``writable``)."""
        raise NotImplementedError

    def alias(self, output: int, input_index: int) -> Tensor:  # pragma: no cover
        """Output ``output`` as a view of input ``input_index``'s memory,
        writable as ``allocate``'s."""
        raise NotImplementedError

    def workspace(self, size: int) -> int:  # pragma: no cover
        raise NotImplementedError


class EagerOpExecutionContext(_Subgraphs):
    """Inputs, attrs, output allocation, workspaces and subgraphs of one
    execute call."""

    def __init__(
        self,
        *,
        node_name: str,
        lease: Lease,
        inputs: Sequence[Tensor | None],
        ir_inputs: Sequence[IrSlot],
        ir_outputs: Sequence[IrSlot],
        attrs: RuntimeAttrs,
        runtime: OutputAllocator,
        stream: int,
        subgraphs: SubgraphTable = NO_SUBGRAPHS,
    ) -> None:
        self._node = node_name
        self._subgraphs = subgraphs
        self._lease = lease
        self._inputs = list(inputs)
        self._ir_inputs = list(ir_inputs)
        self._ir_outputs = list(ir_outputs)
        self._output_num = sum(s.count for s in ir_outputs)
        self._attrs: RuntimeAttrs | None = attrs
        self._attr_items: Sequence[tuple[str, AttrType, Any]] = ()
        self._runtime = runtime
        self._stream = stream
        self._outputs: dict[int, Tensor] = {}

    @classmethod
    def for_call(
        cls,
        node_name: str,
        lease: Lease,
        inputs: list[Tensor | None],
        ir_inputs: tuple[IrSlot, ...],
        ir_outputs: tuple[IrSlot, ...],
        output_num: int,
        attr_items: Sequence[tuple[str, AttrType, Any]],
        runtime: OutputAllocator,
        stream: int,
        subgraphs: SubgraphTable = NO_SUBGRAPHS,
    ) -> EagerOpExecutionContext:
        """The context of one execute call from what the runtime prepared
        when it compiled the node (nothing checked again; ``inputs`` is
        the call's own list): the execute path's constructor. Its attrs
        are made when first asked for."""
        ctx = cls.__new__(cls)
        ctx._node = node_name
        ctx._subgraphs = subgraphs
        ctx._lease = lease
        ctx._inputs = inputs
        ctx._ir_inputs = ir_inputs  # type: ignore[assignment]
        ctx._ir_outputs = ir_outputs  # type: ignore[assignment]
        ctx._output_num = output_num
        ctx._attrs = None
        ctx._attr_items = attr_items
        ctx._runtime = runtime
        ctx._stream = stream
        ctx._outputs = {}
        return ctx

    def _check(self) -> None:
        self._lease.check(self)

    def get_node_name(self) -> str:
        self._check()
        return self._node

    def get_input_num(self) -> int:
        self._check()
        return len(self._inputs)

    def get_output_num(self) -> int:
        self._check()
        return self._output_num

    def get_input_tensor(self, index: int) -> Tensor | None:
        self._check()
        if not isinstance(index, int) or not 0 <= index < len(self._inputs):
            raise IndexError(
                f"input index {index} out of range ({len(self._inputs)} inputs)"
            )
        return self._inputs[index]

    def get_dynamic_input_num(self, ir_index: int) -> int:
        self._check()
        if (
            isinstance(ir_index, bool)
            or not isinstance(ir_index, int)
            or not 0 <= ir_index < len(self._ir_inputs)
        ):
            raise IndexError(
                f"IR index {ir_index} out of range ({len(self._ir_inputs)} IR inputs)"
            )
        return self._ir_inputs[ir_index].count

    def get_required_input_tensor(self, ir_index: int) -> Tensor:
        self._check()
        tensor = self._inputs[_flat_index(self._ir_inputs, ir_index)]
        if tensor is None:
            raise RuntimeError(f"input {ir_index} is absent")
        return tensor

    def get_optional_input_tensor(self, ir_index: int) -> Tensor | None:
        self._check()
        return self._inputs[_flat_index(self._ir_inputs, ir_index)]

    def get_dynamic_input_tensor(self, ir_index: int, relative_index: int) -> Tensor:
        self._check()
        tensor = self._inputs[_flat_index(self._ir_inputs, ir_index, relative_index)]
        assert tensor is not None
        return tensor

    def get_attrs(self) -> RuntimeAttrs:
        self._check()
        if self._attrs is None:
            self._attrs = RuntimeAttrs(self._attr_items, self._lease)
        return self._attrs

    def _output_index(self, index: int) -> int:
        total = self._output_num
        if (
            not isinstance(index, int)
            or isinstance(index, bool)
            or not 0 <= index < total
        ):
            raise IndexError(f"output index {index} out of range ({total} outputs)")
        return index

    def malloc_output_tensor(
        self,
        index: int,
        shape: StorageShape | Shape | Sequence[int],
        format: StorageFormat | Format,
        data_type: DataType,
    ) -> Tensor:
        """Allocate output ``index`` (flattened) and return its view."""
        if not self._lease.valid:
            self._check()
        if type(index) is not int or not 0 <= index < self._output_num:
            index = self._output_index(index)  # raises unless an int subclass
        if index in self._outputs:
            raise RuntimeError(f"output {index} is already allocated")
        # Shapes and formats were checked when they were made: only what
        # can still fail is checked here (an expired view, a wrong type).
        if isinstance(shape, StorageShape):
            dims = storage_dims_of(shape)
        elif isinstance(shape, Shape):
            dims = dims_of(shape)
        elif isinstance(shape, (list, tuple)):
            dims = checked_dims(shape, "Shape")
        else:
            raise TypeError(
                f"shape must be a StorageShape, Shape or list, got {type(shape).__name__}"
            )
        if isinstance(format, StorageFormat):
            format.origin_format  # noqa: B018 - raises when an expired view
        elif not isinstance(format, Format):
            raise TypeError(
                f"format must be a StorageFormat or Format, got {type(format).__name__}"
            )
        if not isinstance(data_type, DataType):
            raise TypeError(
                f"data_type must be a DataType, got {type(data_type).__name__}"
            )
        tensor = self._runtime.allocate(index, dims, data_type)  # writable
        self._outputs[index] = tensor
        return tensor

    def make_output_ref_input(self, output_index: int, input_index: int) -> Tensor:
        """Output ``output_index`` shares the memory of input ``input_index``."""
        self._check()
        output_index = self._output_index(output_index)
        if output_index in self._outputs:
            raise RuntimeError(f"output {output_index} is already allocated")
        self.get_input_tensor(input_index)
        tensor = self._runtime.alias(output_index, input_index)  # writable
        self._outputs[output_index] = tensor
        return tensor

    def get_output_tensor(self, index: int) -> Tensor:
        self._check()
        index = self._output_index(index)
        if index not in self._outputs:
            raise RuntimeError(
                f"output {index} is not allocated yet (malloc_output_tensor)"
            )
        return self._outputs[index]

    def malloc_workspace(self, size: int) -> int:
        """Scratch memory for this call; its address."""
        self._check()
        return self._runtime.workspace(_workspace_size(size))

    def get_stream(self) -> int:
        if not self._lease.valid:
            self._check()
        return self._stream

    def allocated_outputs(self) -> dict[int, Tensor]:
        return dict(self._outputs)

    # The runtime's side (ge.engine), not GE's API:

    def retain(self, resources: list[Any]) -> None:
        """Keep ``resources`` (the call's workspaces) alive as long as this
        context: while someone holds the expired context, no later buffer
        takes their addresses."""
        self._retained = resources


# --- compile -------------------------------------------------------------------------


class OpCompileContext:
    """Options of the compilation (session and graph options)."""

    def __init__(self, options: dict[str, str], lease: Lease) -> None:
        self._options = dict(options)
        self._lease = lease

    def get_option(self, key: str) -> str | None:
        self._lease.check(self)
        value = self._options.get(key)
        return None if value is None else str(value)


# The core count compile sees instead of the machine's (ge.custom_op.opcheck
# runs an op under several, as the block counts a device may choose).
core_count_override: int | None = None


class CompilePlatformInfo:
    """The CPU device, in GE's platform-info shape."""

    def __init__(self, lease: Lease) -> None:
        self._lease = lease
        cores = core_count_override or os.cpu_count() or 1
        arch = platform.machine() or "cpu"
        self._groups: dict[str, dict[str, str]] = {
            "version": {
                "SoC_version": f"CPU-{arch}",
                "Short_SoC_version": "CPU",
                "NpuArch": f"cpu-{arch}",
            },
            "SoCInfo": {
                "ai_core_cnt": str(cores),
                "cube_core_cnt": "0",
                "vector_core_cnt": str(cores),
                "core_type_list": "CPU",
            },
            "AICoreintrinsicDtypeMap": {},
        }

    def get_platform_resource(self, group: str, key: str) -> str:
        self._lease.check(self)
        try:
            return self._groups[group][key]
        except KeyError:
            raise RuntimeError(
                f"platform resource {group}/{key} is not defined"
            ) from None

    def get_platform_resource_group(self, group: str) -> dict[str, str]:
        self._lease.check(self)
        if group not in self._groups:
            raise RuntimeError(f"platform resource group {group} is not defined")
        return dict(self._groups[group])

    def get_core_num(self, core_type: str | None = None) -> int:
        self._lease.check(self)
        if core_type not in (None, "CPU", "AiCore", "VectorCore"):
            return 0
        return int(self._groups["SoCInfo"]["ai_core_cnt"])

    def get_ai_core_num(self) -> int:
        return self.get_core_num()

    def get_soc_version(self) -> str:
        self._lease.check(self)
        return self._groups["version"]["SoC_version"]


# --- declare_launch_args ------------------------------------------------------------


class AnnotatedKernelLaunchInfo:
    """One launch: which kernel, from which binary, on how many blocks, where."""

    __slots__ = ("kernel_name", "kernel_bin", "block_dim", "stream_id")

    def __init__(
        self, *, kernel_name: str, kernel_bin: bytes, block_dim: int, stream_id: int
    ) -> None:
        if not isinstance(kernel_name, str) or not kernel_name:
            raise TypeError("kernel_name must be a non-empty str")
        if not isinstance(kernel_bin, (bytes, bytearray)):
            raise TypeError(
                f"kernel_bin must be bytes, got {type(kernel_bin).__name__}"
            )
        if (
            isinstance(block_dim, bool)
            or not isinstance(block_dim, int)
            or not 1 <= block_dim <= MAX_BLOCK_DIM
        ):
            raise ValueError(
                f"block_dim must be an int in 1..{MAX_BLOCK_DIM}, got {block_dim!r}"
            )
        if (
            isinstance(stream_id, bool)
            or not isinstance(stream_id, int)
            or stream_id < 0
        ):
            raise ValueError(f"stream_id must be an int >= 0, got {stream_id!r}")
        self.kernel_name = kernel_name
        self.kernel_bin = bytes(kernel_bin)
        self.block_dim = block_dim
        self.stream_id = stream_id

    def __repr__(self) -> str:
        return (
            f"AnnotatedKernelLaunchInfo(kernel_name={self.kernel_name!r}, "
            f"kernel_bin=<{len(self.kernel_bin)} bytes>, block_dim={self.block_dim}, "
            f"stream_id={self.stream_id})"
        )


class LaunchSlotKind(enum.StrEnum):
    """What declare_launch_args appended for one kernel argument."""

    INPUT = "input"
    OUTPUT = "output"
    WORKSPACE = "workspace"
    SCALAR = "scalar"


@dataclass(frozen=True)
class ArgSlot:
    """What one 64-bit argument slot holds at run time."""

    kind: LaunchSlotKind
    index: int = 0  # flattened input/output index, or workspace index
    value: int = 0  # the bits of a scalar


class WorkspaceAddr:
    """A workspace of the node: its index and (for now) its address."""

    __slots__ = ("_index", "_addr", "_size", "_lease")

    def __init__(self, index: int, addr: int, size: int, lease: Lease) -> None:
        self._index = index
        self._addr = addr
        self._size = size
        self._lease = lease

    @property
    def index(self) -> int:
        self._lease.check(self)
        return self._index

    @property
    def addr(self) -> int:
        self._lease.check(self)
        return self._addr

    @property
    def size(self) -> int:
        self._lease.check(self)
        return self._size


# One rule for scalar slots, whether a launch is made from execute (rt.launch)
# or declared here; numpy scalars (numpy.bool_ included) are accepted by both.
scalar_bits = _device_scalar_bits


class AnnotatedKernelArgs:
    """Builds one launch's argument slots; consumed by ``add_launch``."""

    def __init__(self, ctx: AnnotatedArgsContext) -> None:
        self._ctx = ctx
        self._slots: list[ArgSlot] = []
        self._consumed = False

    def _check(self) -> None:
        self._ctx._lease.check(self)
        if self._consumed:
            raise RuntimeError(
                "these kernel args were consumed by add_launch; create new ones"
            )

    def append_input(self, index: int, tensor: Tensor) -> None:
        """Slot for the node's flattened input ``index``; ``tensor`` is that input."""
        self._check()
        self._ctx._check_tensor(LaunchSlotKind.INPUT, index, tensor)
        self._slots.append(ArgSlot(LaunchSlotKind.INPUT, index))

    def append_output(self, index: int, tensor: Tensor) -> None:
        self._check()
        self._ctx._check_tensor(LaunchSlotKind.OUTPUT, index, tensor)
        self._slots.append(ArgSlot(LaunchSlotKind.OUTPUT, index))

    def append_workspace(self, workspace: WorkspaceAddr) -> None:
        self._check()
        if (
            not isinstance(workspace, WorkspaceAddr)
            or workspace._lease is not self._ctx._lease
        ):
            raise TypeError("append_workspace takes a WorkspaceAddr from this context")
        self._slots.append(ArgSlot(LaunchSlotKind.WORKSPACE, workspace.index))

    def append_scalar(self, value: int | float | bool | DataType) -> None:
        self._check()
        self._slots.append(ArgSlot(LaunchSlotKind.SCALAR, value=scalar_bits(value)))

    @property
    def slots(self) -> tuple[ArgSlot, ...]:
        return tuple(self._slots)


@dataclass(frozen=True)
class DeclaredLaunch:
    info: AnnotatedKernelLaunchInfo | ForeignLaunchInfo
    slots: tuple[ArgSlot, ...]


@dataclass
class AnnotatedArgsContext:
    """The context of ``declare_launch_args``: argument builders, workspaces,
    the stream, and the launches declared so far."""

    node_name: str
    _lease: Lease
    _inputs: list[Tensor | None]
    _outputs: list[Tensor | None]  # never None: views of the node's outputs
    _stream_id: int = 0
    _workspace_alloc: Callable[[int], int] | None = None
    launches: list[DeclaredLaunch] = field(default_factory=list)
    workspaces: list[int] = field(default_factory=list)  # sizes by index

    def _check_tensor(self, kind: LaunchSlotKind, index: int, tensor: Tensor) -> None:
        items: Sequence[Tensor | None] = (
            self._inputs if kind is LaunchSlotKind.INPUT else self._outputs
        )
        if (
            isinstance(index, bool)
            or not isinstance(index, int)
            or not 0 <= index < len(items)
        ):
            raise IndexError(
                f"{kind} index {index} out of range: node {self.node_name} has "
                f"{len(items)} flattened {kind}s"
            )
        if not isinstance(tensor, Tensor):
            raise TypeError(
                f"append_{kind} takes a ge.runtime.Tensor, got {type(tensor).__name__}"
            )
        if items[index] is None:
            raise ValueError(f"{kind} {index} of node {self.node_name} is absent")
        if items[index] is not tensor:
            raise ValueError(
                f"the tensor given is not {kind} {index} of node {self.node_name}"
            )

    def create_kernel_args(self) -> AnnotatedKernelArgs:
        self._lease.check(self)
        return AnnotatedKernelArgs(self)

    def malloc_workspace(self, size: int) -> WorkspaceAddr:
        self._lease.check(self)
        self.workspaces.append(_workspace_size(size))
        addr = self._workspace_alloc(size) if self._workspace_alloc else 0
        return WorkspaceAddr(len(self.workspaces) - 1, addr, size, self._lease)

    def get_stream_id(self) -> int:
        self._lease.check(self)
        return self._stream_id

    def add_launch(
        self,
        info: AnnotatedKernelLaunchInfo | ForeignLaunchInfo,
        args: AnnotatedKernelArgs,
    ) -> None:
        self._lease.check(self)
        if not isinstance(info, (AnnotatedKernelLaunchInfo, ForeignLaunchInfo)):
            raise TypeError(
                "add_launch takes an AnnotatedKernelLaunchInfo or a ForeignLaunchInfo"
            )
        if not isinstance(args, AnnotatedKernelArgs) or args._ctx is not self:
            raise TypeError("add_launch takes kernel args created by this context")
        args._check()
        if isinstance(info, ForeignLaunchInfo) and any(
            s.kind not in (LaunchSlotKind.INPUT, LaunchSlotKind.OUTPUT)
            for s in args.slots
        ):
            raise ValueError(
                "a foreign library's call takes only input and output pointers "
                "(its stream is passed by the runtime)"
            )
        args._consumed = True
        self.launches.append(DeclaredLaunch(info, args.slots))
