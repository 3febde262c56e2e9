"""The task table: the kernel launches of annotated-args nodes.

Each launch owns a row of consecutive argument slots in one table of 64-bit
values. A scalar argument's slot holds its value; a pointer argument's slot
is bound to a (buffer, offset) of the run's address table (Note [Buffer
layout] in ``layout``), and each run writes the address there. The compiler
builds a table launch by launch; the model loader rebuilds one from a
model file's slots, bindings and tasks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ge.device.foreign import ForeignLibrary
from ge.device.kernels import Kernel
from ge.device.memory import DeviceBuffer
from ge.engine.layout import BufferKind, BufferLayout


@dataclass(frozen=True)
class TaskSpec:
    """One launch of the task table: its kernel, slots and blocks."""

    kernel: Kernel
    first: int  # its first slot in the table
    nslots: int
    block_dim: int


@dataclass(frozen=True)
class ForeignCall:
    """A launch of a foreign library's function (Note [Foreign libraries] in
    ``ge.device.foreign``): slot ``slot`` (the adapter's first) holds the
    function's address, which is this process's and never stored."""

    slot: int
    library: ForeignLibrary
    function: str
    op_type: str
    owner: object  # the implementation instance (its serialize makes the payload)


@dataclass(frozen=True)
class Binding:
    """A slot that receives the address of a buffer plus an offset."""

    slot: int
    buffer: int  # index into the run's address table
    offset: int


class TaskTable:
    """Launches, their argument slots and bindings, and the workspaces they
    use. Workspaces come last in the address table, so adding one grows the
    layout without moving any other buffer."""

    def __init__(self, layout: BufferLayout, slots: Sequence[int] = ()) -> None:
        if layout.workspaces:
            raise ValueError("a task table adds its own workspaces")
        self._layout = layout
        self._slots = list(slots)
        self._specs: list[TaskSpec] = []
        self._bindings: list[Binding] = []
        self._workspaces: list[DeviceBuffer] = []
        self._foreign: list[ForeignCall] = []

    @property
    def foreign(self) -> list[ForeignCall]:
        """The launches of foreign functions, by their address slot."""
        return list(self._foreign)

    def note_foreign(self, call: ForeignCall) -> None:
        self._foreign.append(call)

    @property
    def layout(self) -> BufferLayout:
        """The run's buffers, counting the workspaces added so far."""
        return self._layout

    @property
    def slots(self) -> list[int]:
        """The argument slot table: scalars written, 0 where an address goes."""
        return list(self._slots)

    @property
    def specs(self) -> list[TaskSpec]:
        return list(self._specs)

    @property
    def bindings(self) -> list[Binding]:
        return list(self._bindings)

    @property
    def workspaces(self) -> list[DeviceBuffer]:
        return list(self._workspaces)

    @property
    def launch_count(self) -> int:
        return len(self._specs)

    @property
    def next_slot(self) -> int:
        """The slot the next launch's arguments start at."""
        return len(self._slots)

    def add_workspaces(self, sizes: Sequence[int]) -> list[int]:
        """Allocate workspaces (MemoryError if the machine cannot); the
        buffer index of each."""
        buffers = [DeviceBuffer(size) for size in sizes]
        first = len(self._workspaces)
        self._workspaces += buffers
        self._layout = self._layout.with_workspaces(len(self._workspaces))
        return [
            self._layout.index(BufferKind.WORKSPACE, first + i)
            for i in range(len(buffers))
        ]

    def set_slot(self, slot: int, value: int) -> None:
        """Write a constant slot (a foreign function's address, at load)."""
        self._slots[slot] = value

    def bind(self, slot: int, buffer: int, offset: int) -> None:
        """Each run writes buffer ``buffer``'s address plus ``offset`` into
        ``slot`` (only when it changed)."""
        self._bindings.append(Binding(slot, buffer, offset))

    def add(self, kernel: Kernel, values: Sequence[int], block_dim: int) -> None:
        """A launch whose argument slots are ``values``, appended to the table."""
        first = len(self._slots)
        self._slots.extend(values)
        self.add_launch(kernel, first, len(values), block_dim)

    def add_launch(
        self, kernel: Kernel, first: int, nslots: int, block_dim: int
    ) -> None:
        """A launch over slots already in the table (a model file's)."""
        self._specs.append(TaskSpec(kernel, first, nslots, block_dim))
