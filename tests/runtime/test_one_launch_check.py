"""One launch-argument check (ge.device.launch_check) for the three ways a
kernel is launched: a launch declared at compile (``bind_launch``), a task
of a model file (``load_model_bytes``) and an eager launch
(``rt.check_launch``). One table of bad launches drives all three: each
path refuses a row with the LaunchRefusal the one check raised (the
exception each path raises has it as its context) and words it as it
always has."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import pytest

from ge._container import FileFormatError
from ge.custom_op.contexts import ArgSlot, LaunchSlotKind
from ge.device import rt
from ge.device.kernels import Kernel, build_kernel
from ge.device.launch_check import LaunchRefusal, Refused
from ge.device.memory import DeviceBuffer
from ge.engine.errors import CompileError
from ge.engine.launches import Place, bind_launch
from ge.engine.layout import BufferKind, BufferLayout
from ge.engine.tasks import TaskTable
from ge.offline import model_file
from ge.offline.model import load_model_bytes
from ge.offline.model_file import ModelData, TensorDescription

SOURCE = r"""
#include "ge_kernel.h"

GE_KERNEL(lc_add, GE_IN(float, GE_COUNT_OF(3)), GE_IN(float, GE_COUNT_OF(3)),
          GE_OUT(float, GE_COUNT_OF(3)), GE_SCALAR()) {
  (void)args; (void)block_idx; (void)block_dim;
}

GE_KERNEL(lc_sum, GE_OUT(float, GE_ELEMS(1)), GE_SCALAR(),
          GE_IN_LIST(float, GE_EXTENT_ELEMS, 1, 1)) {
  (void)args; (void)block_idx; (void)block_dim;
}
"""

# An argument of a launch, as the table writes it: ("in", bytes) and
# ("out", bytes) are memory the node reads or writes (a graph input or
# output buffer in a model file, a device allocation for an eager launch);
# ("value", v) is a 64-bit value (a scalar, or a null address).
Arg = tuple[str, int]

NODE = "node 'n' (LaunchCheck)"


@dataclass(frozen=True)
class Row:
    name: str
    kernel: str
    args: tuple[Arg, ...]
    refused: tuple[Refused, int, int, int, str]  # LaunchRefusal.key()
    compile: str
    model: str
    eager: str | None  # None: an eager launch cannot tell (see the row)


ROWS = [
    Row(
        "too few arguments",
        "lc_add",
        (("in", 16), ("in", 16), ("out", 16)),
        (Refused.ARITY, -1, 0, 0, ""),
        f"{NODE}: kernel lc_add takes 4 argument(s), declare_launch_args " "appended 3",
        "model file: task 0: kernel lc_add takes 4 argument(s), the task has "
        "3 slots",
        "lc_add takes 4 argument(s), the launch passes 3",
    ),
    Row(
        "a list shorter than its count",
        "lc_sum",
        (("out", 4), ("value", 2), ("in", 4)),
        (
            Refused.LIST_COUNT,
            1,
            0,
            0,
            "lc_sum: argument 1 says 2 list argument(s) follow, the launch passes 1",
        ),
        f"{NODE}: lc_sum: argument 1 says 2 list argument(s) follow, the launch "
        "passes 1",
        "model file: task 0: lc_sum: argument 1 says 2 list argument(s) follow, "
        "the launch passes 1",
        "lc_sum: argument 1 says 2 list argument(s) follow, the launch passes 1",
    ),
    Row(
        "a null address for a pointer",
        "lc_add",
        (("in", 16), ("value", 0), ("out", 16), ("value", 4)),
        (Refused.VALUE, 1, 0, 0, ""),
        f"{NODE}: kernel lc_add argument 1 is declared in, but "
        "declare_launch_args appended a scalar",
        "model file: task 0: argument 1 of lc_add is a pointer, but the file "
        "binds no buffer to it",
        "lc_add argument 1 (in) must be a device address, got 0",
    ),
    Row(
        "memory shorter than the kernel reaches",
        "lc_add",
        (("in", 8), ("in", 16), ("out", 16), ("value", 4)),
        (Refused.SPAN, 0, 16, 8, ""),
        f"{NODE}: kernel lc_add argument 0 (in): the kernel declares 16 bytes "
        "there, but the input has 8",
        "model file: task 0: kernel lc_add argument 0 reaches 16 bytes, its "
        "buffer has 8",
        "lc_add argument 0 (in): the kernel declares 16 bytes there, but the "
        "buffer has 8; refused before it could write out of bounds",
    ),
    # An eager launch does not know what its memory is to the node: it
    # applies every rule but Note [Kernels never write their inputs], and an
    # address where a scalar is declared is a number to it.
    Row(
        "an input where the kernel writes",
        "lc_add",
        (("in", 16), ("in", 16), ("in", 16), ("value", 4)),
        (Refused.ACCESS, 2, 0, 0, "kernels never write their inputs"),
        f"{NODE}: kernel lc_add argument 2 is declared out, but "
        "declare_launch_args bound an input there (kernels never write their "
        "inputs)",
        "model file: task 0: argument 2 of lc_add is out, but the file binds it "
        "to a graph input buffer (kernels never write their inputs)",
        None,
    ),
    Row(
        "memory where a scalar is declared",
        "lc_add",
        (("in", 16), ("in", 16), ("out", 16), ("in", 16)),
        (Refused.MEMORY, 3, 0, 0, ""),
        f"{NODE}: kernel lc_add argument 3 is declared scalar, but "
        "declare_launch_args appended a input",
        "model file: task 0: argument 3 of lc_add is a scalar, but the file "
        "binds a buffer to it",
        None,
    ),
]


@cache
def _binary() -> bytes:
    return build_kernel(SOURCE, name="launch_check")


def _kernel(name: str) -> Kernel:
    return rt.binary_load(_binary()).get_function(name)


def _counts(args: tuple[Arg, ...]) -> tuple[int, int]:
    return (
        sum(kind == "in" for kind, _ in args),
        sum(kind == "out" for kind, _ in args),
    )


def _compile(row: Row) -> None:
    """The launch as declare_launch_args would append it, bound by the compiler."""
    layout = BufferLayout(*_counts(row.args))
    seen = {"in": 0, "out": 0}
    slots: list[ArgSlot] = []
    places: dict[ArgSlot, Place] = {}
    for kind, value in row.args:
        if kind == "value":
            slots.append(ArgSlot(LaunchSlotKind.SCALAR, value=value))
            continue
        slot_kind = LaunchSlotKind.INPUT if kind == "in" else LaunchSlotKind.OUTPUT
        buffer_kind = BufferKind.INPUT if kind == "in" else BufferKind.OUTPUT
        slot = ArgSlot(slot_kind, index=seen[kind])
        places[slot] = Place(layout.index(buffer_kind, seen[kind]), 0, value)
        seen[kind] += 1
        slots.append(slot)
    bind_launch(
        NODE, _kernel(row.kernel), slots, 1, places.__getitem__, TaskTable(layout)
    )


def _model(row: Row) -> None:
    """The launch as a model file's task: memory arguments bound to graph
    input and output buffers of their sizes."""
    inputs: list[TensorDescription] = []
    outputs: list[TensorDescription] = []
    layout = BufferLayout(*_counts(row.args))
    slots: list[int] = []
    bindings: list[tuple[int, int, int]] = []
    for index, (kind, value) in enumerate(row.args):
        if kind == "value":
            slots.append(value)
            continue
        found = inputs if kind == "in" else outputs
        buffer_kind = BufferKind.INPUT if kind == "in" else BufferKind.OUTPUT
        bindings.append((index, layout.index(buffer_kind, len(found)), 0))
        found.append(
            TensorDescription(f"t{index}", "DT_UINT8", (value,), "FORMAT_ND", value)
        )
        slots.append(0)
    data = ModelData(
        name="launch_check",
        arena_size=0,
        const_sizes=(),
        workspace_sizes=(),
        inputs=tuple(inputs),
        outputs=tuple(outputs),
        output_copies=(),
        kernel_names=(row.kernel,),
        binaries=(_binary(),),
        tasks=((0, 0, 1, 0, len(slots)),),
        slots=tuple(slots),
        bindings=tuple(bindings),
        consts=b"",
    )
    load_model_bytes(model_file.encode(data))


def _eager(row: Row) -> None:
    """The launch from Python: memory arguments are device allocations."""
    buffers = [DeviceBuffer(v) for kind, v in row.args if kind != "value"]
    addresses = iter(buffers)
    args = [v if kind == "value" else next(addresses).addr for kind, v in row.args]
    rt.check_launch(_kernel(row.kernel), 1, args)


PATHS = {
    "compile": (_compile, CompileError),
    "model": (_model, FileFormatError),
    "eager": (_eager, rt.LaunchError),
}


@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_every_path_refuses_a_bad_launch_by_the_one_check(row: Row, path: str) -> None:
    launch, error = PATHS[path]
    message: str | None = getattr(row, path)
    if message is None:
        pytest.skip("an eager launch cannot tell this (see the row)")
    with pytest.raises(error) as info:
        launch(row)
    assert str(info.value) == message
    refusal = info.value.__context__
    assert isinstance(refusal, LaunchRefusal), (path, refusal)
    assert refusal.key() == row.refused


def test_an_eager_launch_applies_no_binding_rule() -> None:
    """What an eager launch cannot know, it does not refuse: an input's
    memory where the kernel writes is memory of the device to it."""
    (row,) = [r for r in ROWS if r.refused[0] is Refused.ACCESS]
    _eager(row)


def test_the_sound_launch_passes_every_path() -> None:
    row = Row(
        "sound",
        "lc_add",
        (("in", 16), ("in", 16), ("out", 16), ("value", 4)),
        (Refused.ARITY, -1, 0, 0, ""),
        "",
        "",
        "",
    )
    for launch, _ in PATHS.values():
        launch(row)
