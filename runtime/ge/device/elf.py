"""Checks on a kernel binary before it is loaded: the right kind of ELF file,
and no code that would run just by loading (or unloading) it.

Note [Code that runs on load]: the dynamic loader runs code of a shared
object at these points, and each is refused:

- initializers and finalizers: DT_INIT, DT_INIT_ARRAY, DT_PREINIT_ARRAY,
  DT_FINI, DT_FINI_ARRAY (kernel binaries are built without start files, so
  they have none);
- IFUNC resolvers, run while relocating: any R_*_IRELATIVE relocation, and
  any relocation against a symbol of type STT_GNU_IFUNC;
- the initializers of the libraries it needs: only libc and libm may be
  needed (DT_NEEDED).

The dynamic segment and the tables it points to are read where the loader
reads them: their virtual addresses are mapped to file offsets through the
PT_LOAD segments, and a PT_DYNAMIC whose file offset disagrees with its
address is refused. This keeps "loading a model runs no code from the file
except the kernels it launches on purpose"; it is not a sandbox for the
kernels themselves.
"""

from __future__ import annotations

import platform
import struct
from collections.abc import Iterator

_MACHINES = {"x86_64": 62, "AMD64": 62, "aarch64": 183, "arm64": 183}
_IRELATIVE = {62: 37, 183: 1032}  # R_X86_64_IRELATIVE, R_AARCH64_IRELATIVE
_ALLOWED_NEEDED = {b"libc.so.6", b"libm.so.6"}

_PT_LOAD, _PT_DYNAMIC = 1, 2
_DT_NULL, _DT_NEEDED, _DT_PLTRELSZ, _DT_STRTAB, _DT_SYMTAB = 0, 1, 2, 5, 6
_DT_RELA, _DT_RELASZ, _DT_STRSZ, _DT_SYMENT = 7, 8, 10, 11
_DT_INIT, _DT_FINI, _DT_JMPREL = 12, 13, 23
_DT_INIT_ARRAY, _DT_FINI_ARRAY = 25, 26
_DT_INIT_ARRAYSZ, _DT_FINI_ARRAYSZ = 27, 28
_DT_PREINIT_ARRAY, _DT_PREINIT_ARRAYSZ = 32, 33
_STT_GNU_IFUNC = 10
_PHDR = struct.Struct("<IIQQQQQQ")
_DYN = struct.Struct("<qQ")
_RELA = struct.Struct("<QQq")
_SYM = struct.Struct("<IBBHQQ")


class BadKernelBinary(ValueError):
    """A kernel binary that the device refuses to load."""


class _Image:
    """The file with its PT_LOAD mapping from addresses to offsets."""

    def __init__(self, data: bytes, loads: list[tuple[int, int, int]]) -> None:
        self.data = data
        self.loads = loads  # (vaddr, offset, filesz)

    def offset(self, vaddr: int, size: int, what: str) -> int:
        for start, offset, filesz in self.loads:
            if start <= vaddr and vaddr + size <= start + filesz:
                at = offset + (vaddr - start)
                if at + size <= len(self.data):
                    return at
        raise BadKernelBinary(f"{what} lies outside the file's loaded segments")


def check_kernel_binary(data: bytes) -> None:
    """Raise BadKernelBinary unless ``data`` is a loadable 64-bit
    little-endian shared object for this machine that runs no code when
    loaded or unloaded."""
    machine = _check_header(data)
    image, dynamic = _segments(data)
    tags = list(_dynamic_entries(image, dynamic))
    values: dict[int, int] = {}
    for tag, value in tags:
        values.setdefault(tag, value)
    if _DT_INIT in values:
        raise BadKernelBinary("has an initializer (DT_INIT) that would run on load")
    if _DT_FINI in values:
        raise BadKernelBinary("has a finalizer (DT_FINI) that would run on unload")
    for array, size, words in (
        (_DT_INIT_ARRAY, _DT_INIT_ARRAYSZ, "initializers (.init_array)"),
        (_DT_PREINIT_ARRAY, _DT_PREINIT_ARRAYSZ, "initializers (.preinit_array)"),
        (_DT_FINI_ARRAY, _DT_FINI_ARRAYSZ, "finalizers (.fini_array)"),
    ):
        if array in values and values.get(size, 1) != 0:
            raise BadKernelBinary(f"has {words} that would run on load or unload")
    _check_needed(image, tags, values)
    _check_relocations(image, values, machine)


def _check_header(data: bytes) -> int:
    if len(data) < 64 or data[:4] != b"\x7fELF":
        raise BadKernelBinary("not an ELF file (bad magic)")
    if data[4] != 2 or data[5] != 1:
        raise BadKernelBinary("not a 64-bit little-endian ELF file")
    e_type, e_machine = struct.unpack_from("<HH", data, 16)
    if e_type != 3:
        raise BadKernelBinary("not a shared object (ELF type is not ET_DYN)")
    expected = _MACHINES.get(platform.machine())
    if expected is not None and e_machine != expected:
        raise BadKernelBinary(
            f"built for machine {e_machine}, this is {platform.machine()}"
        )
    return int(e_machine)


def _segments(data: bytes) -> tuple[_Image, tuple[int, int]]:
    """The load mapping and the dynamic segment's (file offset, size)."""
    (e_phoff,) = struct.unpack_from("<Q", data, 32)
    e_phentsize, e_phnum = struct.unpack_from("<HH", data, 54)
    if e_phentsize != _PHDR.size or e_phoff + e_phnum * _PHDR.size > len(data):
        raise BadKernelBinary("program header table is out of bounds")
    loads = []
    dynamic = None
    for i in range(e_phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz, _, _ = _PHDR.unpack_from(
            data, e_phoff + i * _PHDR.size
        )
        if p_type == _PT_LOAD:
            if p_offset + p_filesz > len(data):
                raise BadKernelBinary("a loaded segment is out of bounds")
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == _PT_DYNAMIC:
            if dynamic is not None:
                raise BadKernelBinary("more than one dynamic segment")
            dynamic = (p_offset, p_vaddr, p_filesz)
    if dynamic is None:
        raise BadKernelBinary("no dynamic section: not a loadable shared object")
    image = _Image(data, loads)
    offset, vaddr, size = dynamic
    if image.offset(vaddr, size, "the dynamic section") != offset:
        raise BadKernelBinary(
            "the dynamic section's file offset does not match its address"
        )
    return image, (offset, size)


def _dynamic_entries(
    image: _Image, dynamic: tuple[int, int]
) -> Iterator[tuple[int, int]]:
    offset, size = dynamic
    for at in range(offset, offset + size - _DYN.size + 1, _DYN.size):
        tag, value = _DYN.unpack_from(image.data, at)
        if tag == _DT_NULL:
            return
        yield tag, value


def _check_needed(
    image: _Image, tags: list[tuple[int, int]], values: dict[int, int]
) -> None:
    needed = [value for tag, value in tags if tag == _DT_NEEDED]
    if not needed:
        return
    if _DT_STRTAB not in values or _DT_STRSZ not in values:
        raise BadKernelBinary("needs libraries but has no string table")
    size = values[_DT_STRSZ]
    table = image.offset(values[_DT_STRTAB], size, "the string table")
    strings = image.data[table : table + size]
    for name_offset in needed:
        end = strings.find(b"\0", name_offset)
        if name_offset >= size or end < 0:
            raise BadKernelBinary("a needed library's name is out of bounds")
        name = strings[name_offset:end]
        if name not in _ALLOWED_NEEDED:
            raise BadKernelBinary(
                f"needs library {name.decode(errors='replace')!r}, whose "
                "initializers would run on load (only libc and libm may be needed)"
            )


def _check_relocations(image: _Image, values: dict[int, int], machine: int) -> None:
    irelative = _IRELATIVE.get(machine)
    symtab = values.get(_DT_SYMTAB)
    syment = values.get(_DT_SYMENT, _SYM.size)
    if syment != _SYM.size:
        raise BadKernelBinary(f"symbol entries of {syment} bytes (expected 24)")
    for table, size_tag in ((_DT_RELA, _DT_RELASZ), (_DT_JMPREL, _DT_PLTRELSZ)):
        if table not in values:
            continue
        size = values.get(size_tag, 0)
        if size % _RELA.size:
            raise BadKernelBinary("a relocation table has a partial entry")
        at = image.offset(values[table], size, "a relocation table")
        for entry in range(at, at + size, _RELA.size):
            _, info, _ = _RELA.unpack_from(image.data, entry)
            kind, symbol = info & 0xFFFFFFFF, info >> 32
            if kind == irelative:
                raise BadKernelBinary(
                    "has an IFUNC relocation whose resolver would run on load"
                )
            if symbol and symtab is not None:
                where = image.offset(
                    symtab + symbol * _SYM.size, _SYM.size, "a relocated symbol"
                )
                _, st_info, _, st_shndx, _, _ = _SYM.unpack_from(image.data, where)
                if st_info & 0xF == _STT_GNU_IFUNC and st_shndx != 0:
                    raise BadKernelBinary(
                        "relocates against an IFUNC symbol whose resolver would "
                        "run on load"
                    )
