"""A launch's arguments against its kernel's ``GE_KERNEL`` declaration: the
one check every way of launching asks, each in its own words.

Three paths launch a kernel, and each knows its arguments differently:
compiling (``ge.engine.launches``) has the slots ``declare_launch_args``
appended and the tensor or workspace each is bound to; loading a model
file (``ge.offline.model``) has the file's slots and the buffer each pointer
slot is bound to; an eager launch (``ge.device.rt.launch``) has addresses
and the memory they point into. Each describes every argument as a value
(a scalar, or a null address) or as memory (``Memory``: what it is to the
kernel, when the path knows, and how many bytes it has from the argument
on), and asks ``declarations`` and ``check_args`` here. A refusal is a
``LaunchRefusal`` saying what is wrong and where; the caller words it
(naming the node, the task or the kernel as its users know them).

Note [Kernels never write their inputs]: a kernel writes only what its node
produces (its outputs and workspaces); what it reads and did not produce (a
node's inputs; in a model file, the caller's input buffers and the
constants) is never bound to an ``out`` or ``inout`` argument, and a
``workspace`` argument takes only a workspace. Ref outputs (an output
named like an input) are how an op writes in place: the memory plan puts
the pair on one buffer, and the kernel writes it as the output. An output
that may reuse an input's memory (Note [Reuse input] in ``ge.engine.reuse``)
is the other way: the plan gives it the input's memory only when no later
reader exists, and the kernel still writes it as its output. The compiler
knows each bound tensor's role in its node; a model file knows only
buffers, where the arena holds inputs and outputs of many nodes alike, so
loading refuses less than compiling does (``ge.engine.binding`` maps each
vocabulary onto ``Access``). An eager launch does not know what its memory
is to the node, so it is checked for everything but this rule.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

from ge.device.kernels import ArgDecl, ArgKind, Kernel

__all__ = [
    "Access",
    "LaunchRefusal",
    "Memory",
    "NOWHERE",
    "Refused",
    "check_args",
    "declarations",
    "refusal",
]


class Access(enum.Enum):
    """What a kernel may do to the memory an argument is bound to."""

    READ = "read"  # a node's input; a graph input buffer or a constant
    WRITE = "write"  # a node's output; the arena or a graph output buffer
    SCRATCH = "scratch"  # a workspace


_MAY_BIND = {
    ArgKind.IN: frozenset(Access),
    ArgKind.OUT: frozenset({Access.WRITE, Access.SCRATCH}),
    ArgKind.INOUT: frozenset({Access.WRITE, Access.SCRATCH}),
    ArgKind.WORKSPACE: frozenset({Access.SCRATCH}),
}


def refusal(decl: ArgDecl, access: Access) -> str | None:
    """Why a pointer argument declared ``decl`` may not be bound to memory
    of ``access``, or None when it may (Note [Kernels never write their
    inputs])."""
    if access in _MAY_BIND[decl.kind]:
        return None
    if decl.kind is ArgKind.WORKSPACE:
        return "a workspace argument takes only a workspace"
    return "kernels never write their inputs"


# The memory an argument is bound to: what it is to the kernel (None when
# the launching path cannot tell) and how many bytes it has from the
# argument's address on. A plain tuple: an eager launch makes one per
# pointer, and a NamedTuple costs a hundred times as much to make.
Memory = tuple[Access | None, int]

# An address in no memory the launch may use (an eager launch's), told by
# identity.
NOWHERE: Memory = (None, -1)

_SCALAR = ArgKind.SCALAR  # a module global is read faster than an enum member


class Refused(enum.Enum):
    """What a refused launch got wrong."""

    ARITY = "arity"  # not as many arguments as the kernel declares
    LIST_COUNT = "list count"  # a trailing list, not as long as its count says
    VALUE = "value"  # a value (a scalar, a null) where a pointer is declared
    MEMORY = "memory"  # memory where a scalar is declared
    ACCESS = "access"  # memory the argument may not be bound to
    NOWHERE = "nowhere"  # an address in no memory of the launch
    SPAN = "span"  # fewer bytes than the kernel declares it reaches


class LaunchRefusal(Exception):
    """A launch its kernel's declaration refuses: ``what``, at argument
    ``index`` (-1: the launch as a whole), declared ``decl``; for ACCESS
    the ``reason`` (Note [Kernels never write their inputs]), for SPAN the
    bytes ``needed`` and ``available``. Its text is the part every path
    says alike (a list count's sentence); callers word the rest."""

    def __init__(
        self,
        what: Refused,
        index: int = -1,
        decl: ArgDecl | None = None,
        *,
        needed: int = 0,
        available: int = 0,
        reason: str = "",
    ) -> None:
        super().__init__(reason)
        self.what = what
        self.index = index
        self.decl = decl
        self.needed = needed
        self.available = available
        self.reason = reason

    def key(self) -> tuple[Refused, int, int, int, str]:
        """What was refused, without the kernel's declaration object: two
        paths that refuse one launch alike give the same key."""
        return (self.what, self.index, self.needed, self.available, self.reason)


def declarations(kernel: Kernel, count: int) -> tuple[ArgDecl, ...]:
    """The declaration of each of ``count`` arguments (a trailing list
    repeats); LaunchRefusal ARITY when ``count`` cannot match."""
    decls = kernel.expand(count)
    if decls is None:
        raise LaunchRefusal(Refused.ARITY)
    return decls


def check_args(
    kernel: Kernel,
    decls: Sequence[ArgDecl],
    block_dim: int,
    values: Sequence[int],
    memory: Sequence[Memory | None],
    *,
    empty_null: bool = False,
) -> None:
    """Every argument against its declaration, in order; LaunchRefusal for
    the first that is refused.

    ``values`` are the 64-bit slots (a pointer's may be anything: only the
    scalars that sizes refer to are read); ``memory[i]`` is what argument
    ``i`` is bound to, or None when the launch gives a value there.
    ``empty_null``: a null address passes where the kernel declares it
    reaches no byte (an eager launch's empty tensor, which has no memory).
    """
    if kernel.decls and kernel.decls[-1].is_list:
        listed = len(decls) - (len(kernel.decls) - 1)
        declared = kernel.decls[-1].count_arg
        if values[declared] != listed:
            raise LaunchRefusal(
                Refused.LIST_COUNT,
                declared,
                reason=f"{kernel.name}: argument {declared} says {values[declared]} "
                f"list argument(s) follow, the launch passes {listed}",
            )
    for index, (decl, bound) in enumerate(zip(decls, memory)):
        if bound is None:
            if decl.kind is _SCALAR or (decl.nullable and values[index] == 0):
                continue
            if (
                empty_null
                and values[index] == 0
                and decl.bytes_needed(block_dim, values) == 0
            ):
                continue
            raise LaunchRefusal(Refused.VALUE, index, decl)
        if decl.kind is _SCALAR:
            raise LaunchRefusal(Refused.MEMORY, index, decl)
        if bound is NOWHERE:
            raise LaunchRefusal(Refused.NOWHERE, index, decl)
        access, available = bound
        if access is not None:
            reason = refusal(decl, access)
            if reason is not None:
                raise LaunchRefusal(Refused.ACCESS, index, decl, reason=reason)
        needed = decl.bytes_needed(block_dim, values)
        if needed is not None and needed > available:
            raise LaunchRefusal(
                Refused.SPAN, index, decl, needed=needed, available=available
            )
