"""Directories of a tree gen-ops owns, opened so that no symlink inside the
tree is followed (Note [Write rule] in ``transaction``).

``Dirs`` opens a folder of the tree (a path relative to its root) one
component at a time, each with ``O_DIRECTORY | O_NOFOLLOW`` relative to the
one before (``openat``), and keeps the descriptors for the rest of the
commit: a rename or a removal then names only the file, relative to its
folder's descriptor, so no symlink in the tree (made before the run, or
swapped in while it ran) can send it elsewhere. The root itself is the
directory the user named (``--out``, ``--registry``), followed as given.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
from pathlib import Path

from gen_ops.spec.discovery import display

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_FOLDER = _DIR | os.O_NOFOLLOW
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
# Descriptors kept open at once; past this the cache starts again.
_KEEP = 256


class Escape(Exception):
    """A folder of the tree that cannot be used: a symlink, not a
    directory, or not openable; ``path`` is the component at fault."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{display(path)} {reason}")
        self.path = path
        self.reason = reason


def symlink_reason(root: Path) -> str:
    return (
        "is a symbolic link; gen-ops does not write or remove anything through "
        f"a symbolic link inside {display(root)}: replace it with a real "
        "directory (or remove it) and run again"
    )


class Dirs:
    """Descriptors of the folders of the tree at ``root``, opened without
    following symlinks; close with ``close`` (or use as a context)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.fds: dict[str, int] = {}

    def __enter__(self) -> Dirs:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        for handle in self.fds.values():
            with contextlib.suppress(OSError):
                os.close(handle)
        self.fds.clear()

    def fd(self, folder: str) -> int | None:
        """The descriptor of ``folder`` ("" for the root), or None when it (or
        a parent) does not exist. ``Escape`` when a component is a symlink or
        not a directory."""
        known = self.fds.get(folder)
        if known is not None:
            return known
        if len(self.fds) >= _KEEP:
            self.close()
        if not folder:
            try:
                handle = os.open(self.root, _DIR)
            except FileNotFoundError:
                return None
            except OSError as exc:
                raise Escape(self.root, f"cannot be opened: {exc.strerror}") from None
        else:
            parent, _, name = folder.rpartition("/")
            above = self.fd(parent)
            if above is None:
                return None
            opened = self._open(above, name, folder)
            if opened is None:
                return None
            handle = opened
        self.fds[folder] = handle
        return handle

    def _open(self, above: int, name: str, folder: str) -> int | None:
        try:
            return os.open(name, _FOLDER, dir_fd=above)
        except FileNotFoundError:
            return None
        except OSError as exc:
            where = self.root / folder
            try:
                mode = os.stat(name, dir_fd=above, follow_symlinks=False).st_mode
            except OSError:
                mode = 0
            if stat.S_ISLNK(mode) or exc.errno == errno.ELOOP:
                raise Escape(where, symlink_reason(self.root)) from None
            if exc.errno == errno.ENOTDIR:
                raise Escape(where, "is in the way: it is not a directory") from None
            raise Escape(where, f"cannot be opened: {exc.strerror}") from None

    def prune(self, folder: str) -> None:
        """Remove ``folder`` and its parents while they are empty (never the
        root)."""
        while folder:
            parent, _, name = folder.rpartition("/")
            above = self.fd(parent)
            if above is None:
                return
            mine = self.fds.pop(folder, None)
            if mine is not None:
                with contextlib.suppress(OSError):
                    os.close(mine)
            try:
                os.rmdir(name, dir_fd=above)
            except OSError:
                return
            folder = parent


def kind(above: int, name: str) -> int | None:
    """The ``lstat`` mode of ``name`` in the folder ``above``, or None when
    it does not exist."""
    try:
        return os.stat(name, dir_fd=above, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return None


def digest(above: int, name: str) -> str | None:
    """The sha256 of the regular file ``name`` in the folder ``above``
    (hex), or None when it is not a regular file (or cannot be read)."""
    try:
        handle = os.open(name, _READ, dir_fd=above)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            return None
        hashed = hashlib.sha256()
        while chunk := os.read(handle, 1 << 20):
            hashed.update(chunk)
        return hashed.hexdigest()
    except OSError:
        return None
    finally:
        os.close(handle)
