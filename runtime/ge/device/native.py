"""The native launcher (native.c), loaded by the device's own loader like any
kernel binary (Note [Our own loader] in ``ge.device.elf``).

Note [Prebuilt launcher]: the build backend compiles native.c into
``_native.so`` beside this file (hatch_build.py), so loading and running a
model needs neither a compiler nor a writable home directory. That binary is
used only when the source hash it records (``ge_native_source()``) is the
SHA-256 of native.c here; otherwise (a checkout whose native.c changed
since the install, a source tree without the build step) native.c is built
with the system compiler and cached as before. The file is read into memory
and loaded from there, never by the system's dynamic loader."""

from __future__ import annotations

import ctypes
import hashlib
import os
import signal
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ge.device.kernels import Binary, load_binary
from ge.device.toolchain import BuildError, build_shared, cache_lookup, cache_store

KERNEL_FN = ctypes.CFUNCTYPE(None, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_void_p)


class Task(ctypes.Structure):
    """One launch of a compiled graph (``ge_task`` in native.c)."""

    _fields_ = [
        ("fn", ctypes.c_void_p),
        ("args", ctypes.c_void_p),
        ("block_dim", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
    ]


_u32, _u64, _vp = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_void_p


class PackedRun(ctypes.Structure):
    """What ``ge_run_state`` takes (``ge_packed_run`` in native.c, Note
    [Packed run state]): a run state's argument table, the input/output
    bindings (three parallel arrays), its address table and its launches."""

    _fields_ = [
        ("table", _vp),
        ("slots", _vp),
        ("sources", _vp),
        ("offsets", _vp),
        ("addrs", _vp),
        ("tasks", _vp),
        ("nbound", _u32),
        ("ntasks", _u32),
    ]


# The launcher's functions. ctypes releases the GIL around each call, so
# runs on several threads execute their kernels in parallel.
_SIGNATURES = {
    "ge_launch": ctypes.CFUNCTYPE(_u64, _vp, _u32, _vp),
    "ge_run_state": ctypes.CFUNCTYPE(_u64, _vp),
    "ge_refresh_state": ctypes.CFUNCTYPE(None, _vp),
    "ge_replay": ctypes.CFUNCTYPE(_u64, _vp, _u32),
    "ge_fault_install": ctypes.CFUNCTYPE(ctypes.c_int),
    "ge_pool_resize": ctypes.CFUNCTYPE(ctypes.c_int, _u32),
    "ge_pool_threads": ctypes.CFUNCTYPE(_u32),
    "ge_pool_min_blocks": ctypes.CFUNCTYPE(_u32, _u32),
    "ge_pool_adaptive": ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int),
}


@dataclass(frozen=True)
class Launcher:
    """The launcher's functions, called through ctypes."""

    ge_launch: Callable[..., int]
    ge_run_state: Callable[[int], int]
    ge_refresh_state: Callable[[int], None]
    ge_replay: Callable[..., int]
    ge_fault_install: Callable[[], int]
    ge_pool_resize: Callable[[int], int]
    ge_pool_threads: Callable[[], int]
    ge_pool_min_blocks: Callable[[int], int]
    ge_pool_adaptive: Callable[[int], int]


HERE = Path(__file__).resolve().parent
PREBUILT = HERE / "_native.so"
_SOURCE_FN = ctypes.CFUNCTYPE(ctypes.c_char_p)


def _built_from(binary: Binary) -> str | None:
    address = binary.symbol("ge_native_source")
    if address is None:
        return None
    value = _SOURCE_FN(address)()
    return value.decode("ascii", "replace") if value else None


def prebuilt(digest: str) -> Binary | None:
    """The launcher the build backend compiled, if it was built from the
    source whose SHA-256 is ``digest`` (Note [Prebuilt launcher])."""
    try:
        data = PREBUILT.read_bytes()
    except OSError:
        return None
    binary = load_binary(data)
    return binary if _built_from(binary) == digest else None


def _launcher_binary(source: str, digest: str) -> bytes:
    """native.c built by the C compiler; on a machine without one (where
    only model files run) and without the prebuilt launcher, the last build
    of this very source that the kernel cache holds, under a key of the
    source alone."""
    key = "ge-native-" + digest
    try:
        data = build_shared(
            source, name="ge_native", defines={"GE_NATIVE_SOURCE": f'"{digest}"'}
        )
    except BuildError as exc:
        cached = cache_lookup(key)
        if cached is None:
            raise BuildError(
                f"{exc}; the native launcher is neither prebuilt (an installed "
                "wheel) nor in the kernel cache: run any graph or model once on "
                "this machine with a C compiler, or set GE_CPU_CACHE_DIR to a "
                "cache that holds it"
            ) from None
        return cached
    if cache_lookup(key) != data:
        cache_store(key, data)
    return data


@lru_cache(maxsize=1)
def library() -> Launcher:
    source = (HERE / "native.c").read_bytes()
    digest = hashlib.sha256(source).hexdigest()
    binary = prebuilt(digest)
    if binary is None:
        binary = load_binary(_launcher_binary(source.decode("utf-8"), digest))
    functions = {}
    for name, prototype in _SIGNATURES.items():
        address = binary.symbol(name)
        if address is None:
            raise RuntimeError(f"the native launcher has no function {name}")
        functions[name] = prototype(address)
    launcher = Launcher(**functions)
    if launcher.ge_fault_install() != 0:
        raise RuntimeError("the native launcher could not install its fault handler")
    _start_pool(launcher, default_threads())
    return launcher


# -- the worker pool (Note [Worker pool] in native.c) ------------------------------

THREADS_ENV = "GE_CPU_THREADS"
MAX_THREADS = 256


def default_threads() -> int:
    """The device's threads: ``$GE_CPU_THREADS`` if set, else the cores
    this process may run on (``sched_getaffinity``)."""
    text = os.environ.get(THREADS_ENV, "").strip()
    if text:
        return parse_threads(text, THREADS_ENV)
    try:
        return max(1, min(MAX_THREADS, len(os.sched_getaffinity(0))))
    except (AttributeError, OSError):
        return max(1, min(MAX_THREADS, os.cpu_count() or 1))


def parse_threads(value: object, what: str) -> int:
    """A thread count from an option's text (or an int): 1..MAX_THREADS."""
    try:
        count = int(str(value).strip())
    except ValueError:
        count = 0
    if not 1 <= count <= MAX_THREADS:
        raise ValueError(
            f"{what} is the number of threads the CPU device runs blocks on, "
            f"1..{MAX_THREADS}; got {value!r}"
        )
    return count


def _start_pool(launcher: Launcher, threads: int) -> None:
    error = launcher.ge_pool_resize(threads)
    if error:
        raise RuntimeError(
            f"the CPU device could not start {threads} threads "
            f"({os.strerror(error)}); it has {launcher.ge_pool_threads()}"
        )


def set_threads(threads: int) -> None:
    """Run launches on ``threads`` threads (the launching one included; 1:
    every block on the launching thread). Waits for a running launch."""
    count = parse_threads(threads, "threads")
    launcher = library()
    if launcher.ge_pool_threads() != count:
        _start_pool(launcher, count)


def threads() -> int:
    """The threads launches run on."""
    return int(library().ge_pool_threads())


def set_min_blocks(blocks: int) -> None:
    """Launches with fewer blocks than this run inline (at least 2)."""
    library().ge_pool_min_blocks(max(2, int(blocks)))


def get_min_blocks() -> int:
    """The block count from which a launch runs on the pool (default 16:
    Note [Worker pool] in native.c)."""
    return int(library().ge_pool_min_blocks(0))


def set_backoff(on: bool) -> bool:
    """Turn the pool's backoff (Note [Pool backoff] in native.c: launches run
    inline for a while after the pool was slower than inline) on or off;
    off, every launch of at least ``get_min_blocks()`` blocks runs on the
    pool. Returns the previous setting."""
    return bool(library().ge_pool_adaptive(1 if on else 0))


def backoff() -> bool:
    """Whether the pool backs off after a launch it made slower."""
    return bool(library().ge_pool_adaptive(-1))


# -- kernel faults (Note [Kernel faults] in native.c) ------------------------------


class KernelFault(RuntimeError):
    """A kernel faulted (a stray pointer, a division by zero...) in a block
    of a launch; the process survives, the launch's outputs are garbage."""


def fault_message(code: int, what: str) -> str:
    """What a launcher's fault code says: ``signal | block << 8 | task << 32``
    (the task index only from a replay); ``what`` names the launch."""
    number, block = code & 0xFF, (code >> 8) & 0xFFFFFF
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = f"signal {number}"
    return f"{what} faulted ({name}) in block {block}"
