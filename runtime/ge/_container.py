"""The file container of graph (AIR) and model files: a header, a table of
sections, and the sections, each with a CRC-32 (docs/model-format.md).

    header   magic[8] | version u32 | section count u32 | file size u64
    table    count x (kind u32 | crc32 u32 | offset u64 | length u64)
    crc      u32: CRC-32 of header and table
    sections at their offsets, in table order, contiguous

All integers little-endian. Reading checks everything before trusting any
length, in this order: magic, section count, the table's bounds, the header
CRC, version, the file's size, then each section's place, bounds and CRC;
any problem is a FileFormatError naming what is wrong. The CRCs catch
damage, not deliberate tampering.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

_HEADER = struct.Struct("<8sIIQ")
_ENTRY = struct.Struct("<IIQQ")
_CRC = struct.Struct("<I")
MAX_SECTIONS = 64


class FileFormatError(ValueError):
    """A graph or model file that cannot be read (damaged, truncated, not
    this kind of file, or from a newer version)."""


@dataclass(frozen=True)
class Section:
    kind: int
    data: bytes


def write(magic: bytes, version: int, sections: Sequence[Section]) -> bytes:
    """The bytes of a container holding ``sections`` in order."""
    if len(magic) != 8 or len(sections) > MAX_SECTIONS:
        raise ValueError(
            f"a container has an 8-byte magic and at most {MAX_SECTIONS} sections"
        )
    offset = _HEADER.size + _ENTRY.size * len(sections) + _CRC.size
    table = b""
    for section in sections:
        table += _ENTRY.pack(
            section.kind, zlib.crc32(section.data), offset, len(section.data)
        )
        offset += len(section.data)
    header = _HEADER.pack(magic, version, len(sections), offset)
    return (
        header
        + table
        + _CRC.pack(zlib.crc32(header + table))
        + b"".join(s.data for s in sections)
    )


def read(
    data: bytes, magic: bytes, supported_version: int, what: str
) -> tuple[int, dict[int, bytes]]:
    """(version, sections by kind) of a container; FileFormatError if the
    bytes are not a sound ``what`` file."""
    if len(data) < _HEADER.size:
        raise FileFormatError(f"{what}: too short to be one ({len(data)} bytes)")
    found_magic, version, count, size = _HEADER.unpack_from(data, 0)
    if found_magic != magic:
        raise FileFormatError(f"{what}: wrong magic {found_magic!r}; not a {what}")
    if count > MAX_SECTIONS:
        raise FileFormatError(
            f"{what}: claims {count} sections (at most {MAX_SECTIONS})"
        )
    table_end = _HEADER.size + _ENTRY.size * count
    if len(data) < table_end + _CRC.size:
        raise FileFormatError(f"{what}: truncated inside its section table")
    (header_crc,) = _CRC.unpack_from(data, table_end)
    if zlib.crc32(data[:table_end]) != header_crc:
        raise FileFormatError(f"{what}: header checksum mismatch (the file is damaged)")
    # Only now is the version known to be the one written.
    if version > supported_version:
        raise FileFormatError(
            f"{what}: format version {version} is newer than this runtime reads "
            f"(up to {supported_version}); update the runtime"
        )
    if version == 0:
        raise FileFormatError(f"{what}: format version 0 does not exist")
    if size != len(data):
        raise FileFormatError(
            f"{what}: the header says {size} bytes, the file has {len(data)} "
            "(truncated or extended)"
        )
    sections: dict[int, bytes] = {}
    expected_offset = table_end + _CRC.size
    for index in range(count):
        kind, crc, offset, length = _ENTRY.unpack_from(
            data, _HEADER.size + _ENTRY.size * index
        )
        if offset != expected_offset:
            raise FileFormatError(
                f"{what}: section {index} (kind {kind}) starts at {offset}, not "
                f"where the sections before it end ({expected_offset})"
            )
        if offset + length > len(data):
            raise FileFormatError(
                f"{what}: section {index} (kind {kind}) lies outside the file "
                f"(offset {offset}, length {length})"
            )
        body = data[offset : offset + length]
        if zlib.crc32(body) != crc:
            raise FileFormatError(
                f"{what}: section {index} (kind {kind}) checksum mismatch (the file is damaged)"
            )
        if kind in sections:
            raise FileFormatError(f"{what}: section kind {kind} appears twice")
        sections[kind] = body
        expected_offset = offset + length
    if expected_offset != len(data):
        raise FileFormatError(
            f"{what}: {len(data) - expected_offset} stray bytes after the sections"
        )
    return version, sections
