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
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gen_ops import interrupts
from gen_ops.jsonstr import quoted
from gen_ops.staging import (
    TEMP_PREFIX,
    Stage,
    WriteError,
    act,
    create_temp,
    fault,
    write_all,
)

JOURNAL = ".gen-ops-journal.json"
# What gen-ops before the transactional writer left behind: mkstemp names.
_LEGACY_TEMP = re.compile(r"\.(.+)\.[A-Za-z0-9_]{8}\.tmp")


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
        """What ``json.dumps(..., indent=1)`` writes of ``{"renames": [[temp,
        final], ...], "deletes": [...]}``, line by line (json's indenting
        encoder is pure Python, and a full render stages 19,000 files)."""
        names = quoted([name for pair in self.renames for name in pair])
        pairs = [
            f"[\n   {temp},\n   {final}\n  ]"
            for temp, final in zip(names[::2], names[1::2], strict=True)
        ]
        return (
            f'{{\n "renames": {_json_list(pairs)},\n'
            f' "deletes": {_json_list(quoted(self.deletes))}\n}}\n'
        )


def _json_list(items: list[str]) -> str:
    """A JSON list of ``items`` (JSON texts) at ``json.dumps``' indent 1,
    one level in."""
    if not items:
        return "[]"
    return "[\n  " + ",\n  ".join(items) + "\n ]"


# -- the transaction -----------------------------------------------------------


def apply(out: Path, change: Change) -> None:
    """Note [One transaction]: stage, write the journal, commit."""
    if not change.writes and not change.deletes:
        return
    stage = Stage(out, [relative for relative, _ in change.writes])
    committed = False
    try:
        for number, (relative, text) in enumerate(change.writes, start=1):
            stage.write(number, relative, text)
        journal = Journal(tuple(stage.temps), tuple(change.deletes))
        stage.directory(stage.root, out / JOURNAL)
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
    root = os.fspath(out)
    fault_at, fault_action = fault("commit")
    for number, (temp, final) in enumerate(journal.renames, start=1):
        if number == fault_at:
            act(fault_action)
        source = f"{root}/{temp}"
        try:
            os.replace(source, f"{root}/{final}")
        except OSError as exc:
            if isinstance(exc, FileNotFoundError) and not _exists(Path(source)):
                continue  # renamed before the interruption
            raise WriteError(
                out / final,
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
