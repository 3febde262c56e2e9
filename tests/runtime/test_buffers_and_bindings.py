"""The run's address table (BufferLayout) and the one rule of which memory a
kernel argument may be bound to, which compiling and model loading share."""

from __future__ import annotations

import pytest

from ge.custom_op.contexts import LaunchSlotKind
from ge.device.kernels import ArgDecl, ArgKind
from ge.device.launch_check import Access, refusal
from ge.engine.binding import ACCESS_OF_BUFFER, ACCESS_OF_SLOT
from ge.engine.layout import ARENA, BufferKind, BufferLayout


def test_the_table_is_arena_inputs_outputs_consts_workspaces() -> None:
    layout = BufferLayout(inputs=2, outputs=1, consts=3, workspaces=2)
    assert ARENA == 0 and layout.size == 9
    numbered = [layout.locate(i) for i in range(layout.size)]
    assert numbered == [
        (BufferKind.ARENA, 0),
        (BufferKind.INPUT, 0),
        (BufferKind.INPUT, 1),
        (BufferKind.OUTPUT, 0),
        (BufferKind.CONST, 0),
        (BufferKind.CONST, 1),
        (BufferKind.CONST, 2),
        (BufferKind.WORKSPACE, 0),
        (BufferKind.WORKSPACE, 1),
    ]
    for index, (kind, position) in enumerate(numbered):
        assert layout.index(kind, position) == index
    assert layout.first(BufferKind.WORKSPACE) == 7


def test_indices_outside_the_table_are_refused() -> None:
    layout = BufferLayout(inputs=1, outputs=1)
    for bad in (-1, layout.size):
        with pytest.raises(IndexError, match=f"buffer {bad} is not in a table of 3"):
            layout.locate(bad)
    with pytest.raises(IndexError, match="const buffer 0 of 0 does not exist"):
        layout.index(BufferKind.CONST, 0)


def test_workspaces_come_last_so_adding_them_moves_nothing() -> None:
    layout = BufferLayout(inputs=2, outputs=2, consts=1)
    grown = layout.with_workspaces(3)
    for kind in (BufferKind.INPUT, BufferKind.OUTPUT, BufferKind.CONST):
        assert grown.first(kind) == layout.first(kind)
    assert grown.index(BufferKind.WORKSPACE, 2) == layout.size + 2


def _decl(kind: ArgKind) -> ArgDecl:
    return ArgDecl(kind, elem_bytes=4, extent=0, value=0)


@pytest.mark.parametrize(
    ("kind", "allowed"),
    [
        (ArgKind.IN, {Access.READ, Access.WRITE, Access.SCRATCH}),
        (ArgKind.OUT, {Access.WRITE, Access.SCRATCH}),
        (ArgKind.INOUT, {Access.WRITE, Access.SCRATCH}),
        (ArgKind.WORKSPACE, {Access.SCRATCH}),
    ],
)
def test_kernels_never_write_their_inputs(kind: ArgKind, allowed: set[Access]) -> None:
    for access in Access:
        reason = refusal(_decl(kind), access)
        assert (reason is None) == (access in allowed), (kind, access)
        if reason is not None:
            expected = (
                "a workspace argument takes only a workspace"
                if kind is ArgKind.WORKSPACE
                else "kernels never write their inputs"
            )
            assert reason == expected


def test_both_vocabularies_map_onto_the_rule() -> None:
    """A node's input and a model's graph input or constant are read only;
    a node's output and a model's arena or graph output are written."""
    assert ACCESS_OF_SLOT == {
        LaunchSlotKind.INPUT: Access.READ,
        LaunchSlotKind.OUTPUT: Access.WRITE,
        LaunchSlotKind.WORKSPACE: Access.SCRATCH,
    }
    assert set(ACCESS_OF_BUFFER) == set(BufferKind)
    read_only = {k for k, a in ACCESS_OF_BUFFER.items() if a is Access.READ}
    assert read_only == {BufferKind.INPUT, BufferKind.CONST}
