"""Where each buffer of a run sits in the run's address table.

Note [Buffer layout]: a compiled graph (and a model file, which stores one)
reaches every byte a kernel touches as a buffer index plus an offset. The
buffers of a run are numbered in one order: the arena (every intermediate
tensor) first, then the graph inputs, the graph outputs, the constants and
the workspaces, each group in its own order. A run writes the address of
each buffer at its index (inputs and outputs change from run to run; the
rest are fixed per run state), and the native runner adds the offset.
``BufferLayout`` is the only place that numbering is computed: the
compiler, the compiled graph, the model file and its loader ask it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace


class BufferKind(enum.Enum):
    """The groups of the address table, in table order."""

    ARENA = "arena"
    INPUT = "input"
    OUTPUT = "output"
    CONST = "const"
    WORKSPACE = "workspace"


_ORDER = tuple(BufferKind)


@dataclass(frozen=True)
class BufferLayout:
    """How many buffers of each kind a run has, and so where each one is
    (Note [Buffer layout]). There is always exactly one arena."""

    inputs: int
    outputs: int
    consts: int = 0
    workspaces: int = 0

    def count(self, kind: BufferKind) -> int:
        """How many buffers of ``kind`` there are."""
        if kind is BufferKind.ARENA:
            return 1
        return {
            BufferKind.INPUT: self.inputs,
            BufferKind.OUTPUT: self.outputs,
            BufferKind.CONST: self.consts,
            BufferKind.WORKSPACE: self.workspaces,
        }[kind]

    def first(self, kind: BufferKind) -> int:
        """The index of the first buffer of ``kind`` (where it would be,
        when there is none)."""
        at = 0
        for each in _ORDER:
            if each is kind:
                return at
            at += self.count(each)
        raise AssertionError(kind)  # pragma: no cover - every kind is in _ORDER

    def index(self, kind: BufferKind, position: int) -> int:
        """The index of buffer ``position`` of ``kind`` (IndexError if there
        is no such buffer)."""
        if not 0 <= position < self.count(kind):
            raise IndexError(
                f"{kind.value} buffer {position} of {self.count(kind)} does not exist"
            )
        return self.first(kind) + position

    @property
    def size(self) -> int:
        """How many buffers a run has (the address table's length)."""
        return sum(self.count(kind) for kind in _ORDER)

    def locate(self, index: int) -> tuple[BufferKind, int]:
        """The kind of buffer ``index`` and its position among that kind
        (IndexError outside the table)."""
        if index >= 0:
            at = index
            for kind in _ORDER:
                if at < self.count(kind):
                    return kind, at
                at -= self.count(kind)
        raise IndexError(f"buffer {index} is not in a table of {self.size}")

    def with_workspaces(self, workspaces: int) -> BufferLayout:
        """This layout with ``workspaces`` workspaces (the compiler learns
        them last, node by node)."""
        return replace(self, workspaces=workspaces)


ARENA = BufferLayout(0, 0).first(BufferKind.ARENA)  # 0, whatever the counts
