"""Finding and reading headers: the files named, and directories searched.

A directory is searched recursively for ``*.h``, ``*.hh``, ``*.hpp`` and
``*.hxx``, in sorted order; a file is read whatever its name. A file named
twice (directly or through a directory) is read once, where it first
appears. A path that does not exist or cannot be read is I101, a directory
without headers I102.

Note [Headers are untrusted]: a header comes with a tree gen-ops did not
write, so it is read through ``gen_ops.base.untrusted``: a regular file only (a
FIFO, ``/dev/zero`` or a socket is I101, never a hang), at most
``HEADER_LIMIT`` bytes, and a symbolic link that loops (``a.h -> b.h ->
a.h``) is I101 at the path named, never an exception from resolving it.
Each refusal is one header's I101; the import goes on with the next one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from gen_ops.base.diagnostics import Sink, Span
from gen_ops.base.untrusted import HEADER_LIMIT, UntrustedFileError, loops, read_bytes
from gen_ops.importer.lexer import SourceText
from gen_ops.spec.discovery import display

HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx")
# GE's largest op header is about 400 KB.
MAX_HEADER_BYTES = HEADER_LIMIT
_LOOP_HINT = "remove the loop of symbolic links, or name the header itself"


def resolved(path: Path) -> Path:
    """``path`` with its links resolved as far as they resolve: a loop of
    links (Python < 3.13 raises RuntimeError for one) or another error
    leaves the absolute path (Note [Headers are untrusted])."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return Path(os.path.abspath(path))


def unusable_directory(path: Path) -> str | None:
    """Why ``path`` (an output directory) cannot be used, or None: its links
    loop. (A file in its place is the write's error, exit status 3.)"""
    if loops(path):
        return "it is a symbolic link that loops (or leads to one)"
    return None


def _key(path: Path) -> Path:
    """The path with its links resolved, to read a header once; a path whose
    links loop (or cannot be resolved) is its own key: reading it reports
    why (Note [Headers are untrusted])."""
    return resolved(path)


@dataclass(frozen=True)
class HeaderFile:
    path: Path
    display: str  # for diagnostics, relative to the current directory


def find(paths: list[Path], sink: Sink) -> list[HeaderFile]:
    """The headers to import, in order, each once."""
    found: dict[Path, HeaderFile] = {}

    def add(path: Path) -> None:
        key = _key(path)
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
            p
            for p in _walk(root, sink)
            if p.suffix in HEADER_SUFFIXES and not _is_dir(p)
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


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


def _walk(root: Path, sink: Sink) -> list[Path]:
    """Every file under ``root`` (as ``rglob`` found them before: links to
    directories not followed, a link to a file, or a loop of links, listed
    and read as a header); a directory that cannot be listed is I101."""
    found: list[Path] = []
    for parent, _dirs, files in os.walk(
        root, onerror=lambda exc: _unlistable(exc, sink)
    ):
        found += (Path(parent) / name for name in files)
    return found


def _unlistable(exc: OSError, sink: Sink) -> None:
    where = display(Path(exc.filename)) if exc.filename else "."
    sink.emit(
        "I101", Span(where, 1, 1), f"cannot list directory: {exc.strerror or exc}"
    )


def read(header: HeaderFile, sink: Sink) -> SourceText | None:
    """The header's text; None (with I101) when it cannot be read
    (Note [Headers are untrusted])."""
    origin = Span(header.display, 1, 1)
    try:
        raw = read_bytes(header.path, limit=MAX_HEADER_BYTES, display=header.display)
    except FileNotFoundError:
        sink.emit(
            "I101",
            origin,
            "no such file (or a symbolic link to nothing)",
            "name a header or a directory of headers",
        )
        return None
    except UntrustedFileError as exc:
        reason, hint = exc.reason, "name a REG_OP header, a regular file of C++ text"
        if "symbolic link" in reason:
            reason = "it is a loop of symbolic links: there is no file to read"
            hint = _LOOP_HINT
        sink.emit("I101", Span(header.display, exc.line, exc.col), reason, hint)
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
