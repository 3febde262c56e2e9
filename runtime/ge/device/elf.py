"""Checks on a kernel binary before it is loaded: the right kind of ELF file,
and no code that would run just by loading it.

Loading a shared object runs its initializers (DT_INIT, DT_INIT_ARRAY,
DT_PREINIT_ARRAY). Kernel binaries are built without start files, so they
have none; a binary that has some is refused, which keeps "loading a model
runs no code from the file except the kernels it launches on purpose".
"""

from __future__ import annotations

import platform
import struct

_MACHINES = {"x86_64": 62, "AMD64": 62, "aarch64": 183, "arm64": 183}
_DT_NULL, _DT_INIT, _DT_INIT_ARRAY, _DT_INIT_ARRAYSZ = 0, 12, 25, 27
_DT_PREINIT_ARRAY, _DT_PREINIT_ARRAYSZ = 32, 33
_PT_DYNAMIC = 2


class BadKernelBinary(ValueError):
    """A kernel binary that the device refuses to load."""


def check_kernel_binary(data: bytes) -> None:
    """Raise BadKernelBinary unless ``data`` is a loadable, initializer-free
    64-bit little-endian shared object for this machine."""
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
    (e_phoff,) = struct.unpack_from("<Q", data, 32)
    e_phentsize, e_phnum = struct.unpack_from("<HH", data, 54)
    if e_phentsize != 56 or e_phoff + e_phnum * 56 > len(data):
        raise BadKernelBinary("program header table is out of bounds")
    dynamic = None
    for i in range(e_phnum):
        p_type, _, p_offset, _, _, p_filesz, _, _ = struct.unpack_from(
            "<IIQQQQQQ", data, e_phoff + i * 56
        )
        if p_type == _PT_DYNAMIC:
            if p_offset + p_filesz > len(data):
                raise BadKernelBinary("dynamic section is out of bounds")
            dynamic = (p_offset, p_filesz)
    if dynamic is None:
        raise BadKernelBinary("no dynamic section: not a loadable shared object")
    offset, size = dynamic
    sizes = {}
    for at in range(offset, offset + size - 15, 16):
        tag, value = struct.unpack_from("<qQ", data, at)
        if tag == _DT_NULL:
            break
        if tag in (_DT_INIT, _DT_INIT_ARRAY, _DT_PREINIT_ARRAY):
            sizes.setdefault(tag, value)
        if tag in (_DT_INIT_ARRAYSZ, _DT_PREINIT_ARRAYSZ):
            sizes[tag] = value
    if _DT_INIT in sizes:
        raise BadKernelBinary("has an initializer (DT_INIT) that would run on load")
    for array, array_size in (
        (_DT_INIT_ARRAY, _DT_INIT_ARRAYSZ),
        (_DT_PREINIT_ARRAY, _DT_PREINIT_ARRAYSZ),
    ):
        if array in sizes and sizes.get(array_size, 1) != 0:
            raise BadKernelBinary(
                "has initializers (.init_array) that would run on load"
            )
