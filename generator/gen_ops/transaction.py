"""Writing the output tree as one transaction, and repairing an interrupted one.

Note [One transaction]: a run changes the output directory completely or not
at all, as the next run (or ``--check``) sees it.

1. Stage. Every new or changed file, the manifest among them, is written to
   a temporary file beside its destination (``.gen-ops-tmp-<name>.<random>``;
   directories are created as needed). Any failure or signal here removes
   what was staged and the directories created for it: the tree is as it
   was, and the error names the file it failed on.
2. Commit point. A journal (``.gen-ops-journal.json``) listing each staged
   file's destination and every file to remove is written atomically.
3. Commit. With SIGINT, SIGTERM and SIGHUP held (interrupts.held), the
   staged files are renamed into place, the manifest last, stale files are
   removed, and the journal is deleted. A signal that arrived meanwhile is
   raised afterwards, so a signal never leaves a half-renamed tree.
4. Recovery. A run that finds a journal (the process was killed, or a rename
   failed, during step 3) finishes step 3 first: it renames what is still
   staged and removes what is listed. Every run that writes also removes
   temporary files left in the output directory by an earlier run (and the
   ``.<name>.<8 characters>.tmp`` files earlier versions of gen-ops left).
   ``--check`` reports a journal or temporary files as drift.

Nothing here is synced to disk: the guarantee covers the process being
stopped (a signal, SIGKILL, an error), not the machine losing power.

``GEN_OPS_FAULT`` (tests only) makes one step fail on purpose, so that tests
can stop a run at an exact point: ``stage:N:ACTION`` acts while staging the
N-th file (after its temporary file exists), ``commit:N:ACTION`` before the
N-th rename; ACTION is a signal name (``SIGINT``, ``SIGTERM``, ``SIGKILL``)
sent to the process itself, or an errno name (``ENOSPC``) raised as the
OSError of that write.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import signal
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gen_ops import interrupts
from gen_ops.discovery import display

JOURNAL = ".gen-ops-journal.json"
TEMP_PREFIX = ".gen-ops-tmp-"
# What gen-ops before the transactional writer left behind: mkstemp names.
_LEGACY_TEMP = re.compile(r"\.(.+)\.[A-Za-z0-9_]{8}\.tmp")


class WriteError(Exception):
    """A file of the output could not be written; ``changed`` says whether
    the output directory was changed (only when a rename failed after the
    commit point, which the next run completes)."""

    def __init__(self, path: Path, reason: str, changed: bool = False) -> None:
        super().__init__(f"cannot write {path}: {reason}")
        self.path = path
        self.reason = reason
        self.changed = changed


@dataclass(frozen=True)
class Change:
    """What one transaction does: files to write (path relative to the output
    directory, text), in the order they are renamed (the manifest last), and
    files to remove."""

    writes: Sequence[tuple[str, str]]
    deletes: Sequence[str]


@dataclass(frozen=True)
class Journal:
    """The commit point: staged files with their destinations (renamed in
    this order) and the files to remove, all relative to the output
    directory."""

    renames: tuple[tuple[str, str], ...]
    deletes: tuple[str, ...]

    def text(self) -> str:
        data = {"renames": [list(pair) for pair in self.renames]}
        return json.dumps({**data, "deletes": list(self.deletes)}, indent=1) + "\n"


def file_mode() -> int:
    """What a plain ``open(path, "w")`` would give: 0o666 less the umask."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


# -- fault injection (tests) ---------------------------------------------------


def _fault(phase: str, number: int) -> None:
    spec = os.environ.get("GEN_OPS_FAULT", "")
    parts = spec.split(":")
    if len(parts) != 3 or parts[0] != phase or parts[1] != str(number):
        return
    action = parts[2]
    if action.startswith("SIG"):
        os.kill(os.getpid(), getattr(signal, action))
        return
    code = getattr(errno, action)
    raise OSError(code, os.strerror(code))


# -- staging -------------------------------------------------------------------


def _is_dir(path: Path) -> bool:
    """``path.is_dir()``, False when the path cannot be looked at (the write
    that follows names the file and the reason)."""
    try:
        return path.is_dir()
    except OSError:
        return False


class _Stage:
    """Staged temporary files and the directories created for them."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.temps: list[tuple[Path, Path]] = []  # (temporary, destination)
        self.created: list[Path] = []

    def mkdirs(self, directory: Path, for_path: Path) -> None:
        """Create ``directory`` and its missing parents, remembering them;
        ``for_path`` is the file an error names."""
        missing = []
        walk = directory
        while not _is_dir(walk):
            missing.append(walk)
            if walk.parent == walk:
                break
            walk = walk.parent
        for path in reversed(missing):
            try:
                path.mkdir()
            except FileExistsError:
                if _is_dir(path):
                    continue
                raise WriteError(
                    for_path, f"{display(path)} is in the way: it is not a directory"
                ) from None
            except OSError as exc:
                raise WriteError(
                    for_path,
                    f"cannot create its directory {display(path)}: "
                    f"{exc.strerror or exc}",
                ) from None
            self.created.append(path)

    def write(self, number: int, relative: str, text: str) -> None:
        path = self.out / relative
        if _is_dir(path) and not path.is_symlink():
            raise WriteError(path, "a directory is in the way")
        self.mkdirs(path.parent, path)
        try:
            handle, name = tempfile.mkstemp(
                dir=path.parent, prefix=f"{TEMP_PREFIX}{path.name}."
            )
        except OSError as exc:
            raise WriteError(path, exc.strerror or str(exc)) from None
        temp = path.parent / Path(name).name  # as relative as ``out``
        self.temps.append((temp, path))
        try:
            with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
                _fault("stage", number)
                stream.write(text)
            os.chmod(temp, file_mode())  # mkstemp makes 0600 files
        except OSError as exc:
            raise WriteError(path, exc.strerror or str(exc)) from None

    def undo(self) -> None:
        for temp, _ in self.temps:
            with contextlib.suppress(OSError):
                temp.unlink()
        for directory in reversed(self.created):
            with contextlib.suppress(OSError):
                directory.rmdir()


# -- the transaction -----------------------------------------------------------


def apply(out: Path, change: Change) -> None:
    """Note [One transaction]: stage, write the journal, commit."""
    if not change.writes and not change.deletes:
        return
    stage = _Stage(out)
    committed = False
    try:
        for number, (relative, text) in enumerate(change.writes, start=1):
            stage.write(number, relative, text)
        journal = Journal(
            tuple(
                (temp.relative_to(out).as_posix(), final.relative_to(out).as_posix())
                for temp, final in stage.temps
            ),
            tuple(change.deletes),
        )
        stage.mkdirs(out, out / JOURNAL)
        with interrupts.held():
            try:
                write_atomic(out / JOURNAL, journal.text())
            except OSError as exc:
                raise WriteError(out / JOURNAL, exc.strerror or str(exc)) from None
            committed = True  # from here on the journal says what to finish
            _commit(out, journal)
    except BaseException:
        if not committed:
            with interrupts.held(deliver=False):
                stage.undo()
        raise


def _commit(out: Path, journal: Journal) -> None:
    """Step 3 (and recovery): rename what is staged, remove what is listed,
    then the journal. Safe to run again after any interruption."""
    for number, (temp, final) in enumerate(journal.renames, start=1):
        _fault("commit", number)
        source, target = out / temp, out / final
        if not source.exists():
            continue  # renamed before the interruption
        try:
            os.replace(source, target)
        except OSError as exc:
            raise WriteError(
                target,
                f"{exc.strerror or exc}; the output is partly written, and the "
                "next run of gen-ops completes it",
                changed=True,
            ) from None
    for relative in journal.deletes:
        target = out / relative
        with contextlib.suppress(FileNotFoundError):
            target.unlink()
        _prune_empty_dirs(target.parent, out)
    (out / JOURNAL).unlink(missing_ok=True)


def _prune_empty_dirs(directory: Path, stop: Path) -> None:
    stop = stop.resolve()
    while directory.resolve() != stop and directory.is_dir():
        try:
            directory.rmdir()
        except OSError:
            return
        directory = directory.parent


def _safe(relative: object) -> bool:
    """Journal paths stay inside the output directory."""
    if not isinstance(relative, str) or not relative:
        return False
    path = Path(relative)
    return not path.is_absolute() and ".." not in path.parts


def _exists(path: Path) -> bool:
    """Whether ``path`` exists; False when it cannot be looked at (then the
    write that follows reports the error, naming the file)."""
    try:
        return path.exists()
    except OSError:
        return False


def interrupted(out: Path) -> bool:
    """Whether ``out`` holds the journal of an interrupted commit."""
    return _exists(out / JOURNAL)


def read_journal(out: Path) -> Journal | None:
    """The journal of an interrupted commit, or None. A journal that cannot
    be read (or names paths outside ``out``) is treated as absent: the files
    it lists are then ordinary leftovers, removed or rewritten by a run."""
    try:
        data = json.loads((out / JOURNAL).read_text(encoding="utf-8"))
        renames = tuple((str(a), str(b)) for a, b in data["renames"])
        deletes = tuple(str(p) for p in data["deletes"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not all(_safe(p) for pair in renames for p in pair) or not all(
        _safe(p) for p in deletes
    ):
        return None
    return Journal(renames, deletes)


def recover(out: Path) -> int:
    """Step 4: finish an interrupted commit, then remove leftover temporary
    files. The number of files it renamed, removed or cleaned up."""
    done = 0
    journal = read_journal(out)
    if journal is not None:
        with interrupts.held():
            pending = [t for t, _ in journal.renames if _exists(out / t)]
            _commit(out, journal)
        done += len(pending)
    elif interrupted(out):
        with contextlib.suppress(OSError):
            (out / JOURNAL).unlink()
    for leftover in leftovers(out):
        with contextlib.suppress(OSError):
            leftover.unlink()
            done += 1
    return done


def leftovers(out: Path) -> list[Path]:
    """Temporary files gen-ops left in ``out`` (not those a journal lists)."""
    try:
        if not out.is_dir():
            return []
    except OSError:
        return []
    journal = read_journal(out)
    listed = {out / t for t, _ in journal.renames} if journal else set()
    found = []
    for directory, _, names in os.walk(out):
        for name in names:
            if name.startswith(TEMP_PREFIX):
                ours = True
            elif name.endswith(".tmp"):  # cheap before the pattern
                legacy = _LEGACY_TEMP.fullmatch(name)
                ours = (
                    legacy is not None and (Path(directory) / legacy.group(1)).is_file()
                )
            else:
                continue
            path = Path(directory) / name
            if ours and path not in listed:
                found.append(path)
    return sorted(found)


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` so readers never see half a file (one
    file outside a transaction: an author module, a starter spec, the
    journal)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(
        dir=path.parent, prefix=f"{TEMP_PREFIX}{path.name}."
    )
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        os.chmod(temp, file_mode())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
