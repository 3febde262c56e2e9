"""Mapping a checked kernel binary into memory (Note [Our own loader] in
``ge.device.elf``).

``map_image`` does what a dynamic loader does for the binaries the device
accepts, and nothing more: it reserves address space for the whole image,
maps each loaded segment from an anonymous memory file with its own
protection, zero-fills the rest of each segment, applies the relocations
``elf.read_image`` listed (relative ones, and imports resolved in libc,
libm or libmvec), then makes the read-only-after-relocation range read-only.
No code of the binary runs: there are no initializers to call, and the
loader never calls any. The mapping stays for the life of the process
(binaries are cached by content), so kernel addresses never dangle.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import threading

from ge.device.elf import (
    PAGE,
    PF_R,
    PF_W,
    PF_X,
    R_ABS,
    R_RELATIVE,
    BadKernelBinary,
    ElfImage,
    Segment,
    Symbol,
)

__all__ = ["MappedImage", "map_image"]

_MAP_FIXED = 0x10  # Linux, on every architecture the device supports
_MAP_FAILED = ctypes.c_void_p(-1).value
_MFD_CLOEXEC = 0x1

_libc = ctypes.CDLL(None, use_errno=True)
_mmap = _libc.mmap
_mmap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int64,
]
_mmap.restype = ctypes.c_void_p
_munmap = _libc.munmap
_munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_munmap.restype = ctypes.c_int
_mprotect = _libc.mprotect
_mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_mprotect.restype = ctypes.c_int
_dlsym = _libc.dlsym
_dlsym.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_dlsym.restype = ctypes.c_void_p
_dlvsym = _libc.dlvsym
_dlvsym.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]
_dlvsym.restype = ctypes.c_void_p

_handles: dict[str, int] = {}
_handles_lock = threading.Lock()


def _library(name: str) -> int:
    """A handle of a system library a binary may need (libc, libm, libmvec)."""
    with _handles_lock:
        handle = _handles.get(name)
        if handle is None:
            try:
                handle = ctypes.CDLL(name)._handle
            except OSError as exc:
                raise BadKernelBinary(
                    f"needs {name}, which this system lacks: {exc}"
                ) from None
            _handles[name] = handle
        return handle


def _protection(flags: int) -> int:
    return (
        (mmap.PROT_READ if flags & PF_R else 0)
        | (mmap.PROT_WRITE if flags & PF_W else 0)
        | (mmap.PROT_EXEC if flags & PF_X else 0)
    )


class MappedImage:
    """A binary mapped at ``base``: symbols resolve to addresses."""

    def __init__(self, image: ElfImage, base: int) -> None:
        self.image = image
        self.base = base

    def function(self, name: str) -> int | None:
        """The address of exported function ``name``; None if there is none."""
        symbol = self.image.exported(name)
        if symbol is None or symbol.absolute or symbol.kind not in (0, 2):
            return None
        segment = self.image.segment_of(symbol.value, max(symbol.size, 1))
        if segment is None or not segment.flags & PF_X:
            raise BadKernelBinary(f"function {name!r} lies outside the binary's code")
        return self.base + symbol.value

    def data(self, name: str, size: int) -> int | None:
        """The address of exported object ``name`` of at least ``size``
        readable bytes; None if there is none."""
        symbol = self.image.exported(name)
        if symbol is None or symbol.absolute or symbol.kind not in (0, 1):
            return None
        segment = self.image.segment_of(symbol.value, size)
        if symbol.size < size or segment is None or not segment.flags & PF_R:
            raise BadKernelBinary(
                f"{name!r} is {symbol.size} bytes, or lies outside the binary's "
                f"readable data; {size} bytes were expected"
            )
        return self.base + symbol.value


def _imports(image: ElfImage) -> dict[int, int]:
    """Symbol index -> address, for every symbol a relocation imports from
    a library (0 for an absent weak one)."""
    handles = [_library(name) for name in image.needed]
    resolved: dict[int, int] = {}
    for relocation in image.relocations:
        index = relocation.symbol
        if relocation.kind == R_RELATIVE or index in resolved:
            continue
        symbol = image.symbols[index]
        if symbol.defined:
            continue
        address = _lookup(handles, symbol)
        if address is None:
            if not symbol.weak:
                raise BadKernelBinary(
                    f"imports {symbol.name!r}, which "
                    + (
                        "none of its libraries define"
                        if handles
                        else "it cannot: it names no library as needed"
                    )
                )
            address = 0
        resolved[index] = address
    return resolved


def _lookup(handles: list[int], symbol: Symbol) -> int | None:
    name = symbol.name.encode("ascii")
    version = symbol.version.encode("ascii") if symbol.version else None
    for handle in handles:
        found = _dlvsym(handle, name, version) if version else _dlsym(handle, name)
        if found:
            return int(found)
    return None


def _fail(what: str) -> BadKernelBinary:
    return BadKernelBinary(f"{what} failed: {os.strerror(ctypes.get_errno())}")


def map_image(image: ElfImage, label: str) -> MappedImage:
    """Map ``image`` (checked by ``elf.read_image``) and relocate it."""
    imports = _imports(image)  # before anything is mapped: a bad import maps nothing
    fd = os.memfd_create(f"ge-kernel-{label}", _MFD_CLOEXEC)
    base = None
    try:
        view = memoryview(image.data)
        while view:
            view = view[os.write(fd, view) :]
        base = _mmap(
            None,
            image.span,
            0,
            mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS,
            -1,
            0,
        )
        if base is None or base == _MAP_FAILED:
            base = None
            raise _fail("reserving address space")
        for segment in image.segments:
            _map_segment(fd, base, segment)
        _relocate(image, base, imports)
        for segment in image.segments:
            start = segment.vaddr // PAGE * PAGE
            end = (segment.vaddr + segment.memsz + PAGE - 1) // PAGE * PAGE
            if _mprotect(base + start, end - start, _protection(segment.flags)) != 0:
                raise _fail("protecting a segment")
        if image.relro is not None:
            start, size = image.relro
            first, last = start // PAGE * PAGE, (start + size) // PAGE * PAGE
            if (
                last > first
                and _mprotect(base + first, last - first, mmap.PROT_READ) != 0
            ):
                raise _fail("protecting the relocated data")
    except BaseException:
        if base is not None:
            _munmap(base, image.span)
        raise
    finally:
        os.close(fd)
    return MappedImage(image, base)


def _map_segment(fd: int, base: int, segment: Segment) -> None:
    start = segment.vaddr // PAGE * PAGE
    file_end = segment.vaddr + segment.filesz
    mem_end = (segment.vaddr + segment.memsz + PAGE - 1) // PAGE * PAGE
    writable = mmap.PROT_READ | mmap.PROT_WRITE
    mapped_end = start
    if segment.filesz:
        mapped_end = (file_end + PAGE - 1) // PAGE * PAGE
        address = _mmap(
            base + start,
            mapped_end - start,
            writable,
            mmap.MAP_PRIVATE | _MAP_FIXED,
            fd,
            segment.offset // PAGE * PAGE,
        )
        if address != base + start:
            raise _fail("mapping a segment")
        # The last file page holds whatever follows in the file: zeros from
        # the end of the segment's bytes, as the segment is zero-filled.
        if segment.memsz > segment.filesz:
            ctypes.memset(base + file_end, 0, mapped_end - file_end)
    if mem_end > mapped_end:
        address = _mmap(
            base + mapped_end,
            mem_end - mapped_end,
            writable,
            mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _MAP_FIXED,
            -1,
            0,
        )
        if address != base + mapped_end:
            raise _fail("mapping a segment's zero-filled part")


def _relocate(image: ElfImage, base: int, imports: dict[int, int]) -> None:
    for relocation in image.relocations:
        if relocation.kind == R_RELATIVE:
            value = base + relocation.addend
        else:
            symbol = image.symbols[relocation.symbol]
            if not symbol.defined:
                address = imports[relocation.symbol]
            elif symbol.absolute:
                address = symbol.value
            else:
                address = base + symbol.value
            value = address + (relocation.addend if relocation.kind == R_ABS else 0)
        ctypes.c_uint64.from_address(base + relocation.vaddr).value = value % (1 << 64)
