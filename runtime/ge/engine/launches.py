"""One declared launch into the task table, checked against its kernel.

``declare_launch_args`` appends an argument slot per kernel argument (an
input, output or workspace of the node, or a scalar). Before anything runs,
the slots are checked against the kernel's ``GE_KERNEL`` declaration by
``ge.device.launch_check``, the check model loading and eager launches ask
too: the argument count, scalar against pointer, which memory a pointer may
be bound to (Note [Kernels never write their inputs]) and that the bytes
the kernel declares fit. Pointer slots become bindings, written by every
run from the address table (only where the address changed).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ge.custom_op.contexts import ArgSlot, LaunchSlotKind
from ge.device.kernels import Kernel
from ge.device.launch_check import (
    LaunchRefusal,
    Memory,
    Refused,
    check_args,
    declarations,
)
from ge.engine.binding import ACCESS_OF_SLOT
from ge.engine.errors import CompileError
from ge.engine.tasks import TaskTable


@dataclass(frozen=True)
class Place:
    """Where a slot's memory is: buffer, offset, and how many bytes it has."""

    buffer: int  # index into the run's address table
    offset: int
    nbytes: int


def bind_launch(
    label: str,
    kernel: Kernel,
    slots: Sequence[ArgSlot],
    block_dim: int,
    place: Callable[[ArgSlot], Place],
    tasks: TaskTable,
) -> None:
    """Append one launch of ``kernel`` to ``tasks``; CompileError, starting
    with ``label`` (the node), for a slot its declaration refuses
    (``ge.device.launch_check``, the check every launch path asks).
    ``place`` says where an input, output or workspace slot's memory is."""
    values = [s.value if s.kind is LaunchSlotKind.SCALAR else 0 for s in slots]
    try:
        decls = declarations(kernel, len(slots))
        places = {
            index: place(slot)
            for index, slot in enumerate(slots)
            if slot.kind is not LaunchSlotKind.SCALAR
        }
        memory: list[Memory | None] = [
            (
                (ACCESS_OF_SLOT[slot.kind], places[index].nbytes)
                if index in places
                else None
            )
            for index, slot in enumerate(slots)
        ]
        check_args(kernel, decls, block_dim, values, memory)
    except LaunchRefusal as refused:
        raise CompileError(_words(label, kernel, slots, refused)) from None
    first = tasks.next_slot
    for index, where in places.items():
        tasks.bind(first + index, where.buffer, where.offset)
    tasks.add(kernel, values, block_dim)  # a pointer's slot: written by each run


def _words(
    label: str, kernel: Kernel, slots: Sequence[ArgSlot], refused: LaunchRefusal
) -> str:
    """A declared launch's refusal, as the compiler says it."""
    where = f"{label}: kernel {kernel.name}"
    index, decl = refused.index, refused.decl
    if refused.what is Refused.ARITY:
        return (
            f"{where} takes {kernel.arity()}, declare_launch_args appended "
            f"{len(slots)}"
        )
    if refused.what is Refused.LIST_COUNT or decl is None:
        return f"{label}: {refused}"
    kind = slots[index].kind
    if refused.what is Refused.ACCESS:
        return (
            f"{where} argument {index} is declared {decl.describe()}, but "
            f"declare_launch_args bound an {kind} there ({refused.reason})"
        )
    if refused.what is Refused.SPAN:
        return (
            f"{where} argument {index} ({decl.describe()}): the kernel declares "
            f"{refused.needed} bytes there, but the {kind} has {refused.available}"
        )
    # Refused.VALUE or Refused.MEMORY: a scalar for a pointer, or the reverse
    return (
        f"{where} argument {index} is declared {decl.describe()}, but "
        f"declare_launch_args appended a {kind}"
    )
