"""Foreign kernel libraries: shared objects built by another toolchain that
export ``call(pointer..., stream)``, loaded from memory and launched through
the task table.

Note [Foreign libraries]: a foreign library (TileLang's host wrapper, a
plain ``gcc -shared -fPIC -O2`` build) has no ``GE_KERNEL`` declaration and
usually has initializers (crt's ``_init``, ``frame_dummy``, and any
``__attribute__((constructor))``). It is **trusted code**: the team that
ships it vouches for it, as GE's samples ``dlopen`` it.

- It is read by the same checked ELF reader and mapped by the same loader
  as kernel binaries (``elf.read_image(trusted=True)``,
  ``loader.map_image``): a 64-bit little-endian shared object for this
  machine, in bounds, no writable+executable segment, no TLS, no IFUNC, no
  text relocations, needed libraries only libc/libm/libmvec. So a damaged
  or wrong-architecture file is refused with ``BadKernelBinary``.
- Unlike a kernel binary, its initializers run, once, when it is first
  loaded in a process (DT_INIT, then each DT_INIT_ARRAY entry, in order, as
  glibc runs them), each checked to lie in the library's code first, and
  run first in a forked probe process (Note [Constructor probe]). Its
  finalizers never run: a library stays mapped for the process's life, like
  kernels (so addresses in task tables never dangle).
- Loading is the only thing that maps it or runs any of its code;
  ``check_library`` only reads it. A model file's libraries are checked when
  the model is opened and loaded at its first execute (Note [Opening a
  model runs nothing] in ``ge.offline.model``).
- Its function (``call`` unless the spec names another) must be an exported
  function in the library's code; the pointer arguments' order is the
  spec's. Nothing bounds what it reads or writes (docs/runtime.md, "Trust").

A launch of a foreign function is an ordinary task of the task table: its
kernel is an *adapter* (``adapter_kernel``), a ``GE_KERNEL`` of this
runtime whose first slot holds the function's address, then one slot per
pointer (declared ``in`` or ``out``, so the compiler's and the model
loader's binding rules apply), then the stream. The native replay loop is
unchanged; a run refreshes the pointer slots like any other.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ge.device.elf import PF_X, BadKernelBinary, ElfImage, read_image
from ge.device.kernels import Kernel, build_kernel, load_binary
from ge.device.loader import MappedImage, map_image

__all__ = [
    "ADAPTER_PREFIX",
    "ForeignLibrary",
    "adapter_kernel",
    "check_library",
    "forget",
    "load_library",
    "loaded_digests",
]

ADAPTER_PREFIX = "ge_foreign_call_"
MAX_POINTERS = 32
CONSTRUCTOR_SECONDS = 30.0  # how long a probe may take (Note [Constructor probe])
_INIT_FN = ctypes.CFUNCTYPE(None)


class ForeignLibrary:
    """A loaded foreign library: made by ``load_library``, kept for the process."""

    def __init__(self, data: bytes, digest: str, image: ElfImage) -> None:
        self.digest = digest
        self.data = data
        self._mapped = map_image(image, f"foreign-{digest[:12]}")
        _run_initializers(self._mapped)

    def function(self, name: str) -> int:
        """The address of exported function ``name``; LookupError if absent."""
        address = self._mapped.function(name)
        if address is None:
            raise LookupError(f"the library exports no function {name!r}")
        return address


def _function_in_code(image: ElfImage, name: str) -> bool:
    symbol = image.exported(name)
    if symbol is None or symbol.absolute or symbol.kind not in (0, 2):
        return False
    segment = image.segment_of(symbol.value, max(symbol.size, 1))
    return segment is not None and bool(segment.flags & PF_X)


def check_library(data: bytes, function: str = "call") -> ElfImage:
    """Read and check ``data`` as a foreign library exporting ``function``,
    without loading it; BadKernelBinary (a ValueError) says what is wrong."""
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"a foreign library is bytes, got {type(data).__name__}")
    image = read_image(bytes(data), trusted=True)
    _require_function(image, function)
    return image


def _require_function(image: ElfImage, function: str) -> None:
    if not _function_in_code(image, function):
        raise BadKernelBinary(
            f"exports no function {function!r} (a foreign kernel library exports "
            f'extern "C" void {function}(pointer..., stream))'
        )


def _run_initializers(mapped: MappedImage) -> None:
    """DT_INIT, then DT_INIT_ARRAY in order; every address checked to lie
    in the library's code before any is called, then all called in a probe
    process (Note [Constructor probe]), then here."""
    image = mapped.image
    addresses = []
    if image.init is not None:
        addresses.append(mapped.base + image.init)
    if image.init_array is not None:
        start, size = image.init_array
        table = (ctypes.c_uint64 * (size // 8)).from_address(mapped.base + start)
        addresses += [int(v) for v in table]
    # Empty entries (0 and -1) are skipped, as glibc skips them.
    addresses = [a for a in addresses if a not in (0, 0xFFFFFFFFFFFFFFFF)]
    for address in addresses:
        offset = address - mapped.base
        segment = image.segment_of(offset, 1) if offset >= 0 else None
        if segment is None or not segment.flags & PF_X:
            raise BadKernelBinary("an initializer lies outside the library's code")
    calls = [_INIT_FN(address) for address in addresses]
    _probe(calls)
    for call in calls:
        call()


# Note [Constructor probe]: a foreign library's constructors are its own
# code, and a gcc-built library always has some (crt's ``_init`` and
# ``frame_dummy`` in DT_INIT and .init_array, measured on gcc 12; a user's
# ``__attribute__((constructor))`` is one more .init_array entry,
# indistinguishable by structure from the boilerplate, and libraries may
# rely on theirs: tests/foreign/libraries.py's sets its scale). So they are
# not refused; they run first in a child forked for the purpose, which
# calls them in order, writes one byte to a pipe and leaves with
# ``_exit(0)``. Only when the byte arrived and the child exited 0 do they
# run in this process; otherwise loading fails with BadKernelBinary saying
# what happened (killed by which signal, ended the process with which
# status, or did not finish within CONSTRUCTOR_SECONDS, after which the
# child is killed), and a model file reports it as a load error of its op.
# The process survives a constructor that faults, aborts or exits. What the
# probe does not do: contain a constructor that behaves differently the
# second time (it is trusted code, as GE's samples trust what they dlopen),
# or undo side effects, which happen twice (once in the child); the child
# has this process's memory but only the forking thread. Rejected: running
# them under the kernel fault handler (Note [Kernel faults] in native.c)
# contains a fault but not abort, exit or a hang, and leaves a library
# half-initialised in this process; refusing libraries with constructors
# would refuse every gcc-built library, or trust symbol names a crafted
# file chooses.


def _probe(calls: Sequence[Callable[[], Any]]) -> None:
    """Run ``calls`` in a forked child; BadKernelBinary unless all returned
    (Note [Constructor probe])."""
    if not calls:
        return
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: nothing but the constructors, then leave
        try:
            for call in calls:
                call()
            os.write(write_end, b"k")
        finally:
            os._exit(0)
    os.close(write_end)
    try:
        status = _wait(pid)
        os.set_blocking(read_end, False)  # a grandchild may hold the write end
        try:
            finished = os.read(read_end, 1) == b"k"
        except BlockingIOError:
            finished = False
    finally:
        os.close(read_end)
    if status is None:
        raise BadKernelBinary(
            f"its constructors did not finish within {CONSTRUCTOR_SECONDS:g} s in "
            "a probe process; the library was not loaded"
        )
    if os.WIFSIGNALED(status):
        name = signal.Signals(os.WTERMSIG(status)).name
        raise BadKernelBinary(
            f"a constructor was killed by {name} in a probe process; the library "
            "was not loaded"
        )
    if not finished or os.waitstatus_to_exitcode(status) != 0:
        raise BadKernelBinary(
            "a constructor ended the process (exit status "
            f"{os.waitstatus_to_exitcode(status)}) in a probe process; the library "
            "was not loaded"
        )


def _wait(pid: int) -> int | None:
    """The child's wait status, or None (and the child killed) after
    CONSTRUCTOR_SECONDS."""
    deadline = time.monotonic() + CONSTRUCTOR_SECONDS
    pause = 0.0005
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


_libraries: dict[str, ForeignLibrary] = {}
_lock = threading.RLock()


def load_library(data: bytes, function: str = "call") -> ForeignLibrary:
    """Load a foreign library from memory, once per content per process
    (its initializers run then); it must export ``function``. A library
    already loaded is not read again, only checked for ``function``."""
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"a foreign library is bytes, got {type(data).__name__}")
    digest = hashlib.sha256(data).hexdigest()
    with _lock:
        library = _libraries.get(digest)
        if library is not None:
            _require_function(library._mapped.image, function)
            return library
    image = check_library(data, function)
    with _lock:
        library = _libraries.get(digest)
        if library is None:
            library = ForeignLibrary(bytes(data), digest, image)
            _libraries[digest] = library
        return library


def loaded_digests() -> frozenset[str]:
    """The libraries loaded in this process, by SHA-256."""
    with _lock:
        return frozenset(_libraries)


def forget(digests: Iterable[str]) -> None:
    """Drop libraries from the registry (a failed restore's rollback). Their
    mappings stay: code that may have run must keep its pages."""
    with _lock:
        for digest in digests:
            _libraries.pop(digest, None)


def lock() -> threading.RLock:
    """The registry's lock: a restore holds it so no other thread sees a
    library it may roll back."""
    return _lock


_ADAPTER = """#include "ge_kernel.h"
typedef void (*ge_foreign_fn)({params});
GE_KERNEL({name}, GE_SCALAR(), {decls}, GE_SCALAR()) {{
  (void)block_idx;
  (void)block_dim;
  ((ge_foreign_fn)(uintptr_t)args[0])({call});
}}
"""
_adapters: dict[str, Kernel] = {}


def adapter_source(kinds: str) -> tuple[str, str]:
    """(kernel name, C source) of the adapter for pointers ``kinds``: one
    letter per pointer, ``i`` (read) or ``o`` (written), in call order."""
    if not 1 <= len(kinds) <= MAX_POINTERS or set(kinds) - {"i", "o"}:
        raise ValueError(
            f"a foreign call takes 1..{MAX_POINTERS} pointers, each an input or "
            f"an output; got {kinds!r}"
        )
    name = ADAPTER_PREFIX + kinds
    decls = ", ".join(
        "GE_IN(uint8_t, GE_UNCHECKED)" if k == "i" else "GE_OUT(uint8_t, GE_UNCHECKED)"
        for k in kinds
    )
    params = ", ".join(["void *"] * (len(kinds) + 1))
    call = ", ".join(f"(void *)(uintptr_t)args[{i}]" for i in range(1, len(kinds) + 2))
    return name, _ADAPTER.format(name=name, decls=decls, params=params, call=call)


def adapter_kernel(kinds: str) -> Kernel:
    """The adapter kernel for pointers ``kinds`` (built once per machine
    and cached like any kernel)."""
    with _lock:
        kernel = _adapters.get(kinds)
        if kernel is None:
            name, source = adapter_source(kinds)
            kernel = load_binary(build_kernel(source, name=name)).get_function(name)
            _adapters[kinds] = kernel
        return kernel
