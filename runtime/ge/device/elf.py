"""Reading a kernel binary's ELF structure, with every field checked against
the file, for ``ge.device.loader`` to map.

Note [Our own loader]: kernel binaries never reach the system's dynamic
loader. ``read_image`` reads what a loader needs (the segments to map, the
dynamic section, relocations, symbols, the libraries named as needed) and
``ge.device.loader`` maps exactly that. There is no second reader whose view
of the file could differ from the checker's (glibc reads dynamic entries up
to DT_NULL and keeps the last copy of a tag; a checker reading otherwise can
be fooled into passing a constructor). Consequences:

- No code in the file runs when it is loaded. Initializers, finalizers and
  IFUNC resolvers are never called; a binary that declares any is refused
  anyway, so the mistake is reported rather than silently ignored.
- Only the symbols a binary imports by name are resolved, and only in the
  libraries it may name as needed (libc, libm and libmvec, system libraries
  already trusted by the interpreter).
- Every offset, size, index and count is checked before use, so a damaged
  or hostile file is refused with ``BadKernelBinary`` and never crashes the
  process while loading. What a kernel does once launched is another matter
  (docs/runtime.md, "Trust").
"""

from __future__ import annotations

import mmap
import platform
import struct
from dataclasses import dataclass

__all__ = [
    "BadKernelBinary",
    "ElfImage",
    "Relocation",
    "Segment",
    "Symbol",
    "check_kernel_binary",
    "read_image",
]

PAGE = mmap.PAGESIZE
MAX_SPAN = 1 << 30  # bytes of address space one binary may occupy
MAX_SYMBOLS = 1 << 16
MAX_DYNAMIC = 1 << 12  # dynamic entries
ALLOWED_NEEDED = ("libc.so.6", "libm.so.6", "libmvec.so.1")

_MACHINES = {"x86_64": 62, "AMD64": 62, "aarch64": 183, "arm64": 183}

# Relocation kinds a loader applies: what each writes at its address.
R_NONE, R_ABS, R_SYMBOL, R_RELATIVE = "none", "abs", "symbol", "relative"
_RELOCATIONS = {
    62: {0: R_NONE, 1: R_ABS, 6: R_SYMBOL, 7: R_SYMBOL, 8: R_RELATIVE},
    183: {0: R_NONE, 257: R_ABS, 1025: R_ABS, 1026: R_SYMBOL, 1027: R_RELATIVE},
}
_IRELATIVE = {62: 37, 183: 1032}

PF_X, PF_W, PF_R = 1, 2, 4
_PT_LOAD, _PT_DYNAMIC, _PT_TLS, _PT_GNU_RELRO = 1, 2, 7, 0x6474E552
DT_NULL, DT_NEEDED, DT_PLTRELSZ, DT_HASH, DT_STRTAB, DT_SYMTAB = 0, 1, 2, 4, 5, 6
DT_RELA, DT_RELASZ, DT_RELAENT, DT_STRSZ, DT_SYMENT = 7, 8, 9, 10, 11
DT_INIT, DT_FINI, DT_REL, DT_PLTREL, DT_TEXTREL, DT_JMPREL = 12, 13, 17, 20, 22, 23
DT_INIT_ARRAY, DT_FINI_ARRAY, DT_INIT_ARRAYSZ, DT_FINI_ARRAYSZ = 25, 26, 27, 28
DT_FLAGS, DT_PREINIT_ARRAY, DT_PREINIT_ARRAYSZ = 30, 32, 33
DT_RELRSZ, DT_RELR, DT_RELRENT = 35, 36, 37
DT_GNU_HASH, DT_VERSYM, DT_VERNEED, DT_VERNEEDNUM = (
    0x6FFFFEF5,
    0x6FFFFFF0,
    0x6FFFFFFE,
    0x6FFFFFFF,
)
_DF_TEXTREL = 0x4
_STT_FUNC, _STT_GNU_IFUNC, _STT_TLS = 2, 10, 6
_SHN_UNDEF, _SHN_ABS = 0, 0xFFF1
_STB_WEAK = 2

_EHDR_TAIL = struct.Struct("<HHIQQQIHHHHHH")  # from e_type (offset 16)
_PHDR = struct.Struct("<IIQQQQQQ")
_DYN = struct.Struct("<qQ")
_RELA = struct.Struct("<QQq")
_SYM = struct.Struct("<IBBHQQ")
_VERNEED = struct.Struct("<HHIII")
_VERNAUX = struct.Struct("<IHHII")

# Tags that may appear once at most (a second copy is how a file makes two
# readers disagree); DT_NEEDED is the one tag that legitimately repeats.
_UNIQUE_TAGS = frozenset(
    {
        DT_PLTRELSZ,
        DT_HASH,
        DT_STRTAB,
        DT_SYMTAB,
        DT_RELA,
        DT_RELASZ,
        DT_RELAENT,
        DT_STRSZ,
        DT_SYMENT,
        DT_REL,
        DT_PLTREL,
        DT_JMPREL,
        DT_FLAGS,
        DT_RELRSZ,
        DT_RELR,
        DT_RELRENT,
        DT_GNU_HASH,
        DT_VERSYM,
        DT_VERNEED,
        DT_VERNEEDNUM,
    }
)
# What runs code on load or unload; refused by presence, whatever the sizes.
_LOAD_TIME_CODE = {
    DT_INIT: "has an initializer (DT_INIT) that would run on load",
    DT_FINI: "has a finalizer (DT_FINI) that would run on unload",
    DT_INIT_ARRAY: "has initializers (.init_array) that would run on load",
    DT_INIT_ARRAYSZ: "has initializers (.init_array) that would run on load",
    DT_PREINIT_ARRAY: "has initializers (.preinit_array) that would run on load",
    DT_PREINIT_ARRAYSZ: "has initializers (.preinit_array) that would run on load",
    DT_FINI_ARRAY: "has finalizers (.fini_array) that would run on load or unload",
    DT_FINI_ARRAYSZ: "has finalizers (.fini_array) that would run on load or unload",
}


_ARRAY_SIZES = frozenset({DT_INIT_ARRAYSZ, DT_PREINIT_ARRAYSZ, DT_FINI_ARRAYSZ})


class BadKernelBinary(ValueError):
    """A kernel binary that the device refuses to load."""


@dataclass(frozen=True)
class Segment:
    """A PT_LOAD segment: file bytes [offset, offset + filesz) at
    [vaddr, vaddr + filesz), zeros up to vaddr + memsz."""

    vaddr: int
    offset: int
    filesz: int
    memsz: int
    flags: int

    @property
    def writable(self) -> bool:
        return bool(self.flags & PF_W)

    def holds(self, vaddr: int, size: int) -> bool:
        return self.vaddr <= vaddr and vaddr + size <= self.vaddr + self.memsz


@dataclass(frozen=True)
class Symbol:
    name: str
    value: int
    size: int
    kind: int  # STT_*
    defined: bool
    absolute: bool
    weak: bool
    exported: bool  # global or weak, default or protected visibility
    version: str | None  # the version an imported symbol asks for


@dataclass(frozen=True)
class Relocation:
    """Write a 64-bit value at ``vaddr``: base + addend (relative), the
    symbol's address (symbol) or the symbol's address + addend (abs)."""

    vaddr: int
    kind: str
    symbol: int
    addend: int


@dataclass(frozen=True)
class ElfImage:
    """Everything a loader needs, checked."""

    data: bytes
    machine: int
    segments: tuple[Segment, ...]
    span: int  # bytes of address space, from 0
    relro: tuple[int, int] | None  # (vaddr, size) to make read-only
    needed: tuple[str, ...]
    symbols: tuple[Symbol, ...]
    relocations: tuple[Relocation, ...]
    # Trusted foreign libraries only (Note [Foreign libraries] in
    # ``ge.device.foreign``): DT_INIT's address and DT_INIT_ARRAY's
    # (vaddr, size); a kernel binary has neither.
    init: int | None = None
    init_array: tuple[int, int] | None = None

    def segment_of(self, vaddr: int, size: int) -> Segment | None:
        for segment in self.segments:
            if segment.holds(vaddr, size):
                return segment
        return None

    def exported(self, name: str) -> Symbol | None:
        """The defined, exported symbol ``name``, if any."""
        for symbol in self.symbols:
            if symbol.name == name and symbol.defined and symbol.exported:
                return symbol
        return None


def check_kernel_binary(data: bytes) -> None:
    """Raise BadKernelBinary unless ``data`` is a kernel binary the device
    loads (``read_image`` without keeping the result)."""
    read_image(data)


def read_image(data: bytes, *, trusted: bool = False) -> ElfImage:
    """Read and check ``data``; BadKernelBinary names the first problem.

    ``trusted`` reads a foreign library (Note [Foreign libraries] in
    ``ge.device.foreign``): its initializers are recorded for the caller to
    run, finalizers are ignored; every other check is the same."""
    data = bytes(data)
    machine, phoff, phnum = _header(data)
    segments, dynamic, relro = _program_headers(data, phoff, phnum)
    reader = _Reader(data, segments)
    tags, needed_offsets = _dynamic(reader, dynamic)
    init, init_array = _initializers(tags, segments) if trusted else (None, None)
    for tag, message in _LOAD_TIME_CODE.items():
        if trusted and tag not in (DT_PREINIT_ARRAY, DT_PREINIT_ARRAYSZ):
            continue
        # An array's address alone is refused; a size of 0 with no array is
        # an empty declaration.
        if tag in tags and (tag not in _ARRAY_SIZES or tags[tag] != 0):
            raise BadKernelBinary(message)
    if DT_TEXTREL in tags or tags.get(DT_FLAGS, 0) & _DF_TEXTREL:
        raise BadKernelBinary(
            "relocates its own code (DT_TEXTREL); build it with -fPIC"
        )
    if DT_REL in tags:
        raise BadKernelBinary("has REL relocations; this machine uses RELA")
    strings = _strings(reader, tags) if DT_STRTAB in tags or needed_offsets else b""
    needed = tuple(
        _string(strings, at, "a needed library's name") for at in needed_offsets
    )
    for name in needed:
        if name not in ALLOWED_NEEDED:
            raise BadKernelBinary(
                f"needs library {name!r}, whose initializers would run on load "
                "(only libc and libm may be needed)"
            )
    symbols = _symbols(reader, tags, strings)
    relocations = _relocations(reader, tags, machine, symbols, segments)
    span = _round_up(max(s.vaddr + s.memsz for s in segments))
    return ElfImage(
        data=data,
        machine=machine,
        segments=segments,
        span=span,
        relro=relro,
        needed=needed,
        symbols=symbols,
        relocations=relocations,
        init=init,
        init_array=init_array,
    )


def _initializers(
    tags: dict[int, int], segments: tuple[Segment, ...]
) -> tuple[int | None, tuple[int, int] | None]:
    """DT_INIT's address (in executable code) and DT_INIT_ARRAY's range (in
    a writable segment, whole 8-byte entries), checked."""
    init = tags.get(DT_INIT)
    if init is not None:
        segment = next((s for s in segments if s.holds(init, 1)), None)
        if segment is None or not segment.flags & PF_X:
            raise BadKernelBinary("its initializer (DT_INIT) lies outside its code")
    if (DT_INIT_ARRAY in tags) != (DT_INIT_ARRAYSZ in tags):
        raise BadKernelBinary("its initializer array has no size, or no address")
    if DT_INIT_ARRAY not in tags or tags[DT_INIT_ARRAYSZ] == 0:
        return init, None
    start, size = tags[DT_INIT_ARRAY], tags[DT_INIT_ARRAYSZ]
    if size % 8 or size > 8 * MAX_SYMBOLS:
        raise BadKernelBinary("its initializer array is not whole 8-byte entries")
    _check_target(segments, start, size)
    return init, (start, size)


def _round_up(value: int) -> int:
    return (value + PAGE - 1) // PAGE * PAGE


def _header(data: bytes) -> tuple[int, int, int]:
    if len(data) < 64 or data[:4] != b"\x7fELF":
        raise BadKernelBinary("not an ELF file (bad magic)")
    if data[4] != 2 or data[5] != 1:
        raise BadKernelBinary("not a 64-bit little-endian ELF file")
    e_type, e_machine, _, _, e_phoff, _, _, _, e_phentsize, e_phnum, *_ = (
        _EHDR_TAIL.unpack_from(data, 16)
    )
    if e_type != 3:
        raise BadKernelBinary("not a shared object (ELF type is not ET_DYN)")
    expected = _MACHINES.get(platform.machine())
    if expected is not None and e_machine != expected:
        raise BadKernelBinary(
            f"built for machine {e_machine}, this is {platform.machine()}"
        )
    if e_machine not in _RELOCATIONS:
        raise BadKernelBinary(
            f"built for machine {e_machine}, which the device cannot load"
        )
    if e_phentsize != _PHDR.size or e_phoff + e_phnum * _PHDR.size > len(data):
        raise BadKernelBinary("program header table is out of bounds")
    return int(e_machine), int(e_phoff), int(e_phnum)


def _program_headers(
    data: bytes, phoff: int, phnum: int
) -> tuple[tuple[Segment, ...], tuple[int, int], tuple[int, int] | None]:
    """The PT_LOAD segments (sorted, on separate pages), the dynamic
    segment's (vaddr, size) and the RELRO range."""
    segments: list[Segment] = []
    dynamic = None
    relro = None
    for i in range(phnum):
        p_type, p_flags, p_offset, p_vaddr, _, p_filesz, p_memsz, _ = _PHDR.unpack_from(
            data, phoff + i * _PHDR.size
        )
        if p_type == _PT_LOAD:
            if p_filesz > p_memsz or p_offset + p_filesz > len(data):
                raise BadKernelBinary("a loaded segment is out of bounds")
            if p_vaddr + p_memsz > MAX_SPAN:
                raise BadKernelBinary(
                    f"a loaded segment ends beyond {MAX_SPAN} bytes of address space"
                )
            if p_vaddr % PAGE != p_offset % PAGE:
                raise BadKernelBinary(
                    "a loaded segment's address and file offset are not aligned alike"
                )
            if p_flags & PF_W and p_flags & PF_X:
                raise BadKernelBinary(
                    "a loaded segment is both writable and executable"
                )
            segments.append(Segment(p_vaddr, p_offset, p_filesz, p_memsz, p_flags))
        elif p_type == _PT_DYNAMIC:
            if dynamic is not None:
                raise BadKernelBinary("more than one dynamic segment")
            dynamic = (p_offset, p_vaddr, p_filesz)
        elif p_type == _PT_TLS:
            raise BadKernelBinary("uses thread-local storage, which kernels cannot")
        elif p_type == _PT_GNU_RELRO:
            relro = (p_vaddr, p_memsz)
    if not segments:
        raise BadKernelBinary("has no loaded segments")
    if dynamic is None:
        raise BadKernelBinary("no dynamic section: not a loadable shared object")
    segments.sort(key=lambda s: s.vaddr)
    for before, after in zip(segments, segments[1:]):
        if _round_up(before.vaddr + before.memsz) > after.vaddr // PAGE * PAGE:
            raise BadKernelBinary("two loaded segments share a page")
    image = _Reader(data, tuple(segments))
    offset, vaddr, size = dynamic
    if image.offset(vaddr, size, "the dynamic section") != offset:
        raise BadKernelBinary(
            "the dynamic section's file offset does not match its address"
        )
    if relro is not None:
        start, length = relro
        holder = next((s for s in segments if s.holds(start, length)), None)
        if holder is None or not holder.writable:
            raise BadKernelBinary("the read-only-after-relocation range is misplaced")
    return tuple(segments), (vaddr, size), relro


class _Reader:
    """Reads the file at virtual addresses, through the loaded segments'
    file parts (a table must lie in the file, not in zero-filled memory)."""

    def __init__(self, data: bytes, segments: tuple[Segment, ...]) -> None:
        self.data = data
        self.segments = segments

    def offset(self, vaddr: int, size: int, what: str) -> int:
        if vaddr < 0 or size < 0:
            raise BadKernelBinary(f"{what} lies outside the file's loaded segments")
        for segment in self.segments:
            if (
                segment.vaddr <= vaddr
                and vaddr + size <= segment.vaddr + segment.filesz
            ):
                return segment.offset + (vaddr - segment.vaddr)
        raise BadKernelBinary(f"{what} lies outside the file's loaded segments")

    def read(self, vaddr: int, size: int, what: str) -> bytes:
        at = self.offset(vaddr, size, what)
        return self.data[at : at + size]


def _dynamic(
    reader: _Reader, dynamic: tuple[int, int]
) -> tuple[dict[int, int], list[int]]:
    """Every dynamic entry up to DT_NULL (which must come within the
    segment); duplicate tags refused."""
    vaddr, size = dynamic
    raw = reader.read(vaddr, size, "the dynamic section")
    tags: dict[int, int] = {}
    needed: list[int] = []
    for at in range(
        0, min(len(raw), MAX_DYNAMIC * _DYN.size) - _DYN.size + 1, _DYN.size
    ):
        tag, value = _DYN.unpack_from(raw, at)
        if tag == DT_NULL:
            return tags, needed
        if tag == DT_NEEDED:
            needed.append(value)
        elif tag in tags and (tag in _UNIQUE_TAGS or tag in _LOAD_TIME_CODE):
            raise BadKernelBinary(f"the dynamic section has tag {tag} twice")
        else:
            tags[tag] = value
    raise BadKernelBinary(
        "the dynamic section does not end with DT_NULL within its segment"
    )


def _strings(reader: _Reader, tags: dict[int, int]) -> bytes:
    if DT_STRTAB not in tags or DT_STRSZ not in tags:
        raise BadKernelBinary("has no string table (DT_STRTAB and DT_STRSZ)")
    return reader.read(tags[DT_STRTAB], tags[DT_STRSZ], "the string table")


def _string(strings: bytes, at: int, what: str) -> str:
    end = strings.find(b"\0", at) if 0 <= at < len(strings) else -1
    if end < 0:
        raise BadKernelBinary(f"{what} is out of bounds of the string table")
    try:
        return strings[at:end].decode("ascii")
    except UnicodeDecodeError:
        raise BadKernelBinary(f"{what} is not ASCII") from None


def _symbol_count(reader: _Reader, tags: dict[int, int]) -> int:
    """How many dynamic symbols there are, from the hash table."""
    if DT_HASH in tags:
        nbucket, nchain = struct.unpack(
            "<II", reader.read(tags[DT_HASH], 8, "the symbol hash table")
        )
        return int(nchain)
    if DT_GNU_HASH not in tags:
        raise BadKernelBinary("has symbols but no symbol hash table")
    at = tags[DT_GNU_HASH]
    nbuckets, symoffset, bloom_size, _ = struct.unpack(
        "<IIII", reader.read(at, 16, "the GNU hash table")
    )
    if nbuckets > MAX_SYMBOLS or bloom_size > MAX_SYMBOLS:
        raise BadKernelBinary("the GNU hash table is too large")
    buckets_at = at + 16 + 8 * bloom_size
    buckets = struct.unpack(
        f"<{nbuckets}I", reader.read(buckets_at, 4 * nbuckets, "the GNU hash buckets")
    )
    last = max(buckets, default=0)
    if last < symoffset:
        return int(symoffset)
    chains_at = buckets_at + 4 * nbuckets
    index = last
    while True:
        if index - symoffset >= MAX_SYMBOLS:
            raise BadKernelBinary("the GNU hash chains do not end")
        (value,) = struct.unpack(
            "<I",
            reader.read(chains_at + 4 * (index - symoffset), 4, "the GNU hash chains"),
        )
        if value & 1:
            return index + 1
        index += 1


def _versions(reader: _Reader, tags: dict[int, int], strings: bytes) -> dict[int, str]:
    """Version index -> the version name an imported symbol asks for."""
    if DT_VERNEED not in tags:
        return {}
    names: dict[int, str] = {}
    at = tags[DT_VERNEED]
    for _ in range(min(tags.get(DT_VERNEEDNUM, 0), 64)):
        _, count, _, aux, next_entry = _VERNEED.unpack(
            reader.read(at, _VERNEED.size, "the version needs")
        )
        where = at + aux
        for _ in range(min(count, 256)):
            _, _, other, name, next_aux = _VERNAUX.unpack(
                reader.read(where, _VERNAUX.size, "the version needs")
            )
            names[other & 0x7FFF] = _string(strings, name, "a version name")
            if next_aux == 0:
                break
            where += next_aux
        if next_entry == 0:
            break
        at += next_entry
    return names


def _symbols(
    reader: _Reader, tags: dict[int, int], strings: bytes
) -> tuple[Symbol, ...]:
    if DT_SYMTAB not in tags:
        return ()
    if tags.get(DT_SYMENT, _SYM.size) != _SYM.size:
        raise BadKernelBinary(
            f"symbol entries of {tags[DT_SYMENT]} bytes (expected {_SYM.size})"
        )
    count = _symbol_count(reader, tags)
    if count > MAX_SYMBOLS:
        raise BadKernelBinary(f"has {count} symbols, more than {MAX_SYMBOLS}")
    raw = reader.read(tags[DT_SYMTAB], count * _SYM.size, "the symbol table")
    versions = _versions(reader, tags, strings)
    version_of: tuple[int, ...] = ()
    if DT_VERSYM in tags and versions:
        version_of = struct.unpack(
            f"<{count}H", reader.read(tags[DT_VERSYM], 2 * count, "the symbol versions")
        )
    symbols = []
    for index in range(count):
        st_name, st_info, st_other, st_shndx, st_value, st_size = _SYM.unpack_from(
            raw, index * _SYM.size
        )
        name = _string(strings, st_name, f"symbol {index}'s name") if index else ""
        binding, kind = st_info >> 4, st_info & 0xF
        version = versions.get(version_of[index] & 0x7FFF) if version_of else None
        symbols.append(
            Symbol(
                name=name,
                value=st_value,
                size=st_size,
                kind=kind,
                defined=st_shndx != _SHN_UNDEF,
                absolute=st_shndx == _SHN_ABS,
                weak=binding == _STB_WEAK,
                exported=binding in (1, _STB_WEAK) and st_other & 3 in (0, 3),
                version=version,
            )
        )
    return tuple(symbols)


def _relocations(
    reader: _Reader,
    tags: dict[int, int],
    machine: int,
    symbols: tuple[Symbol, ...],
    segments: tuple[Segment, ...],
) -> tuple[Relocation, ...]:
    kinds = _RELOCATIONS[machine]
    out: list[Relocation] = []
    if tags.get(DT_RELAENT, _RELA.size) != _RELA.size:
        raise BadKernelBinary("relocation entries are not 24 bytes")
    if DT_PLTREL in tags and tags[DT_PLTREL] != DT_RELA:
        raise BadKernelBinary("its PLT relocations are not RELA")
    for table, size_tag in ((DT_RELA, DT_RELASZ), (DT_JMPREL, DT_PLTRELSZ)):
        if (table in tags) != (size_tag in tags):
            raise BadKernelBinary(
                "a relocation table has no size, or a size and no table"
            )
        if table not in tags:
            continue
        size = tags[size_tag]
        if size % _RELA.size:
            raise BadKernelBinary("a relocation table has a partial entry")
        raw = reader.read(tags[table], size, "a relocation table")
        for at in range(0, size, _RELA.size):
            r_offset, r_info, r_addend = _RELA.unpack_from(raw, at)
            number, index = r_info & 0xFFFFFFFF, r_info >> 32
            if number == _IRELATIVE[machine]:
                raise BadKernelBinary(
                    "has an IFUNC relocation whose resolver would run on load"
                )
            kind = kinds.get(number)
            if kind is None:
                raise BadKernelBinary(
                    f"has relocation type {number}, which the device does not apply"
                )
            if kind == R_NONE:
                continue
            if index >= max(len(symbols), 1) or (kind != R_RELATIVE and index == 0):
                raise BadKernelBinary(
                    f"a relocation names symbol {index}, which does not exist"
                )
            if (
                index
                and symbols[index].kind == _STT_GNU_IFUNC
                and symbols[index].defined
            ):
                raise BadKernelBinary(
                    "relocates against an IFUNC symbol whose resolver would run on load"
                )
            if index and symbols[index].kind == _STT_TLS:
                raise BadKernelBinary("relocates against thread-local storage")
            _check_target(segments, r_offset, 8)
            out.append(Relocation(r_offset, kind, index, r_addend))
    out.extend(_relr(reader, tags, segments))
    return tuple(out)


def _relr(
    reader: _Reader, tags: dict[int, int], segments: tuple[Segment, ...]
) -> list[Relocation]:
    """Packed relative relocations (DT_RELR): an address, then bitmaps of
    the 63 words after it."""
    if (DT_RELR in tags) != (DT_RELRSZ in tags):
        raise BadKernelBinary("a relocation table has no size, or a size and no table")
    if DT_RELR not in tags:
        return []
    if tags.get(DT_RELRENT, 8) != 8 or tags[DT_RELRSZ] % 8:
        raise BadKernelBinary("packed relocation entries are not 8 bytes")
    raw = reader.read(tags[DT_RELR], tags[DT_RELRSZ], "the packed relocations")
    out: list[Relocation] = []
    where = None
    for (entry,) in struct.iter_unpack("<Q", raw):
        if entry & 1 == 0:
            where = entry
            _check_target(segments, where, 8)
            out.append(Relocation(where, R_RELATIVE, 0, 0))
            where += 8
            continue
        if where is None:
            raise BadKernelBinary("packed relocations start with a bitmap")
        bits = entry >> 1
        for bit in range(63):
            if bits >> bit & 1:
                _check_target(segments, where + 8 * bit, 8)
                out.append(Relocation(where + 8 * bit, R_RELATIVE, 0, 0))
        where += 8 * 63
    return out


def _check_target(segments: tuple[Segment, ...], vaddr: int, size: int) -> None:
    for segment in segments:
        if segment.holds(vaddr, size):
            if not segment.writable:
                raise BadKernelBinary("a relocation writes into a read-only segment")
            return
    raise BadKernelBinary("a relocation writes outside the loaded segments")
