"""The launch API execute callbacks use (the part ACL plays in GE's samples).

    kernel = rt.binary_load(kernel_bin).get_function("add_custom")
    rt.launch(kernel, block_dim, ctx.get_stream(), [x.addr, y.addr, z.addr, n])

Before a kernel runs, the launch is checked against the kernel's GE_KERNEL
declaration: the argument count; every pointer must lie in device memory (in
a callback: in a tensor or workspace of the node being run); and the span the
kernel declares for it must fit there. What a kernel does beyond its own
declaration cannot be checked (docs/runtime.md, "What the device cannot
protect against").
"""

from __future__ import annotations

import ctypes
import itertools
import threading
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from functools import lru_cache, partial
from typing import Any

from ge.device.args import MAX_BLOCK_DIM, scalar_bits
from ge.device.kernels import ArgKind, Binary, Kernel, load_binary
from ge.device.launch_check import (
    NOWHERE,
    LaunchRefusal,
    Memory,
    Refused,
    check_args,
    declarations,
)
from ge.device.memory import DeviceBuffer, region_of
from ge.device.native import KernelFault, fault_message, library

__all__ = [
    "LaunchError",
    "binary_load",
    "create_stream",
    "destroy_stream",
    "free",
    "launch",
    "launch_kernel",
    "malloc",
    "synchronize_stream",
]

DEFAULT_STREAM = 0


class LaunchError(ValueError):
    """A launch the device refused before running the kernel."""


class RegionSet:
    """The memory a callback may hand to kernels: its tensors and workspaces
    (``spans``, (address, size) pairs).

    While an execute callback runs, its RegionSet is what ``CALLBACK``
    holds on its thread (Note [One binding per call]): ``launches`` is the
    checked-launch cache of its execute frame (Note [Checked launches]);
    ``lease`` and ``context`` are the callback's lease and execute context,
    opaque here (``ge.runtime.lease.data_lease`` and
    ``ge.custom_op.get_execute_ctx`` read them). The execute path makes one
    per call without ``__init__`` (object.__new__, then each field: its
    hot loop), so a field added here is set there too."""

    __slots__ = ("spans", "launches", "lease", "context")

    def __init__(
        self,
        launches: LaunchCache | None = None,
        spans: list[tuple[int, int]] | None = None,
        lease: object = None,
        context: object = None,
    ) -> None:
        self.spans = [] if spans is None else spans
        self.launches = launches
        self.lease = lease
        self.context = context

    def add(self, addr: int, size: int) -> None:
        self.spans.append((addr, size))

    def find(self, addr: int) -> tuple[int, int] | None:
        for start, size in self.spans:
            if start <= addr < start + max(size, 1):
                return start, size
        return None


# Note [One binding per call]: an execute callback binds one object on its
# thread, its RegionSet, in one ContextVar: the regions its launches may
# touch (rt.launch), the lease whose tensors hold data (data_lease, for
# Tensor.numpy and copy_from) and its context (get_execute_ctx) are read
# from it, so a call sets and resets one variable, not three (each set
# copies the thread's context mapping). The execute path (a named internal
# API: ge.engine.execute_frame) sets and resets it directly; nothing else
# binds it. Outside an execute callback it holds None: launches are checked
# against all device memory, tensors hold no data, get_execute_ctx raises.
CALLBACK: ContextVar[RegionSet | None] = ContextVar("ge_callback", default=None)


_streams = itertools.count(1)
_live_streams: set[int] = {DEFAULT_STREAM}
_streams_lock = threading.Lock()


def create_stream() -> int:
    """A new stream handle. Launches run synchronously on the calling thread,
    in the order they are made; a stream orders nothing further."""
    with _streams_lock:
        stream = next(_streams)
        _live_streams.add(stream)
        return stream


def destroy_stream(stream: int) -> None:
    with _streams_lock:
        if stream != DEFAULT_STREAM:
            _live_streams.discard(stream)


def synchronize_stream(stream: int) -> None:
    """Launches are synchronous, so there is nothing to wait for."""
    check_stream(stream)


def check_stream(stream: int) -> None:
    """LaunchError unless ``stream`` is a live stream."""
    if (
        isinstance(stream, bool)
        or not isinstance(stream, int)
        or stream not in _live_streams
    ):
        raise LaunchError(f"{stream!r} is not a live stream")


# Memory from ``malloc``, by address (what ``free`` and ``allocation`` find).
_allocations: dict[int, DeviceBuffer] = {}
_allocations_lock = threading.Lock()


def malloc(size: int) -> int:
    """The address of ``size`` new bytes of device memory (zeroed, 64-byte
    aligned), as ``acl.rt.malloc`` gives in GE; give it back with ``free``.
    ValueError for a size that is not an int > 0, MemoryError when the
    machine has no memory."""
    if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
        raise ValueError(f"rt.malloc size must be an int > 0, got {size!r}")
    try:
        buffer = DeviceBuffer(size)
    except MemoryError:
        raise MemoryError(f"rt.malloc: cannot allocate {size} bytes") from None
    with _allocations_lock:
        _allocations[buffer.addr] = buffer
    return buffer.addr


def free(addr: int) -> None:
    """Give back memory from ``malloc``. Memory that a session still uses
    (blocks an external allocator gave from it) stays until the session
    hands those back; nothing can read freed memory."""
    with _allocations_lock:
        buffer = _allocations.pop(addr, None) if isinstance(addr, int) else None
    if buffer is None:
        raise ValueError(
            f"rt.free: {addr!r} is not an address rt.malloc gave, or it was "
            "freed already"
        )


def allocation(addr: int, size: int) -> DeviceBuffer | None:
    """The ``malloc`` memory (not yet freed) that holds all ``size`` bytes
    from ``addr``, if any."""
    region = region_of(addr)
    if region is None:
        return None
    start, length = region
    with _allocations_lock:
        buffer = _allocations.get(start)
    if buffer is None or addr + max(size, 1) > start + max(length, 1):
        return None
    return buffer


def binary_load(kernel_bin: bytes) -> Binary:
    """Load a kernel binary from memory (cached by content)."""
    return load_binary(kernel_bin)


def check_launch(kernel: Kernel, block_dim: int, args: Sequence[object]) -> list[int]:
    """The 64-bit slots of a launch, after checking it against the kernel's
    declaration (``launch_check``, the check every launch path asks).
    Raises LaunchError."""
    if (
        isinstance(block_dim, bool)
        or not isinstance(block_dim, int)
        or not (1 <= block_dim <= MAX_BLOCK_DIM)
    ):
        raise LaunchError(
            f"{kernel.name}: block_dim must be 1..{MAX_BLOCK_DIM}, got {block_dim!r}"
        )
    try:
        decls = declarations(kernel, len(args))
    except LaunchRefusal:
        raise LaunchError(
            f"{kernel.name} takes {kernel.arity()}, the launch passes {len(args)}"
        ) from None
    regions = CALLBACK.get()
    find = region_of if regions is None else regions.find
    slots: list[int] = []
    memory: list[Memory | None] = []  # a pointer's region, from it on
    for index, (decl, value) in enumerate(zip(decls, args)):
        if decl.kind is ArgKind.SCALAR:
            try:
                slots.append(scalar_bits(value))
            except (TypeError, ValueError) as exc:
                raise LaunchError(f"{kernel.name} argument {index}: {exc}") from None
            memory.append(None)
            continue
        if (
            decl.nullable
            and isinstance(value, int)
            and not isinstance(value, bool)
            and value == 0
        ):
            slots.append(0)  # an absent optional input
            memory.append(None)
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise LaunchError(
                f"{kernel.name} argument {index} ({decl.describe()}) must be a device "
                f"address, got {value!r}"
            )
        slots.append(value)
        region = find(value) if value else None
        if region is not None:
            memory.append((None, region[0] + region[1] - value))
        else:
            memory.append(NOWHERE if value else None)
    try:
        check_args(kernel, decls, block_dim, slots, memory, empty_null=True)
    except LaunchRefusal as refused:
        raise LaunchError(_words(kernel, refused, slots, regions)) from None
    return slots


def _words(
    kernel: Kernel,
    refused: LaunchRefusal,
    slots: Sequence[int],
    regions: RegionSet | None,
) -> str:
    """An eager launch's refusal, as ``rt.launch`` says it."""
    index, decl = refused.index, refused.decl
    if refused.what is Refused.LIST_COUNT or decl is None:
        return str(refused)
    if refused.what is Refused.NOWHERE:
        where = (
            "a tensor or workspace of this node"
            if regions is not None
            else "device memory"
        )
        return (
            f"{kernel.name} argument {index} (0x{slots[index]:x}) does not point "
            f"into {where}"
        )
    if refused.what is Refused.SPAN:
        return (
            f"{kernel.name} argument {index} ({decl.describe()}): the kernel "
            f"declares {refused.needed} bytes there, but the buffer has "
            f"{refused.available}; refused before it could write out of bounds"
        )
    # Refused.VALUE: a null address (access and scalars are not eager refusals)
    return (
        f"{kernel.name} argument {index} ({decl.describe()}) must be a device "
        "address, got 0"
    )


# Note [Checked launches]: an execute node launches the same kernel with the
# same arguments run after run (its tensors are where the graph's plan or
# the caller's buffers put them). A launch's check depends on nothing but
# the kernel's declaration, block_dim, the argument values and the regions
# of the call (RegionSet) at the launch, so an execute frame keeps the
# launches it checked (RegionSet.launches), keyed by exactly those: the
# kernel by identity (the entry keeps it alive, so its id is not reused),
# the region list as the call has it when it launches. An entry holds the
# argument slots ready for the device. A launch found there skips the
# check and the building of its slots; any other launch (another address,
# block_dim, kernel or region list) is checked in full, and a refused one
# is never kept. Only launches whose block_dim and arguments are all plain
# ints are kept: values equal to those ints but of another type (True,
# 1.0, numpy integers, -0.0 against 0.0 among floats) check differently or
# make other slots. The stream is checked on every launch (a stream can be
# destroyed). The slots are reused from launch to launch, as a graph's task
# table is: kernels read them as const (ge_kernel.h).
LAUNCH_CACHE_SIZE = 64  # entries per frame; a full cache starts again

# arguments -> (kernel, block_dim, regions, the launch ready to run): one
# entry per argument tuple (another kernel, block_dim or region list with
# the same arguments takes its place).
LaunchEntry = tuple[Kernel, int, list[tuple[int, int]], Callable[[], int]]
LaunchCache = dict[tuple[int, ...], LaunchEntry]


def launch(kernel: Kernel, block_dim: int, stream: int, args: Sequence[object]) -> None:
    """Run ``kernel`` on ``block_dim`` blocks with ``args`` (addresses and
    scalars, one per declared argument)."""
    regions = CALLBACK.get()
    cache = None if regions is None else regions.launches
    if cache is not None and type(block_dim) is int and type(args) in _SEQUENCES:
        values: tuple[Any, ...] = tuple(args)
        for value in values:
            if type(value) is not int:
                break
        else:  # Note [Checked launches]
            spans = regions.spans  # type: ignore[union-attr]
            entry = cache.get(values)
            if (
                entry is None
                or entry[0] is not kernel
                or entry[1] != block_dim
                or entry[2] != spans
            ):
                entry = _checked_entry(kernel, block_dim, stream, values, spans)
                if len(cache) >= LAUNCH_CACHE_SIZE:
                    cache.clear()
                cache[values] = entry
            elif type(stream) is not int or stream not in _live_streams:
                check_stream(stream)
            fault = entry[3]()
            if fault:
                raise KernelFault(fault_message(fault, f"kernel {kernel.name}"))
            return
    slots = _slot_buffer(_checked(kernel, block_dim, stream, args))
    fault = library().ge_launch(kernel.address, block_dim, slots)
    if fault:
        raise KernelFault(fault_message(fault, f"kernel {kernel.name}"))


_SEQUENCES = (list, tuple)


def _checked(
    kernel: Kernel, block_dim: int, stream: int, args: Sequence[object]
) -> list[int]:
    """The slots of a launch after every check, in the order they are made."""
    if not isinstance(kernel, Kernel):
        raise TypeError(
            f"launch takes a Kernel from Binary.get_function, got {type(kernel).__name__}"
        )
    check_stream(stream)
    return check_launch(kernel, block_dim, args)


def _slot_buffer(slots: list[int]) -> ctypes.Array[ctypes.c_uint64]:
    return (ctypes.c_uint64 * max(len(slots), 1))(*slots)


def _checked_entry(
    kernel: Kernel,
    block_dim: int,
    stream: int,
    values: tuple[int, ...],
    spans: list[tuple[int, int]],
) -> LaunchEntry:
    """A checked launch, ready to run again (Note [Checked launches])."""
    slots = _slot_buffer(_checked(kernel, block_dim, stream, values))
    run = partial(
        _plain_launch(),
        ctypes.c_void_p(kernel.address),
        ctypes.c_uint32(block_dim),
        slots,
    )
    return kernel, block_dim, list(spans), run


@lru_cache(maxsize=1)
def _plain_launch() -> Callable[..., int]:
    """``ge_launch`` without argument types: ctypes then converts nothing
    (a third of the call's cost). Called only with a c_void_p, a c_uint32
    and a slot array, the C types of its parameters."""
    launcher = library().ge_launch
    address = ctypes.cast(launcher, ctypes.c_void_p).value  # type: ignore[arg-type]
    if address is None:  # pragma: no cover - a loaded function has an address
        return launcher
    function = ctypes.CFUNCTYPE(ctypes.c_uint64)(address)
    function.argtypes = None  # type: ignore[assignment]
    return function


def launch_kernel(
    kernel_bin: bytes,
    kernel_name: str,
    block_dim: int,
    stream: int,
    args: Sequence[object],
) -> None:
    """Load (cached) and launch in one call."""
    launch(binary_load(kernel_bin).get_function(kernel_name), block_dim, stream, args)
