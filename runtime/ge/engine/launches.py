"""One declared launch into the task table, checked against its kernel.

``declare_launch_args`` appends an argument slot per kernel argument (an
input, output or workspace of the node, or a scalar). Before anything runs,
each slot is checked against the kernel's ``GE_KERNEL`` declaration: the
argument count, scalar against pointer, which memory a pointer may be bound
to (Note [Kernels never write their inputs] in ``binding``) and that the
bytes the kernel declares fit. Pointer slots become bindings, written by
every run from the address table (only where the address changed).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ge.custom_op.contexts import ArgSlot, LaunchSlotKind
from ge.device import rt
from ge.device.kernels import ArgKind, Kernel
from ge.engine.binding import ACCESS_OF_SLOT, refusal
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
    with ``label`` (the node), for a slot its declaration refuses.
    ``place`` says where an input, output or workspace slot's memory is."""
    where = f"{label}: kernel {kernel.name}"
    decls = kernel.expand(len(slots))
    if decls is None:
        raise CompileError(
            f"{where} takes {kernel.arity()}, declare_launch_args appended {len(slots)}"
        )
    scalars = [s.value if s.kind is LaunchSlotKind.SCALAR else 0 for s in slots]
    try:
        rt.check_list_count(kernel, decls, scalars)
    except rt.LaunchError as exc:
        raise CompileError(f"{label}: {exc}") from None
    first = tasks.next_slot
    values: list[int] = []
    for index, (slot, decl) in enumerate(zip(slots, decls)):
        scalar = slot.kind is LaunchSlotKind.SCALAR
        if decl.nullable and scalar and slot.value == 0:
            values.append(0)  # an absent optional input: a null address
            continue
        if scalar != (decl.kind is ArgKind.SCALAR):
            raise CompileError(
                f"{where} argument {index} is declared {decl.describe()}, but "
                f"declare_launch_args appended a {slot.kind}"
            )
        if scalar:
            values.append(slot.value)
            continue
        reason = refusal(decl, ACCESS_OF_SLOT[slot.kind])
        if reason is not None:
            raise CompileError(
                f"{where} argument {index} is declared {decl.describe()}, but "
                f"declare_launch_args bound an {slot.kind} there ({reason})"
            )
        memory = place(slot)
        needed = decl.bytes_needed(block_dim, scalars)
        if needed is not None and needed > memory.nbytes:
            raise CompileError(
                f"{where} argument {index} ({decl.describe()}): the kernel declares "
                f"{needed} bytes there, but the {slot.kind} has {memory.nbytes}"
            )
        tasks.bind(first + index, memory.buffer, memory.offset)
        values.append(0)  # written by each run
    tasks.add(kernel, values, block_dim)
