"""A declared launch of a foreign library's function into the task table
(Note [Foreign libraries] in ``ge.device.foreign``).

The launch becomes one task of the function's adapter kernel: slot 0 holds
the function's address (a constant of this process), then the pointers in
``call_args`` order (bound like any kernel's, so refreshed every run and
checked by the binding rules), then the stream. ``bind_launch`` checks and
binds it as any launch; the table remembers which slot holds an address so
that a model file can store where it comes from instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ge.custom_op.contexts import ArgSlot, LaunchSlotKind
from ge.custom_op.portable import ForeignLaunchInfo
from ge.device import foreign
from ge.device.kernels import BadKernelBinary
from ge.device.toolchain import BuildError
from ge.engine.errors import CompileError
from ge.engine.launches import Place, bind_launch
from ge.engine.tasks import ForeignCall, TaskTable


def bind_foreign(
    label: str,
    op_type: str,
    owner: object,
    info: ForeignLaunchInfo,
    slots: Sequence[ArgSlot],
    place: Callable[[ArgSlot], Place],
    tasks: TaskTable,
) -> None:
    """Append the launch of ``info``'s function over ``slots``; CompileError
    starting with ``label`` if the library is refused."""
    kinds = "".join("i" if s.kind is LaunchSlotKind.INPUT else "o" for s in slots)
    try:
        library = foreign.load_library(info.library, info.function)
        address = library.function(info.function)
    except (BadKernelBinary, LookupError) as exc:
        raise CompileError(
            f"{label}: foreign library ({len(info.library)} bytes) refused: {exc}"
        ) from None
    try:
        kernel = foreign.adapter_kernel(kinds)
    except (ValueError, BuildError) as exc:
        raise CompileError(f"{label}: foreign call: {exc}") from None
    first = tasks.next_slot
    values = [
        ArgSlot(LaunchSlotKind.SCALAR, value=address),
        *slots,
        ArgSlot(LaunchSlotKind.SCALAR, value=info.stream_id),
    ]
    bind_launch(label, kernel, values, 1, place, tasks)
    tasks.note_foreign(ForeignCall(first, library, info.function, op_type, owner))
