"""Which outputs take the memory of one of their node's inputs.

Note [Reuse input]: an op may declare that an output can reuse an input's
memory (a spec's ``reuse_input:``, register_op's ``reuse_inputs``; GE sets
the same fact on the output's tensor desc with TensorUtils::SetReuseInput and
SetReuseInputIndex). It is a promise about the kernel: it gives the same
numbers when the output and that input are one buffer (an element-wise op
reads element i before it writes element i). It is a permission, not a
request: the memory plan gives the output the input's memory only when
nothing else can see the difference, that is when

- the input is an arena tensor: not a graph input, a constant, a variable,
  nor a graph output (its bytes are the caller's, or read after the run);
- no later node reads it (its last reader, counting every tensor that
  already shares its memory, is this node);
- the output is an arena tensor too, not a ref output, and not bigger than
  the input;
- no other output of the node took the same memory.

Otherwise the output gets memory of its own, as without the declaration; no
copy is ever added (GE's graph optimiser inserts Identity copies where a
shared buffer would be read after it is written; here the pair is simply
not shared). A chain y <- f(y, b) then runs in one buffer instead of two,
which is what numpy's ``out=`` does (docs/performance.md).

Granted pairs join the ref pairs' aliases (``_Compiler.aliases``): the
output is placed at its root's offset, and the root's interval in the plan
grows to the output's last reader.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ge.custom_op.proto import OpProto
from ge.engine.compiled import TensorInfo
from ge.engine.layout import ARENA
from ge.graph.graph import Node


def reuse_slots(node: Node, proto: OpProto) -> tuple[tuple[int, int], ...]:
    """(output index, input slot) for each output of ``node`` that its
    prototype lets take an input's memory; indices of the node's flattened
    outputs and input slots. ``check_layout`` has made the node's IR layout
    the prototype's, so IR inputs match by name and outputs by position."""
    slot_of: dict[str, int] = {}
    at = 0
    for ir in node.ir_inputs:
        slot_of[ir.name] = at
        at += ir.count
    pairs: list[tuple[int, int]] = []
    index = 0
    for ir_out, declared in zip(node.ir_outputs, proto.outputs):
        if declared.reuse_input is not None and not ir_out.dynamic:
            pairs.append((index, slot_of[declared.reuse_input]))
        index += ir_out.count
    return tuple(pairs)


class ReuseOp(Protocol):
    """What the planner needs of one op node (the compiler's ``_Op``)."""

    @property
    def position(self) -> int: ...  # in the graph's order

    @property
    def inputs(self) -> Sequence[int | None]: ...  # tensor ids, per input slot

    @property
    def outputs(self) -> Sequence[int]: ...  # tensor ids, per output

    @property
    def reuse(self) -> tuple[tuple[int, int], ...]: ...  # reuse_slots


def share_reused_inputs(
    ops: Sequence[ReuseOp],
    tensors: Sequence[TensorInfo],
    aliases: dict[int, int],
    last_use: dict[int, int],
) -> list[tuple[int, int]]:
    """Grant each declared reuse that is safe (Note [Reuse input]); record it
    in ``aliases`` (tensor -> the tensor whose memory it is) and ``last_use``
    (of the root). ``tensors``' buffers are bound already: graph outputs to
    output buffers, inputs and constants to theirs. Returns the granted
    (output tensor, root tensor) pairs, in graph order."""
    granted: list[tuple[int, int]] = []
    for op in ops:
        taken: set[int] = set()
        for out, slot in op.reuse:
            source = op.inputs[slot]
            if source is None:  # an absent optional input
                continue
            target = op.outputs[out]
            root = aliases.get(source, source)
            if (
                root in taken
                or target in aliases
                or tensors[root].buffer != ARENA
                or tensors[target].buffer != ARENA
                or last_use.get(root) != op.position
                or tensors[target].nbytes > tensors[source].nbytes
                or tensors[target].nbytes > tensors[root].nbytes
            ):
                continue
            taken.add(root)
            for alias, other in aliases.items():  # ref outputs of the output
                if other == target:
                    aliases[alias] = root
            aliases[target] = root
            last_use[root] = max(
                last_use[root], last_use.get(target, op.position), op.position
            )
            granted.append((target, root))
    return granted
