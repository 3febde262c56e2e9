"""Reading files a user did not write: one way in, with limits.

Note [Untrusted files]: gen-ops reads files that come with a repository it
did not write (specs, REG_OP headers, a history registry's index, metadata
and operators files, its own state file and journal, which anyone with
write access to the tree can replace). Every such read goes through
``read_bytes`` (or ``read_text``), which

- opens the path without blocking (``O_NONBLOCK``: a FIFO does not hang the
  open) and, unless ``follow`` is set, without following a final symlink
  (``O_NOFOLLOW``);
- reads only a regular file (``fstat`` after the open, so a path swapped
  between a check and the open cannot get past it): not a FIFO, a device
  such as ``/dev/zero``, a socket or a directory;
- reads at most ``limit`` bytes and refuses a larger file, so nothing can
  exhaust memory.

JSON from such a file is parsed by ``load_json``: integers of more than
``MAX_INT_DIGITS`` digits are
refused with the line and column where they stand, and values nested
deeper than the interpreter's recursion limit with a clear reason (Python's
own limits end in a ValueError or a RecursionError far from the file).

Each refusal is an ``UntrustedFileError`` carrying the file's displayed
name, a line and column, and a sentence that says what is wrong and what to
do; callers turn it into their own located diagnostic.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
from pathlib import Path
from typing import Any

# Limits on what one file may hold. Specs and headers are small text; a
# registry's operators.json of a large op library is a few megabytes.
SPEC_LIMIT = 4 * 1024 * 1024
HEADER_LIMIT = 16 * 1024 * 1024
JSON_LIMIT = 64 * 1024 * 1024
MAX_INT_DIGITS = 40


class UntrustedFileError(Exception):
    """A file that cannot be read safely; ``display``, ``line``, ``col`` say
    where, ``reason`` what is wrong and what to do."""

    def __init__(self, display: str, reason: str, line: int = 1, col: int = 1) -> None:
        super().__init__(f"{display}:{line}:{col}: {reason}")
        self.display = display
        self.reason = reason
        self.line = line
        self.col = col


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


def read_bytes(
    path: Path | str, *, limit: int, display: str | None = None, follow: bool = True
) -> bytes:
    """The bytes of the regular file ``path`` (Note [Untrusted files]).

    Raises ``FileNotFoundError`` for a missing file (callers say what a
    missing file means to them) and ``UntrustedFileError`` for anything else
    that cannot be read: not a regular file, a symlink where ``follow`` is
    False, larger than ``limit``, or an OS error."""
    name = display if display is not None else os.fspath(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
    if not follow:
        flags |= os.O_NOFOLLOW
    try:
        handle = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            reason = (
                "it is a symbolic link (or a loop of them), which gen-ops does "
                "not follow here; replace it with the file itself"
            )
        else:
            reason = f"cannot open it: {exc.strerror or exc}"
        raise UntrustedFileError(name, reason) from None
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            raise UntrustedFileError(
                name,
                f"it is {_kind(info.st_mode)}, not a regular file; gen-ops reads "
                "only regular files here",
            )
        if info.st_size > limit:
            raise UntrustedFileError(name, _too_big(info.st_size, limit))
        chunks = []
        total = 0
        while True:
            chunk = os.read(handle, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise UntrustedFileError(name, _too_big(total, limit))
        return b"".join(chunks)
    except OSError as exc:
        raise UntrustedFileError(
            name, f"cannot read it: {exc.strerror or exc}"
        ) from None
    finally:
        with contextlib.suppress(OSError):
            os.close(handle)


def _too_big(size: int, limit: int) -> str:
    return (
        f"it is larger than gen-ops reads here ({size:,} bytes or more; the "
        f"limit is {limit:,}); is it the file you meant?"
    )


def read_text(
    path: Path | str,
    *,
    limit: int,
    display: str | None = None,
    follow: bool = True,
    encoding: str = "utf-8",
) -> str:
    """``read_bytes`` decoded; undecodable bytes are an ``UntrustedFileError``
    at their line and column."""
    name = display if display is not None else os.fspath(path)
    data = read_bytes(path, limit=limit, display=name, follow=follow)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line, col = _position(data[: exc.start].decode(encoding, "replace"))
        raise UntrustedFileError(
            name, f"it is not UTF-8 ({exc.reason})", line, col
        ) from None


def _position(text: str, offset: int | None = None) -> tuple[int, int]:
    end = len(text) if offset is None else offset
    line = text.count("\n", 0, end) + 1
    return line, end - (text.rfind("\n", 0, end) + 1) + 1


class _Refused(Exception):
    def __init__(self, reason: str, offset: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.offset = offset


def load_json(
    text: str,
    display: str,
    *,
    max_int_digits: int = MAX_INT_DIGITS,
) -> Any:
    """``json.loads(text)`` with bounded nesting and bounded integers
    (Note [Untrusted files]). Nesting is bounded by the C decoder's recursion
    check (a RecursionError, reported here). ``json.JSONDecodeError`` is
    turned into an ``UntrustedFileError`` at its line and column too."""

    def parse_int(digits: str) -> int:
        if len(digits.lstrip("-")) > max_int_digits:
            raise _Refused(
                f"it is not JSON gen-ops reads: an integer of {len(digits):,} "
                f"digits (at most {max_int_digits})",
                text.find(digits),
            )
        return int(digits)

    def parse_float(digits: str) -> float:
        if len(digits) > 1000:
            raise _Refused(
                "it is not JSON gen-ops reads: a number of "
                f"{len(digits):,} characters",
                text.find(digits),
            )
        return float(digits)

    try:
        return json.loads(text, parse_int=parse_int, parse_float=parse_float)
    except _Refused as exc:
        line, col = _position(text, max(exc.offset, 0))
        raise UntrustedFileError(display, exc.reason, line, col) from None
    except json.JSONDecodeError as exc:
        raise UntrustedFileError(
            display, f"it is not JSON: {exc.msg}", exc.lineno, exc.colno
        ) from None
    except RecursionError:
        raise UntrustedFileError(
            display, "it is not JSON gen-ops reads: values nest too deeply"
        ) from None


def loops(path: Path | str) -> bool:
    """Whether resolving ``path`` meets a loop of symbolic links (``out ->
    o2 -> out``, or a directory on the way that is one). Python < 3.13
    raises RuntimeError for one and 3.13 OSError; callers say it as a
    located error instead of either."""
    try:
        Path(path).resolve(strict=False)
    except RuntimeError:
        return True
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False
