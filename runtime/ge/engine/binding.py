"""Which memory a kernel's pointer argument may be bound to.

Note [Kernels never write their inputs]: a kernel writes only what its node
produces (its outputs and workspaces); what it reads and did not produce (a
node's inputs; in a model file, the caller's input buffers and the
constants) is never bound to an ``out`` or ``inout`` argument, and a
``workspace`` argument takes only a workspace. Ref outputs (an output
named like an input) are how an op writes in place: the memory plan puts
the pair on one buffer, and the kernel writes it as the output. An output
that may reuse an input's memory (Note [Reuse input] in ``reuse``) is the
other way: the plan gives it the input's memory only when no later reader
exists, and the kernel still writes it as its output.

The compiler knows each bound tensor's role in its node; a model file knows
only buffers, where the arena holds inputs and outputs of many nodes alike,
so loading refuses less than compiling does. Both say what the memory is
to the kernel (an ``Access``) and ask ``refusal`` here, the one table of
the rule.
"""

from __future__ import annotations

import enum

from ge.custom_op.contexts import LaunchSlotKind
from ge.device.kernels import ArgDecl, ArgKind
from ge.engine.layout import BufferKind


class Access(enum.Enum):
    """What a kernel may do to the memory an argument is bound to."""

    READ = "read"  # a node's input; a graph input buffer or a constant
    WRITE = "write"  # a node's output; the arena or a graph output buffer
    SCRATCH = "scratch"  # a workspace


# A launch slot (what declare_launch_args appended), by its role in the node.
ACCESS_OF_SLOT = {
    LaunchSlotKind.INPUT: Access.READ,
    LaunchSlotKind.OUTPUT: Access.WRITE,
    LaunchSlotKind.WORKSPACE: Access.SCRATCH,
}

# A buffer of a model file (Note [Buffer layout]).
ACCESS_OF_BUFFER = {
    BufferKind.ARENA: Access.WRITE,
    BufferKind.INPUT: Access.READ,
    BufferKind.OUTPUT: Access.WRITE,
    BufferKind.CONST: Access.READ,
    BufferKind.WORKSPACE: Access.SCRATCH,
}

_MAY_BIND = {
    ArgKind.IN: frozenset(Access),
    ArgKind.OUT: frozenset({Access.WRITE, Access.SCRATCH}),
    ArgKind.INOUT: frozenset({Access.WRITE, Access.SCRATCH}),
    ArgKind.WORKSPACE: frozenset({Access.SCRATCH}),
}


def refusal(decl: ArgDecl, access: Access) -> str | None:
    """Why a pointer argument declared ``decl`` may not be bound to memory
    of ``access``, or None when it may (Note [Kernels never write their
    inputs]). The callers name the argument and the memory."""
    if access in _MAY_BIND[decl.kind]:
        return None
    if decl.kind is ArgKind.WORKSPACE:
        return "a workspace argument takes only a workspace"
    return "kernels never write their inputs"
