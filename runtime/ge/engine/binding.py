"""Which memory a kernel's pointer argument may be bound to, in the
engine's two vocabularies.

The rule is ``ge.device.launch_check``'s (Note [Kernels never write their
inputs]), in one vocabulary: what the memory is to the kernel (an
``Access``). The compiler knows each bound tensor's role in its node (a
launch slot's kind); a model file knows only buffers, where the arena holds
inputs and outputs of many nodes alike, so loading refuses less than
compiling does. Each maps its vocabulary onto ``Access`` here, and both ask
``launch_check.check_args``.
"""

from __future__ import annotations

from ge.custom_op.contexts import LaunchSlotKind
from ge.device.launch_check import Access
from ge.engine.layout import BufferKind

__all__ = ["ACCESS_OF_BUFFER", "ACCESS_OF_SLOT"]

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
