"""A session's graph memory on one stream, from the external allocator
registered for that stream.

Note [External allocators]: ``Session.register_external_allocator(stream,
allocator)`` makes runs on ``stream`` (``run_graph_with_stream_async``)
take their graph memory from ``allocator``: each compiled graph's run
state (the arena holding every intermediate, and the workspaces its
launches declared), the outputs a run makes (when the caller gives none)
and the workspaces execute callbacks ask for. Constants stay the compiled
graph's. A run state is kept for the next run on the stream; an output
block stays the output tensor's until the tensor goes, and is handed
back at the next run on the stream or at unregister (not from the garbage
collector, which may run on any thread at any time). Unregistering, or
closing the session, hands back everything the allocator gave: outputs
still alive are first copied to memory of their own, so they keep their
values (their address changes). Every block is checked before use: not
NULL, at least the size asked for, 64-byte aligned, inside memory from
``ge.device.rt.malloc`` (which this keeps alive while it uses it) and
overlapping no block given before and not yet freed. A failure is an
``AllocatorError`` naming the allocator, the request and the fault.
"""

from __future__ import annotations

import bisect
import collections
import functools
import itertools
import threading
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NoReturn

from ge.allocator import Allocator, AllocatorError, MemBlock
from ge.device import rt
from ge.device.memory import ALIGNMENT, DeviceBuffer, DeviceView
from ge.engine.compiled import CompiledGraph, RunState
from ge.graph.tensor import Tensor, move_off


@dataclass
class _Block:
    block: MemBlock
    addr: int
    size: int  # bytes asked for
    what: str


class StreamMemory:
    """The memory source (``ge.engine.compiled.RunMemory``) of runs on one
    stream (Note [External allocators]). ``active`` counts runs using it."""

    def __init__(self, stream: int, allocator: Allocator) -> None:
        self.stream = stream
        self.allocator = allocator
        self.name = (
            f"the allocator registered for stream {stream} "
            f"({type(allocator).__name__})"
        )
        self.active = 0
        self.closed = False
        self._lock = threading.RLock()
        self._tokens = itertools.count()
        self._blocks: dict[int, _Block] = {}  # live blocks by token
        self._starts: list[tuple[int, int]] = []  # (addr, token) of each, sorted
        self._states: dict[CompiledGraph, list[RunState]] = {}  # free, per graph
        self._outputs: dict[int, weakref.ref[Tensor]] = {}
        self._returned: collections.deque[int] = collections.deque()

    # -- blocks ------------------------------------------------------------

    def allocate(self, size: int, what: str) -> DeviceBuffer:
        if size == 0:  # nothing to ask for: an empty buffer of our own
            return DeviceBuffer(0)
        with self._lock:
            try:
                block = self.allocator.malloc(size)
            except Exception as exc:
                raise AllocatorError(
                    f"{self.name} raised when asked for {size} bytes for {what}: "
                    f"{type(exc).__name__}: {exc}"
                ) from exc
            fault, owner = self._check(block, size)
            if owner is None:
                self._refuse(block, size, what, fault)
            token = next(self._tokens)
            addr = block.addr
            self._blocks[token] = _Block(block, addr, size, what)
            bisect.insort(self._starts, (addr, token))
            return DeviceView(owner, addr, size, tag=token)

    def _check(self, block: object, size: int) -> tuple[str, DeviceBuffer | None]:
        """(what is wrong with ``block``, None) or ("", the rt.malloc memory
        holding it)."""
        if not isinstance(block, MemBlock):
            return f"returned {type(block).__name__}, not a ge.allocator.MemBlock", None
        addr = block.addr
        if addr == 0:
            return "returned a NULL block (raise MemoryError when out of memory)", None
        if block.size < size:
            return f"returned a block of only {block.size} bytes", None
        if addr % ALIGNMENT:
            return f"returned 0x{addr:x}, which is not {ALIGNMENT}-byte aligned", None
        owner = rt.allocation(addr, size)
        if owner is None:
            return (
                f"returned 0x{addr:x}, which is not device memory from "
                "ge.device.rt.malloc",
                None,
            )
        # Live blocks do not overlap one another, so only the last one that
        # starts before this one ends can overlap it.
        i = bisect.bisect_left(self._starts, (addr + size, -1)) - 1
        if i >= 0:
            other = self._blocks[self._starts[i][1]]
            if other.addr + other.size > addr:
                return (
                    f"returned 0x{addr:x}, which overlaps 0x{other.addr:x} "
                    f"({other.size} bytes, {other.what}) that it gave before and "
                    "was not freed",
                    None,
                )
        return "", owner

    def _refuse(self, block: object, size: int, what: str, fault: str) -> NoReturn:
        """Raise for a block that cannot be used, first giving a MemBlock
        back (the allocator gave it)."""
        error = AllocatorError(
            f"{self.name}, asked for {size} bytes for {what}, {fault}"
        )
        if isinstance(block, MemBlock) and block.addr != 0:
            try:
                self.allocator.free(block)
            except Exception as exc:
                error.add_note(f"giving it back raised {type(exc).__name__}: {exc}")
        raise error

    def _free(self, token: int) -> str | None:
        """Hand block ``token`` back; what went wrong, if anything."""
        entry = self._blocks.pop(token, None)
        self._outputs.pop(token, None)
        if entry is None:
            return None
        del self._starts[bisect.bisect_left(self._starts, (entry.addr, token))]
        try:
            self.allocator.free(entry.block)
        except Exception as exc:
            return f"free({entry.block!r}) of {entry.what}: {type(exc).__name__}: {exc}"
        return None

    def _free_all(self, tokens: Iterable[int], when: str) -> None:
        with self._lock:
            faults = [f for f in map(self._free, list(tokens)) if f is not None]
        if faults:
            raise AllocatorError(f"{self.name} raised {when}: " + "; ".join(faults))

    def release(self, buffer: DeviceBuffer) -> None:
        if isinstance(buffer, DeviceView) and isinstance(buffer.tag, int):
            self._free_all([buffer.tag], "taking back a workspace")

    def _drain(self) -> None:
        """Hand back the blocks of outputs that have gone."""
        tokens = []
        while self._returned:
            tokens.append(self._returned.popleft())
        if tokens:
            self._free_all(tokens, "taking back the memory of outputs that went")

    # -- what a run takes ---------------------------------------------------

    def take(self, graph: CompiledGraph) -> RunState:
        with self._lock:
            self._drain()
            free = self._states.setdefault(graph, [])
            if free:
                return free.pop()
            before = set(self._blocks)  # no other thread allocates meanwhile
            try:
                return graph.make_state(self)
            except BaseException:
                made = set(self._blocks) - before
                self._free_all(made, "giving back a part-made run state")
                raise

    def give_back(self, graph: CompiledGraph, state: RunState) -> None:
        with self._lock:
            free = self._states.get(graph)
            if free is not None:
                free.append(state)
                return
        # The graph was removed (or the registration closed) meanwhile.
        self._free_all(_tags([state.arena, *state.workspaces]), "freeing a run state")

    def outputs(self, graph: CompiledGraph) -> list[Tensor]:
        tensors = []
        for j, tid in enumerate(graph.output_ids):
            what = f"output {j} of graph '{graph.name}'"
            buffer = self.allocate(graph.tensors[tid].nbytes, what)
            tensor = graph.output_tensor(j, buffer)
            if isinstance(buffer, DeviceView) and isinstance(buffer.tag, int):
                token = buffer.tag
                buffer.on_release = functools.partial(self._returned.append, token)
                with self._lock:
                    self._outputs[token] = weakref.ref(tensor)
            tensors.append(tensor)
        return tensors

    def forget(self, graphs: Iterable[CompiledGraph]) -> None:
        """Hand back the run states of graphs removed from the session."""
        with self._lock:
            states = [s for g in graphs for s in self._states.pop(g, [])]
        buffers = [b for s in states for b in (s.arena, *s.workspaces)]
        self._free_all(_tags(buffers), "freeing the run states of a removed graph")

    def close(self) -> None:
        """Hand back everything (the caller checked no run is active)."""
        with self._lock:
            self.closed = True
            self._states.clear()
            self._returned.clear()
            for ref in list(self._outputs.values()):
                tensor = ref()
                if tensor is not None:
                    move_off(tensor, DeviceView)
            self._free_all(list(self._blocks), "taking back its memory")


def _tags(buffers: Iterable[DeviceBuffer]) -> list[int]:
    return [
        b.tag for b in buffers if isinstance(b, DeviceView) and isinstance(b.tag, int)
    ]
