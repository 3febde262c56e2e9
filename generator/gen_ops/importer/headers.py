"""Finding and reading headers: the files named, and directories searched.

A directory is searched recursively for ``*.h``, ``*.hh``, ``*.hpp`` and
``*.hxx``, in sorted order; a file is read whatever its name. A file named
twice (directly or through a directory) is read once, where it first
appears. A path that does not exist or cannot be read is I101, a directory
without headers I102.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from gen_ops.diagnostics import Sink, Span
from gen_ops.discovery import display
from gen_ops.importer.lexer import SourceText

HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx")
# GE's largest op header is about 400 KB.
MAX_HEADER_BYTES = 32 << 20


@dataclass(frozen=True)
class HeaderFile:
    path: Path
    display: str  # for diagnostics, relative to the current directory


def find(paths: list[Path], sink: Sink) -> list[HeaderFile]:
    """The headers to import, in order, each once."""
    found: dict[Path, HeaderFile] = {}

    def add(path: Path) -> None:
        key = path.resolve()
        if key not in found:
            found[key] = HeaderFile(path, display(path))

    for root in paths:
        try:
            is_dir = root.is_dir()
            exists = is_dir or root.exists() or root.is_symlink()
        except OSError as exc:
            sink.emit("I101", Span(display(root), 1, 1), exc.strerror or str(exc))
            continue
        if not exists:
            sink.emit(
                "I101",
                Span(display(root), 1, 1),
                "no such file or directory",
                "name a header or a directory of headers",
            )
            continue
        if not is_dir:
            add(root)
            continue
        headers = sorted(
            p for p in root.rglob("*") if p.suffix in HEADER_SUFFIXES and not p.is_dir()
        )
        if not headers:
            sink.emit(
                "I102",
                Span(display(root), 1, 1),
                "no .h, .hh, .hpp or .hxx file in this directory",
                "name the directory that holds the REG_OP headers",
            )
        for header in headers:
            add(header)
    return list(found.values())


def read(header: HeaderFile, sink: Sink) -> SourceText | None:
    """The header's text; None (with I101) when it cannot be read."""
    origin = Span(header.display, 1, 1)
    try:
        handle = os.open(header.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(handle, "rb") as stream:
            if not stat.S_ISREG(os.fstat(handle).st_mode):
                sink.emit("I101", origin, "not a regular file", "name a header file")
                return None
            raw = stream.read(MAX_HEADER_BYTES + 1)
    except OSError as exc:
        sink.emit("I101", origin, f"cannot read file: {exc.strerror or exc}")
        return None
    if len(raw) > MAX_HEADER_BYTES:
        sink.emit(
            "I101",
            origin,
            f"file is larger than {MAX_HEADER_BYTES} bytes; not a REG_OP header",
        )
        return None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        col = exc.start - (before.rfind(b"\n") + 1) + 1
        sink.emit(
            "I101",
            Span(header.display, line, col),
            "file is not UTF-8 text",
            "convert it to UTF-8 (iconv -f GBK -t UTF-8, for example)",
        )
        return None
    return SourceText.of(header.display, text)
