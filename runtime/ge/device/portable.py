"""The portable payload of an op with foreign libraries: GE's TileLang
offline sample's serialized format, byte for byte, and its restore.

Note [Portable payload]: all fields little-endian u32.

    offset  size  field
    0       4     magic    0x4F504B4E
    4       4     version  1
    8       4     count    number of entries, at least 1
    12      ...   entries, count times:
                    4  key_len   bytes of the key, at least 1
                    N  key       UTF-8 (the sample's is the element count, "4096")
                    4  size      bytes of the library, at least 1
                    M  data      the library (or any bytes the op stores)

``decode`` refuses, without reading past the buffer: a buffer shorter than
the header or than any field, a bad magic or version, a zero count, a count
or length larger than the bytes that follow could hold, an empty or
non-UTF-8 key, a key given twice, and bytes after the last entry.
``restore`` then checks every library the caller needs (the ELF checks of
Note [Foreign libraries]) before loading any, and if a load still fails,
forgets every library it registered: nothing from a failed restore stays.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping

from ge.device import foreign
from ge.device.elf import BadKernelBinary

__all__ = [
    "MAGIC",
    "VERSION",
    "PortableFormatError",
    "check",
    "decode",
    "encode",
    "restore",
]

MAGIC = 0x4F504B4E
VERSION = 1
MAX_KEY_BYTES = 4096
_U32 = struct.Struct("<I")
_MIN_ENTRY = 4 + 1 + 4 + 1  # key_len, a key byte, size, a data byte


class PortableFormatError(ValueError):
    """A portable payload that cannot be restored (the message says why)."""


def encode(entries: Mapping[str, bytes]) -> bytes:
    """The payload of ``entries`` (key -> bytes), in their order."""
    if not entries:
        raise ValueError("a portable payload holds at least one entry")
    parts = [_U32.pack(MAGIC), _U32.pack(VERSION), _U32.pack(len(entries))]
    for key, data in entries.items():
        raw = key.encode("utf-8") if isinstance(key, str) else b""
        if not 1 <= len(raw) <= MAX_KEY_BYTES:
            raise ValueError(f"a payload key is 1..{MAX_KEY_BYTES} bytes of text")
        if not isinstance(data, (bytes, bytearray)) or not data:
            raise ValueError(f"entry {key!r}: its data is non-empty bytes")
        if len(data) > 0xFFFFFFFF:
            raise ValueError(f"entry {key!r}: more than 4 GiB")
        parts += [_U32.pack(len(raw)), raw, _U32.pack(len(data)), bytes(data)]
    return b"".join(parts)


class _Cursor:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def u32(self, what: str) -> int:
        if len(self.data) - self.at < 4:
            raise PortableFormatError(
                f"truncated: {what} at byte {self.at} needs 4 bytes, "
                f"{len(self.data) - self.at} remain"
            )
        (value,) = _U32.unpack_from(self.data, self.at)
        self.at += 4
        return int(value)

    def take(self, size: int, what: str) -> bytes:
        if size > len(self.data) - self.at:
            raise PortableFormatError(
                f"{what} claims {size} bytes at byte {self.at}, "
                f"{len(self.data) - self.at} remain"
            )
        chunk = self.data[self.at : self.at + size]
        self.at += size
        return chunk


def decode(data: bytes) -> dict[str, bytes]:
    """The entries of a payload, in order; PortableFormatError if damaged."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"a portable payload is bytes, got {type(data).__name__}")
    cursor = _Cursor(bytes(data))
    magic = cursor.u32("the magic")
    if magic != MAGIC:
        raise PortableFormatError(f"bad magic 0x{magic:08X} (expected 0x{MAGIC:08X})")
    version = cursor.u32("the version")
    if version != VERSION:
        raise PortableFormatError(f"version {version}; this runtime reads {VERSION}")
    count = cursor.u32("the entry count")
    if count == 0:
        raise PortableFormatError("the entry count is 0")
    if count > (len(cursor.data) - cursor.at) // _MIN_ENTRY:
        raise PortableFormatError(
            f"the entry count {count} is more than the remaining bytes can hold"
        )
    entries: dict[str, bytes] = {}
    for index in range(count):
        key_len = cursor.u32(f"entry {index}'s key length")
        if not 1 <= key_len <= MAX_KEY_BYTES:
            raise PortableFormatError(
                f"entry {index}'s key length {key_len} is not 1..{MAX_KEY_BYTES}"
            )
        try:
            key = cursor.take(key_len, f"entry {index}'s key").decode("utf-8")
        except UnicodeDecodeError:
            raise PortableFormatError(f"entry {index}'s key is not UTF-8") from None
        if key in entries:
            raise PortableFormatError(f"entry {index} repeats key {key!r}")
        size = cursor.u32(f"entry {key!r}'s size")
        if size == 0:
            raise PortableFormatError(f"entry {key!r} is empty")
        entries[key] = cursor.take(size, f"entry {key!r}")
    if cursor.at != len(cursor.data):
        raise PortableFormatError(
            f"{len(cursor.data) - cursor.at} trailing byte(s) after the last entry"
        )
    return entries


def check(
    data: bytes, function: str = "call", keys: Iterable[str] | None = None
) -> dict[str, bytes]:
    """Decode a payload and check its libraries (those of ``keys``, or all)
    with the ELF reader, loading none and running nothing; the libraries
    checked, by key. PortableFormatError naming the entry otherwise."""
    entries = decode(data)
    wanted = list(entries) if keys is None else list(dict.fromkeys(keys))
    for key in wanted:
        if key not in entries:
            raise PortableFormatError(f"the payload has no entry {key!r}")
        try:
            foreign.check_library(entries[key], function)
        except BadKernelBinary as exc:
            raise PortableFormatError(f"entry {key!r}: {exc}") from None
    return {key: entries[key] for key in wanted}


def restore(
    data: bytes, function: str = "call", keys: Iterable[str] | None = None
) -> dict[str, foreign.ForeignLibrary]:
    """Decode a payload and load its libraries (those of ``keys``, or all),
    all or nothing: every library is checked before any is loaded, and a
    failure forgets every library this call registered."""
    entries = check(data, function, keys)
    wanted = list(entries)
    with foreign.lock():
        before = foreign.loaded_digests()
        restored: dict[str, foreign.ForeignLibrary] = {}
        try:
            for key in wanted:
                restored[key] = foreign.load_library(entries[key], function)
        except BaseException as exc:
            foreign.forget(foreign.loaded_digests() - before)
            if isinstance(exc, BadKernelBinary):
                raise PortableFormatError(f"entry {key!r}: {exc}") from None
            raise
    return restored
