"""Kernel binaries: loaded from memory, cached by content, with their
declarations (ge_kernel.h's GE_KERNEL) read back for launch checks."""

from __future__ import annotations

import ctypes
import enum
import hashlib
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ge.device.elf import BadKernelBinary, read_image
from ge.device.isa import check_level
from ge.device.loader import map_image
from ge.device.toolchain import build_shared

__all__ = [
    "ArgDecl",
    "ArgKind",
    "Binary",
    "Kernel",
    "BadKernelBinary",
    "build_kernel",
    "load_binary",
]


class ArgKind(enum.IntEnum):
    """What a kernel argument is (``GE_ARG_*`` in ge_kernel.h, same numbers)."""

    IN = 1
    OUT = 2
    INOUT = 3
    WORKSPACE = 4
    SCALAR = 5

    def describe(self) -> str:
        """As messages spell it: in, out, inout, workspace, scalar."""
        return self.name.lower()


_ARG_KINDS = frozenset(int(kind) for kind in ArgKind)
ARG_NULLABLE, ARG_LIST = 0x100, 0x200
POINTER_KINDS = (ArgKind.IN, ArgKind.OUT, ArgKind.INOUT, ArgKind.WORKSPACE)
EXTENT_UNCHECKED, EXTENT_ELEMS, EXTENT_ARG, EXTENT_PER_BLOCK = 0, 1, 2, 3


class _CDecl(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_uint32),
        ("elem_bytes", ctypes.c_uint32),
        ("extent", ctypes.c_uint32),
        ("count_arg", ctypes.c_uint32),
        ("value", ctypes.c_uint64),
    ]


@dataclass(frozen=True)
class ArgDecl:
    """What a kernel says about one argument slot."""

    kind: ArgKind  # the base kind, flags split out below
    elem_bytes: int
    extent: int
    value: int
    nullable: bool = False
    is_list: bool = False
    count_arg: int = 0

    @property
    def is_pointer(self) -> bool:
        return self.kind in POINTER_KINDS

    def describe(self) -> str:
        return self.kind.describe()

    def bytes_needed(self, block_dim: int, args: Sequence[int]) -> int | None:
        """Bytes this pointer spans in a launch; None when unchecked."""
        if self.extent == EXTENT_ELEMS:
            return self.value * self.elem_bytes
        if self.extent == EXTENT_PER_BLOCK:
            return block_dim * self.value * self.elem_bytes
        if self.extent == EXTENT_ARG:
            return args[self.value] * self.elem_bytes
        return None


@dataclass(frozen=True)
class Kernel:
    """A kernel function of a loaded binary."""

    name: str
    address: int
    decls: tuple[ArgDecl, ...]
    binary: Binary

    def expand(self, count: int) -> tuple[ArgDecl, ...] | None:
        """The declaration of each of ``count`` arguments (a trailing list
        repeats); None if ``count`` arguments cannot match."""
        decls = self.decls
        if decls and decls[-1].is_list:
            fixed = len(decls) - 1
            if count < fixed:
                return None
            return decls[:fixed] + (decls[-1],) * (count - fixed)
        return decls if count == len(decls) else None

    def arity(self) -> str:
        if self.decls and self.decls[-1].is_list:
            return f"{len(self.decls) - 1} or more argument(s)"
        return f"{len(self.decls)} argument(s)"


class Binary:
    """A loaded kernel binary. Made by ``load_binary``; kept for the process.

    Read and mapped by the device's own loader (Note [Our own loader] in
    ``ge.device.elf``): no code of the binary runs until a kernel of it is
    launched."""

    def __init__(self, data: bytes, digest: str) -> None:
        self.digest = digest
        self.data = data  # kept: model files store binaries
        self.size = len(data)
        self._image = map_image(read_image(data), digest[:12])
        self.isa_level = self._isa_level()
        check_level(self.isa_level, f"kernel binary {digest[:12]}")
        self._kernels: dict[str, Kernel] = {}
        self._lock = threading.Lock()

    def _isa_level(self) -> int:
        """The level ge_kernel.h recorded (Note [ISA levels]); 1 if none."""
        try:
            at = self._image.data("ge_isa_level", 4)
        except BadKernelBinary:
            return 1
        return ctypes.c_uint32.from_address(at).value if at else 1

    def symbol(self, name: str) -> int | None:
        """The address of exported function ``name`` (None if absent)."""
        return self._image.function(name)

    def get_function(self, name: str) -> Kernel:
        """The kernel ``name``; it must be declared with GE_KERNEL."""
        with self._lock:
            if name in self._kernels:
                return self._kernels[name]
            if not isinstance(name, str) or not name.isidentifier():
                raise LookupError(f"{name!r} is not a kernel function name")
            try:
                address = self._image.function(name)
                if address is None:
                    raise LookupError(f"kernel binary has no function {name!r}")
                count_at = self._image.data(f"{name}_ge_nargs", 4)
                nargs = ctypes.c_uint32.from_address(count_at).value if count_at else 0
                table_at = (
                    self._image.data(f"{name}_ge_args", nargs * ctypes.sizeof(_CDecl))
                    if count_at
                    else None
                )
            except BadKernelBinary as exc:
                raise LookupError(f"kernel {name!r}: {exc}") from None
            if count_at is None or table_at is None:
                raise LookupError(
                    f"kernel {name!r} has no GE_KERNEL declaration of its arguments "
                    "(include ge_kernel.h and declare it with GE_KERNEL)"
                )
            table = (_CDecl * nargs).from_address(table_at)
            decls = tuple(_decl(name, index, d) for index, d in enumerate(table))
            for index, decl in enumerate(decls):
                if decl.is_list and (
                    index != len(decls) - 1
                    or decl.count_arg >= index
                    or decls[decl.count_arg].kind is not ArgKind.SCALAR
                ):
                    raise LookupError(
                        f"kernel {name!r} argument {index}: a list must be the last "
                        "argument and name an earlier scalar argument as its count"
                    )
                if decl.extent == EXTENT_ARG and (
                    decl.value >= len(decls)
                    or decls[decl.value].kind is not ArgKind.SCALAR
                ):
                    raise LookupError(
                        f"kernel {name!r} argument {index}: its size refers to argument "
                        f"{decl.value}, which is not a scalar argument"
                    )
            kernel = Kernel(name, address, decls, self)
            self._kernels[name] = kernel
            return kernel


def _decl(name: str, index: int, raw: _CDecl) -> ArgDecl:
    """One argument declaration, its fields checked (a damaged or foreign
    table must not reach the launch checks)."""
    base = raw.kind & 0xFF
    flags = raw.kind & ~0xFF
    if base not in _ARG_KINDS or flags & ~(ARG_NULLABLE | ARG_LIST):
        raise LookupError(
            f"kernel {name!r} argument {index}: unknown argument kind {raw.kind} "
            "(GE_IN, GE_OUT, GE_INOUT, GE_WORKSPACE, GE_SCALAR and their flags)"
        )
    if raw.extent not in (EXTENT_UNCHECKED, EXTENT_ELEMS, EXTENT_ARG, EXTENT_PER_BLOCK):
        raise LookupError(
            f"kernel {name!r} argument {index}: unknown extent kind {raw.extent}"
        )
    kind = ArgKind(base)
    if kind in POINTER_KINDS and raw.elem_bytes == 0:
        raise LookupError(f"kernel {name!r} argument {index}: element size 0")
    return ArgDecl(
        kind,
        raw.elem_bytes,
        raw.extent,
        raw.value,
        bool(raw.kind & ARG_NULLABLE),
        bool(raw.kind & ARG_LIST),
        raw.count_arg,
    )


_binaries: dict[str, Binary] = {}
_binaries_lock = threading.Lock()


def load_binary(data: bytes) -> Binary:
    """Load a kernel binary from memory (once per content)."""
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"a kernel binary is bytes, got {type(data).__name__}")
    digest = hashlib.sha256(data).hexdigest()
    with _binaries_lock:
        binary = _binaries.get(digest)
        if binary is None:
            binary = Binary(bytes(data), digest)
            _binaries[digest] = binary
        return binary


def build_kernel(
    source: str | os.PathLike[str],
    *,
    defines: Mapping[str, str | int | None] | None = None,
    name: str = "kernel",
    flags: Sequence[str] = (),
) -> bytes:
    """Compile a C kernel (text, or the path of a file; it includes
    ge_kernel.h) to binary bytes. Given a path, compiler messages name it.

    Warnings are errors; the math library is linked; ``flags`` are added to
    the compile line (``-O3``, ``-march=native``, ``-DNAME``...)."""
    return build_shared(
        source,
        defines=defines,
        flags=("-Wall", "-Werror", *flags),
        libs=("m",),
        name=name,
    )


_kernels: dict[tuple[object, ...], Kernel] = {}


def load_kernel(
    source: str | os.PathLike[str],
    function: str,
    *,
    defines: Mapping[str, str | int | None] | None = None,
    name: str = "kernel",
    flags: Sequence[str] = (),
) -> Kernel:
    """``function`` of ``source`` built with ``defines`` and ``flags``: built
    and loaded the first time, then returned from memory, so it is cheap to
    call from an ``execute`` callback on every run."""
    key = (source, function, tuple(sorted((defines or {}).items())), tuple(flags))
    kernel = _kernels.get(key)
    if kernel is None:
        binary = build_kernel(source, defines=defines, name=name, flags=flags)
        kernel = load_binary(binary).get_function(function)
        _kernels[key] = kernel
    return kernel
