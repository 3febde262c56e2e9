"""Step 1 of Note [One transaction] (in ``transaction``): staging files as
temporary files beside their destinations, creating directories as needed.

Note [Few syscalls per staged file]: a full render stages some 19,000 files,
and creating a file is the slow part of this machine's filesystem, so a
staged file costs as few system calls as it can: ``openat`` (creating the
temporary file with its final mode), ``write``, ``close``; its ``rename``
comes at the commit.

- The temporary file is created with ``O_CREAT | O_EXCL`` and mode 0o666, so
  the umask gives exactly what a plain ``open(path, "w")`` gives (no
  ``chmod``, no ``umask`` calls). Its name is ``TEMP_PREFIX``, the
  destination's name, the process id and a counter: unique among concurrent
  runs, and a name that is taken (a file another process left) is skipped
  with the next number.
- The text is encoded once and written with ``os.write``, without a buffered
  text stream (no ``ioctl``, ``lseek`` or ``fstat``).
- Each directory is looked at once per stage, not once per file, with
  ``lstat``: a symlink among the folders inside the output directory is
  refused (Note [Write rule] in ``transaction``). A directory
  the stage created is empty but for what it staged. An existing directory
  that receives at least ``LIST_AT`` files is listed once (``scandir``) to
  find a directory standing where a file must go; one that receives fewer
  has each destination looked at (``lstat``) instead.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import itertools
import os
import signal
import stat
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from gen_ops.spec.discovery import display

TEMP_PREFIX = ".gen-ops-tmp-"
# An existing directory receiving this many staged files is listed once.
LIST_AT = 8
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW
_NAMES = itertools.count(1)  # temporary names, across stages of the process
_TRIES = 1000  # taken names skipped before giving up


class WriteError(Exception):
    """A file of the output could not be written; ``changed`` says whether
    the output directory was changed (only when a rename failed after the
    commit point, which the next run completes)."""

    def __init__(self, path: Path, reason: str, changed: bool = False) -> None:
        super().__init__(f"cannot write {path}: {reason}")
        self.path = path
        self.reason = reason
        self.changed = changed


# -- fault injection (tests) ---------------------------------------------------


def fault(phase: str) -> tuple[int, str]:
    """``GEN_OPS_FAULT`` for ``phase`` (Note [One transaction]): the number
    of the step it stops at and its action, or ``(0, "")``."""
    parts = os.environ.get("GEN_OPS_FAULT", "").split(":")
    if len(parts) != 3 or parts[0] != phase or not parts[1].isdigit():
        return 0, ""
    return int(parts[1]), parts[2]


def act(action: str) -> None:
    """Send the signal ``action`` names to this process, or raise the
    OSError of the errno it names."""
    if action.startswith("SIG"):
        os.kill(os.getpid(), getattr(signal, action))
        return
    code = getattr(errno, action)
    raise OSError(code, os.strerror(code))


# -- temporary files -----------------------------------------------------------


def create_temp(directory: str, name: str, pid: int) -> tuple[int, str]:
    """A new temporary file for ``directory/name``, beside it, open for
    writing: its descriptor and name (Note [Few syscalls per staged
    file]). OSError when it cannot be created."""
    for _ in range(_TRIES):
        temp = f"{TEMP_PREFIX}{name}.{pid}-{next(_NAMES)}"
        try:
            return os.open(f"{directory}/{temp}", _CREATE, 0o666), temp
        except FileExistsError:
            continue  # another process's (or a dead one's) temporary file
    raise FileExistsError(errno.EEXIST, f"{_TRIES} temporary names beside it are taken")


def write_all(handle: int, data: bytes) -> None:
    """Write all of ``data`` (``os.write`` may write less than asked)."""
    written = os.write(handle, data)
    if written < len(data):  # rare: a pipe, a signal, a full disk
        view = memoryview(data)[written:]
        while view:
            view = view[os.write(handle, view) :]


def _real_dirs(directory: str) -> set[str] | None:
    """The names of the directories (not symlinks) in ``directory``, or None
    when it cannot be listed (then each destination is looked at)."""
    try:
        with os.scandir(directory) as entries:
            return {e.name for e in entries if e.is_dir(follow_symlinks=False)}
    except OSError:
        return None


def _is_real_dir(path: str) -> bool:
    """Whether a directory (not a symlink to one) stands at ``path``."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _clean(relative: str) -> str:
    """``relative`` as ``Path(relative).as_posix()`` gives it (callers pass
    clean paths; this only guards against doubled or dot components)."""
    if "//" in relative or "/./" in relative or relative.startswith("./"):
        return Path(relative).as_posix()
    return relative.rstrip("/")


class Stage:
    """Staged temporary files and the directories created for them."""

    def __init__(self, out: Path, destinations: Sequence[str] = ()) -> None:
        self.out = out
        self.root = os.fspath(out)
        self.pid = os.getpid()
        self.temps: list[tuple[str, str]] = []  # (temporary, destination)
        self.digests: list[str] = []  # sha256 of each staged file's bytes
        self.created: list[str] = []
        # Directory -> the names of the directories in it, when known (it was
        # created here, or listed); None: each destination is looked at.
        self.dirs: dict[str, set[str] | None] = {}
        self.receiving = Counter(
            f"{self.root}/{r}".rpartition("/")[0] for r in destinations
        )
        self.fault_at, self.fault_action = fault("stage")

    def directory(self, directory: str, for_path: Path) -> None:
        """Make sure ``directory`` exists, creating it and its missing
        parents (remembered, for ``undo``); ``for_path`` is the file an error
        names."""
        if directory in self.dirs:
            return
        parent = os.path.dirname(directory)
        inside = directory.startswith(self.root + "/")
        if inside and parent not in self.dirs:
            self.directory(parent, for_path)
        # False also when it cannot be looked at (the write that follows
        # names the file and the reason).
        try:
            mode = (os.lstat if inside else os.stat)(directory).st_mode
        except OSError:
            mode = 0
        if stat.S_ISLNK(mode):
            raise WriteError(
                for_path,
                f"{display(Path(directory))} is a symbolic link; gen-ops does not "
                f"write through a symbolic link inside {display(self.out)}: "
                "replace it with a real directory (or remove it) and run again",
            )
        if stat.S_ISDIR(mode):
            many = self.receiving[directory] >= LIST_AT
            self.dirs[directory] = _real_dirs(directory) if many else None
            return
        if not inside and parent and parent != directory:
            self.directory(parent, for_path)  # the root's own parents
        try:
            os.mkdir(directory)
        except FileExistsError:
            if not (_is_real_dir(directory) or not inside and os.path.isdir(directory)):
                raise WriteError(
                    for_path,
                    f"{display(Path(directory))} is in the way: it is not a directory",
                ) from None
            self.dirs[directory] = None  # made meanwhile by another process
            return
        except OSError as exc:
            raise WriteError(
                for_path,
                f"cannot create its directory {display(Path(directory))}: "
                f"{exc.strerror or exc}",
            ) from None
        self.created.append(directory)
        self.dirs[directory] = set()
        known = self.dirs.get(parent)
        if known is not None:
            known.add(os.path.basename(directory))

    def write(self, number: int, relative: str, text: str) -> None:
        """Stage ``text`` as the ``number``-th file, for ``relative``."""
        relative = _clean(relative)
        directory, _, name = f"{self.root}/{relative}".rpartition("/")
        if directory not in self.dirs:
            self.directory(directory, self.out / relative)
        known = self.dirs[directory]
        if known is None:
            in_the_way = _is_real_dir(f"{directory}/{name}")
        else:
            in_the_way = name in known
        if in_the_way:
            raise WriteError(self.out / relative, "a directory is in the way")
        try:
            handle, temp = create_temp(directory, name, self.pid)
        except OSError as exc:
            raise WriteError(self.out / relative, exc.strerror or str(exc)) from None
        folder = relative.rpartition("/")[0]
        self.temps.append((f"{folder}/{temp}" if folder else temp, relative))
        try:
            try:
                if number == self.fault_at:  # once the temporary file exists
                    act(self.fault_action)
                data = text.encode("utf-8")
                self.digests.append(hashlib.sha256(data).hexdigest())
                write_all(handle, data)
            finally:
                os.close(handle)
        except OSError as exc:
            raise WriteError(self.out / relative, exc.strerror or str(exc)) from None

    def undo(self) -> None:
        for temp, _ in self.temps:
            with contextlib.suppress(OSError):
                os.unlink(f"{self.root}/{temp}")
        for directory in reversed(self.created):
            with contextlib.suppress(OSError):
                os.rmdir(directory)
