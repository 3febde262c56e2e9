"""Writing the output tree as one transaction, and repairing an interrupted one.

Note [One transaction]: a run changes the output directory completely or not
at all, as the next run (or ``--check``) sees it.

1. Stage. Every new or changed file, the manifest among them, is written to
   a temporary file beside its destination (``.gen-ops-tmp-<name>.<pid>-<n>``;
   directories are created as needed; Note [Few syscalls per staged file]
   in ``staging``). Any failure or signal here removes
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
   staged and removes what is listed, once the journal is proved to be one
   this tree's gen-ops wrote (Note [Journal proof] in ``journal``). Every
   run that writes also removes temporary files left in the output
   directory by an earlier run (and the ``.<name>.<8 characters>.tmp``
   files earlier versions of gen-ops left); it holds the tree's lock (Note
   [Tree lock] in ``locking``), so these are never a live run's.
   ``--check`` reports a journal or temporary files as drift.

Note [Write rule]: one rule for every file gen-ops writes or removes in a
tree it owns (a render's ``--out``, an import's ``--out``, a registry):

- The root is the directory the user named, followed as given. Inside it,
  gen-ops never follows a symlink: staging checks every folder on the way
  with ``lstat`` once per stage (``staging.Stage.directory``) and refuses a
  symlink with the folder's name; the commit renames and removes through
  descriptors of folders opened one component at a time without following
  symlinks (``confined.Dirs``), so a symlink swapped in meanwhile is refused
  too. Temporary files are created with ``O_EXCL | O_NOFOLLOW``; a
  destination that is a symlink is replaced, never written through; a
  leftover temporary that is a symlink is removed, not followed.
- Every path it acts on is relative to the root, of plain components.
- A journal is recovered only when it proves it was written for this tree
  by gen-ops (Note [Journal proof]); otherwise the run stops with a located
  error (``JournalRefused``) before anything moves.
- A commit never skips a staged file that is gone: that is an error
  (another process removed it), unless the destination already holds what
  was staged (the rename happened before an interruption).
- Runs that write one tree hold its lock (Note [Tree lock]).

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
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gen_ops.base import interrupts
from gen_ops.emit import confined
from gen_ops.emit.journal import JOURNAL, Journal, JournalRefused, read
from gen_ops.emit.staging import (
    TEMP_PREFIX,
    Stage,
    WriteError,
    act,
    create_temp,
    fault,
    write_all,
)

__all__ = [
    "JOURNAL",
    "TEMP_PREFIX",
    "Change",
    "Journal",
    "JournalRefused",
    "WriteError",
    "apply",
    "interrupted",
    "leftovers",
    "read_journal",
    "recover",
    "write_atomic",
]

# What gen-ops before the transactional writer left behind: mkstemp names.
_LEGACY_TEMP = re.compile(r"\.(.+)\.[A-Za-z0-9_]{8}\.tmp")


@dataclass(frozen=True)
class Change:
    """What one transaction does: files to write (path relative to the output
    directory, text), in the order they are renamed (the manifest last), and
    files to remove."""

    writes: Sequence[tuple[str, str]]
    deletes: Sequence[str]


# -- the transaction -----------------------------------------------------------


def apply(out: Path, change: Change) -> None:
    """Note [One transaction]: stage, write the journal, commit. The caller
    holds the tree's lock (Note [Tree lock])."""
    if not change.writes and not change.deletes:
        return
    stage = Stage(out, [relative for relative, _ in change.writes])
    committed = False
    try:
        for number, (relative, text) in enumerate(change.writes, start=1):
            stage.write(number, relative, text)
        stage.directory(stage.root, out / JOURNAL)
        renames = tuple(
            (temp, final, sha)
            for (temp, final), sha in zip(stage.temps, stage.digests, strict=True)
        )
        journal = Journal.new(out, renames, tuple(change.deletes))
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


def _commit(out: Path, journal: Journal) -> int:
    """Step 3 (and recovery): rename what is staged, remove what is listed,
    then the journal, each through descriptors of its folder (Note [Write
    rule]). Safe to run again after any interruption. The number of files
    renamed."""
    fault_at, fault_action = fault("commit")
    renamed = 0
    with confined.Dirs(out) as dirs:
        for number, (temp, final, sha) in enumerate(journal.renames, start=1):
            if number == fault_at:
                act(fault_action)
            renamed += _rename(out, dirs, temp, final, sha)
        for relative in journal.deletes:
            folder, _, name = relative.rpartition("/")
            try:
                above = dirs.fd(folder)
                if above is not None:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(name, dir_fd=above)
                    dirs.prune(folder)
            except (OSError, confined.Escape) as exc:
                raise _partly(out / relative, exc) from None
        try:
            root = dirs.fd("")
            if root is not None:
                os.unlink(JOURNAL, dir_fd=root)
        except (OSError, confined.Escape) as exc:
            raise _partly(out / JOURNAL, exc) from None
    return renamed


def _rename(out: Path, dirs: confined.Dirs, temp: str, final: str, sha: str) -> int:
    """Rename one staged file into place: 1, or 0 when the destination
    already holds it (renamed before an interruption). WriteError when the
    staged file is gone and the destination does not hold it."""
    folder, _, name = final.rpartition("/")
    above: int | None = None
    try:
        above = dirs.fd(folder)
        if above is not None:
            os.replace(
                temp.rpartition("/")[2], name, src_dir_fd=above, dst_dir_fd=above
            )
            return 1
    except FileNotFoundError:
        pass
    except (OSError, confined.Escape) as exc:
        raise _partly(out / final, exc) from None
    if above is not None and confined.digest(above, name) == sha:
        return 0  # renamed before the interruption
    raise WriteError(
        out / final,
        f"its staged file {temp} is gone (did another process remove it?); the "
        "output is partly written, and the next run of gen-ops completes it or "
        "says what is missing",
        changed=True,
    )


def _partly(path: Path, exc: OSError | confined.Escape) -> WriteError:
    reason = exc.reason if isinstance(exc, confined.Escape) else exc.strerror
    where = f"{exc}" if isinstance(exc, confined.Escape) else f"{reason or exc}"
    return WriteError(
        path,
        f"{where}; the output is partly written, and the next run of gen-ops "
        "completes it",
        changed=True,
    )


def _exists(path: Path) -> bool:
    """Whether something (a symlink too) stands at ``path``; False when it
    cannot be looked at."""
    try:
        os.lstat(path)
    except OSError:
        return False
    return True


def interrupted(out: Path) -> bool:
    """Whether ``out`` holds the journal of an interrupted commit."""
    return _exists(out / JOURNAL)


def read_journal(out: Path) -> Journal | None:
    """The journal of an interrupted commit, or None when there is none.
    ``JournalRefused`` when gen-ops cannot prove it wrote it for ``out``
    (Note [Journal proof] in ``journal``)."""
    return read(out)


def recover(out: Path) -> int:
    """Step 4: finish an interrupted commit, then remove leftover temporary
    files; the caller holds the tree's lock. The number of files it renamed
    or cleaned up. ``JournalRefused`` (nothing touched) for a journal
    gen-ops cannot prove it wrote."""
    done = 0
    journal = read(out)
    if journal is not None:
        with interrupts.held():
            done += _commit(out, journal)
    with confined.Dirs(out) as dirs:
        for leftover in leftovers(out):
            folder, _, name = leftover.relative_to(out).as_posix().rpartition("/")
            with contextlib.suppress(OSError, confined.Escape):
                above = dirs.fd(folder)
                if above is not None:
                    os.unlink(name, dir_fd=above)  # a symlink itself, never its target
                    done += 1
    return done


def leftovers(out: Path) -> list[Path]:
    """Temporary files gen-ops left in ``out`` (not those a journal lists;
    symlinked folders are not entered)."""
    try:
        if not stat.S_ISDIR(os.stat(out).st_mode):
            return []
    except OSError:
        return []
    try:
        journal = read(out)
    except JournalRefused:
        journal = None
    listed = {out / t for t, _, _ in journal.renames} if journal else set()
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
    directory = os.fspath(path.parent)
    handle, name = create_temp(directory, path.name, os.getpid())
    temp = f"{directory}/{name}"
    try:
        try:
            write_all(handle, text.encode("utf-8"))
        finally:
            os.close(handle)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
