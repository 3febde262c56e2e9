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

import contextlib
import json
import os
import re
import stat
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

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


# -- reading files a user did not write --------------------------------------------

# Note [Untrusted container files]: graph and model files come from anyone
# (a colleague, a download, a shared directory), so reading one is bounded
# before its contents are looked at, as gen-ops bounds what it reads (Note
# [Untrusted files] in gen_ops.base.untrusted, whose rules these are; the
# runtime cannot import gen-ops):
#
# - ``read_regular_file`` opens without blocking (``O_NONBLOCK``: a FIFO
#   does not hang the open), then reads only a regular file (``fstat`` on
#   the open descriptor, so a path swapped after a check cannot get past
#   it; a symlink is followed to what it names, and ``/dev/zero`` is a
#   device), and never more than ``limit`` bytes, so nothing can hang the
#   reader or exhaust memory; a missing file stays ``FileNotFoundError``.
# - ``load_json`` parses a JSON section with nesting bounded *before* the
#   parser runs (a linear scan, so no recursion limit is reached, whatever
#   the interpreter's is), integers of at most ``MAX_INT_DIGITS`` digits
#   (no quadratic conversion; the sections' integers are u64 at most),
#   numbers of bounded length, and no NaN or Infinity (not JSON).
#
# Every refusal is a FileFormatError naming the file (or the section) and
# what is wrong.

MAX_INT_DIGITS = 20  # 2**64 - 1 has 20
MAX_NUMBER_CHARS = 64
# A string, or an unterminated one up to the end: every match attempt from a
# quote succeeds and consumes what it scanned, so skipping strings is linear
# whatever the bytes (a pattern that can fail would rescan from each quote).
_STRINGS = re.compile(rb'"(?:[^"\\]++|\\.|\\\Z)*+(?:"|\Z)', re.DOTALL)
_DEPTH_STEP = np.zeros(256, np.int8)
_DEPTH_STEP[[ord("["), ord("{")]] = 1
_DEPTH_STEP[[ord("]"), ord("}")]] = -1
_DEPTH_CHUNK = 1 << 24


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_regular_file(path: str | os.PathLike[str], limit: int, what: str) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them
    (Note [Untrusted container files]); FileFormatError naming the file
    otherwise. FileNotFoundError and other errors of opening stay OSErrors."""
    name = f"{what} {os.fspath(path)}"
    handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            raise FileFormatError(
                f"{name}: it is {_kind(info.st_mode)}, not a regular file; a "
                f"{what} is read only from a regular file"
            )
        if info.st_size > limit:
            raise FileFormatError(_too_big(name, what, info.st_size, limit))
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(handle, min(1 << 24, limit + 1 - total))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # it grew while being read
                raise FileFormatError(_too_big(name, what, total, limit))
    finally:
        with contextlib.suppress(OSError):
            os.close(handle)


def _too_big(name: str, what: str, size: int, limit: int) -> str:
    return (
        f"{name}: {size} bytes or more is more than a {what} may hold "
        f"({limit}); it was not read"
    )


class _Refused(Exception):
    pass


def _deepest(data: bytes) -> tuple[int, int]:
    """(the deepest nesting of ``data``'s arrays and objects, where it is
    first reached), strings left out; linear, in chunks of bounded memory."""
    stripped = _STRINGS.sub(b'""', data)
    deepest, where, depth = 0, 0, 0
    for start in range(0, len(stripped), _DEPTH_CHUNK):
        steps = _DEPTH_STEP[
            np.frombuffer(
                stripped,
                np.uint8,
                count=min(_DEPTH_CHUNK, len(stripped) - start),
                offset=start,
            )
        ]
        running = np.cumsum(steps, dtype=np.int64) + depth
        if running.size:
            at = int(running.argmax())
            if int(running[at]) > deepest:
                deepest, where = int(running[at]), start + at
            depth = int(running[-1])
    return deepest, where


def load_json(data: bytes, where: str, max_depth: int) -> Any:
    """The JSON value of ``data`` with bounded nesting and bounded numbers
    (Note [Untrusted container files]); FileFormatError starting with
    ``where`` if it is not such JSON."""
    deepest, at = _deepest(data)
    if deepest > max_depth:
        raise FileFormatError(
            f"{where}: values nest deeper than {max_depth} levels (at byte {at})"
        )

    def parse_int(digits: str) -> int:
        if len(digits.lstrip("-")) > MAX_INT_DIGITS:
            raise _Refused(
                f"an integer of {len(digits.lstrip('-'))} digits (at most "
                f"{MAX_INT_DIGITS})"
            )
        return int(digits)

    def parse_float(text: str) -> float:
        if len(text) > MAX_NUMBER_CHARS:
            raise _Refused(f"a number of {len(text)} characters")
        return float(text)

    def parse_constant(name: str) -> Any:
        raise _Refused(f"{name} is not JSON")

    try:
        return json.loads(
            data.decode("utf-8"),
            parse_int=parse_int,
            parse_float=parse_float,
            parse_constant=parse_constant,
        )
    except _Refused as exc:
        raise FileFormatError(f"{where}: {exc}") from None
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise FileFormatError(f"{where}: not JSON: {exc}") from None
