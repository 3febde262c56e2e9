"""One writer at a time per tree.

Note [Tree lock]: every run that writes or removes files of a tree (a render
of ``--out``, ``gen-ops import --out``, ``gen-ops release --registry``)
holds the tree's lock from before it reads what it will change (the index,
the manifest, the specs on disk) until its commit is done, including the
recovery of an earlier run's journal and the removal of leftover temporary
files. So two runs never interleave: no run removes another live run's
staged files, and a read-modify-write (a release's index) never loses an
update.

- The lock is ``flock(LOCK_EX)`` on the tree's directory itself (a
  descriptor of the directory, not a file in it), so it is released by the
  kernel when the process ends, however it ends, and leaves no file behind.
  After locking, the run checks that the path still names the directory it
  locked (another run may have removed an empty tree it had created), and
  starts again if not.
- While it holds the lock, a run writes ``.gen-ops.lock`` in the tree (its
  pid and command line), for the message of a run that waits, and removes
  it when it lets go. It is information only: a stale one (after SIGKILL)
  is harmless and replaced by the next run; it is read as an untrusted file
  and shown only as printable text.
- A run that finds the lock taken prints ``<prog>: waiting for
  <tree>/.gen-ops.lock (held by pid N, <command>) ...`` once to standard
  error and tries again until ``--lock-timeout`` seconds (default
  ``DEFAULT_TIMEOUT``) have passed; then it stops with ``LockTimeout``
  naming the holder (exit status 3, nothing written).
- ``--check``, ``validate``, ``compat``, ``changelog`` and an up-to-date
  render do not take the lock: they write nothing.
- A tree the run had to create for the lock (a new ``--out`` or registry) is
  removed again when the run leaves it empty.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from gen_ops.base import untrusted
from gen_ops.emit.staging import WriteError
from gen_ops.spec.discovery import display

LOCK_INFO = ".gen-ops.lock"
DEFAULT_TIMEOUT = 300.0
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_INFO = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class LockTimeout(Exception):
    """The tree stayed locked by another run for the whole timeout."""

    def __init__(self, tree: Path, holder: str, timeout: float) -> None:
        super().__init__(
            f"gave up waiting for {display(tree / LOCK_INFO)} after {timeout:g} s: "
            f"{holder} still holds it; let it finish, or pass --lock-timeout "
            "SECONDS to wait longer; nothing was written"
        )
        self.tree = tree
        self.holder = holder


def timeout_option(text: str) -> float:
    """``--lock-timeout``: seconds, 0 or more."""
    import argparse

    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of seconds (0 or more); write e.g. 60"
        )
    return value


def holder(tree: Path) -> str:
    """Who holds the lock of ``tree``, as ``.gen-ops.lock`` says."""
    try:
        text = untrusted.read_text(tree / LOCK_INFO, limit=4096, follow=False)
    except (OSError, untrusted.UntrustedFileError):
        return "another process"
    pid, _, command = text.strip().partition(" ")
    command = "".join(c if c.isprintable() else "?" for c in command)[:200]
    if not pid.isdigit():
        return "another process"
    return f"pid {pid}, {command}" if command else f"pid {pid}"


def _make(tree: Path) -> bool:
    """Create ``tree`` (and its parents) when missing; whether this call
    created ``tree`` itself."""
    if tree.is_dir():
        return False
    tree.parent.mkdir(parents=True, exist_ok=True)
    try:
        tree.mkdir()
    except FileExistsError:
        return False
    return True


def _lock(tree: Path, prog: str, timeout: float) -> int:
    """A descriptor of ``tree`` holding its lock (Note [Tree lock])."""
    deadline = time.monotonic() + timeout
    said = False
    while True:
        handle = os.open(tree, _DIR)
        try:
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise LockTimeout(tree, holder(tree), timeout) from None
                    if not said:
                        print(
                            f"{prog}: waiting for {display(tree / LOCK_INFO)} "
                            f"(held by {holder(tree)}) ...",
                            file=sys.stderr,
                            flush=True,
                        )
                        said = True
                    time.sleep(0.02)
            mine, now = os.fstat(handle), os.stat(tree)
        except BaseException:
            os.close(handle)
            raise
        if (mine.st_dev, mine.st_ino) == (now.st_dev, now.st_ino):
            return handle
        os.close(handle)  # the path names another directory now: again


def _say_who(tree: Path, command: str) -> None:
    info = tree / LOCK_INFO
    with contextlib.suppress(OSError):
        os.unlink(info)  # a stale one, or a planted symlink: never followed
    try:
        handle = os.open(info, _INFO, 0o666)
    except OSError:
        return  # information only
    try:
        os.write(handle, f"{os.getpid()} {command}\n".encode("utf-8", "replace"))
    except OSError:
        pass
    finally:
        os.close(handle)


@contextlib.contextmanager
def hold(tree: Path, prog: str, timeout: float = DEFAULT_TIMEOUT) -> Iterator[None]:
    """Hold the lock of ``tree`` (created if missing) for the ``with``
    block; ``prog`` names the command in messages. ``LockTimeout`` when
    another run holds it for ``timeout`` seconds; ``WriteError`` when a file
    stands at ``tree``, OSError when it cannot be created or opened."""
    try:
        if not stat.S_ISDIR(os.stat(tree).st_mode):
            raise WriteError(
                tree, f"{display(tree)} is in the way: it is not a directory"
            )
    except FileNotFoundError:
        pass
    created = _make(tree)
    try:
        handle = _lock(tree, prog, timeout)
    except BaseException:
        if created:
            with contextlib.suppress(OSError):
                tree.rmdir()
        raise
    command = " ".join([prog, *sys.argv[1:]])[:500]
    try:
        _say_who(tree, command)
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tree / LOCK_INFO)
        if created:
            with contextlib.suppress(OSError):
                tree.rmdir()
        os.close(handle)  # lets go of the lock
