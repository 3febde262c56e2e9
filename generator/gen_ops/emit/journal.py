"""The journal of a transaction (step 2 of Note [One transaction] in
``transaction``): its text, and reading it back only when gen-ops can prove
it wrote it (Note [Write rule] in ``transaction``).

Note [Journal proof]: a journal names what it belongs to and what it moves,
so that recovery can check all of it before anything moves:

- ``tree``, ``device`` and ``inode``: the real path and the identity of the
  directory it was written for. A journal copied, planted or left in a
  moved tree does not match, and is refused.
- ``run``: ``<pid>-<16 hex digits>``; every staged file's name ends with
  ``.<pid>-<n>`` of that pid and stands beside its destination (the
  temporary names of ``staging``).
- each rename ``[temporary, destination, sha256]``: the digest of what was
  staged. Recovery renames a staged file only when it is a regular file
  holding that digest; a staged file that is gone is accepted only when its
  destination already holds that digest (the rename happened before the
  interruption); anything else is refused.
- every path is relative, of plain components (no ``..``, ``.``, empty or
  absolute parts), and no removal names one of gen-ops' own files
  (``.gen-ops-*``). Every folder on the way is opened without following
  symlinks (``confined.Dirs``): a symlink anywhere inside the tree refuses
  the journal.

A refusal is a ``JournalRefused`` at the line and column of the entry at
fault, with what to do; nothing is touched. The journal is read as an
untrusted file (Note [Untrusted files] in ``untrusted``): no symlink, no
FIFO, bounded size, integers and nesting.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gen_ops.base import untrusted
from gen_ops.base.jsonstr import quoted
from gen_ops.emit import confined
from gen_ops.emit.locking import LOCK_INFO
from gen_ops.emit.staging import TEMP_PREFIX, WriteError
from gen_ops.spec.discovery import display

JOURNAL = ".gen-ops-journal.json"
FORMAT = 2
# A full render's journal is a few megabytes.
LIMIT = 64 * 1024 * 1024
_KEYS = ("gen_ops_journal", "tree", "device", "inode", "run", "renames", "deletes")
_RUN = re.compile(r"([0-9]{1,10})-[0-9a-f]{16}")
_DIGEST = re.compile(r"[0-9a-f]{64}")
_WHAT_TO_DO = (
    "; if this tree was moved or copied, or you do not know where the journal "
    "comes from, remove it and the .gen-ops-tmp-* files beside it, then run "
    "gen-ops again"
)


class JournalRefused(WriteError):
    """A journal gen-ops cannot prove it wrote for this tree; nothing was
    touched."""

    def __init__(self, path: Path, reason: str, line: int = 1, col: int = 1) -> None:
        super().__init__(path, reason)
        self.line = line
        self.col = col
        self.args = (
            f"{display(path)}:{line}:{col}: error: refused to recover this "
            f"journal: {reason}{_WHAT_TO_DO}",
        )

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class Journal:
    """The commit point: staged files with their destinations and digests
    (renamed in this order) and the files to remove, relative to ``tree``."""

    renames: tuple[tuple[str, str, str], ...]
    deletes: tuple[str, ...]
    tree: str
    device: int
    inode: int
    run: str

    @staticmethod
    def new(
        out: Path, renames: tuple[tuple[str, str, str], ...], deletes: tuple[str, ...]
    ) -> Journal:
        info = os.stat(out)
        run = f"{os.getpid()}-{secrets.token_hex(8)}"
        return Journal(
            renames, deletes, os.path.realpath(out), info.st_dev, info.st_ino, run
        )

    def text(self) -> str:
        """The journal as ``json.dumps(..., indent=1)`` writes it, line by
        line (json's indenting encoder is pure Python, and a full render
        stages 19,000 files)."""
        names = quoted([name for entry in self.renames for name in entry])
        entries = [
            f"[\n   {names[i]},\n   {names[i + 1]},\n   {names[i + 2]}\n  ]"
            for i in range(0, len(names), 3)
        ]
        return (
            f'{{\n "gen_ops_journal": {FORMAT},\n "tree": {json.dumps(self.tree)},\n'
            f' "device": {self.device},\n "inode": {self.inode},\n'
            f' "run": "{self.run}",\n'
            f' "renames": {_json_list(entries)},\n'
            f' "deletes": {_json_list(quoted(self.deletes))}\n}}\n'
        )


def _json_list(items: list[str]) -> str:
    if not items:
        return "[]"
    return "[\n  " + ",\n  ".join(items) + "\n ]"


# -- reading -------------------------------------------------------------------


class _Bad(Exception):
    def __init__(self, reason: str, value: object = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.value = value


def read(out: Path) -> Journal | None:
    """The journal in ``out``, checked (Note [Journal proof]), or None when
    there is none. ``JournalRefused`` otherwise."""
    path = out / JOURNAL
    try:
        text = untrusted.read_text(
            path, limit=LIMIT, display=display(path), follow=False
        )
    except FileNotFoundError:
        return None
    except untrusted.UntrustedFileError as exc:
        raise JournalRefused(path, exc.reason, exc.line, exc.col) from None
    try:
        data = untrusted.load_json(text, display(path))
    except untrusted.UntrustedFileError as exc:
        raise JournalRefused(path, exc.reason, exc.line, exc.col) from None
    try:
        journal = _parse(data)
        _same_tree(out, journal)
        with confined.Dirs(out) as dirs:
            check_files(dirs, journal)
    except _Bad as exc:
        line, col = _where(text, exc.value)
        raise JournalRefused(path, exc.reason, line, col) from None
    return journal


def _where(text: str, value: object) -> tuple[int, int]:
    if value is None:
        return 1, 1
    try:
        offset = text.find(json.dumps(value))
    except (TypeError, ValueError):
        offset = -1
    if offset < 0:
        return 1, 1
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _parse(data: Any) -> Journal:
    if not isinstance(data, dict) or sorted(data) != sorted(_KEYS):
        raise _Bad(
            "it is not a journal this version of gen-ops writes (an object with "
            f"the keys {', '.join(_KEYS)})"
        )
    if data["gen_ops_journal"] != FORMAT or isinstance(data["gen_ops_journal"], bool):
        raise _Bad(f"it is not a journal of format {FORMAT}", data["gen_ops_journal"])
    tree, device, inode, run = (data[k] for k in ("tree", "device", "inode", "run"))
    if not isinstance(tree, str) or not all(
        isinstance(n, int) and not isinstance(n, bool) for n in (device, inode)
    ):
        raise _Bad("its tree, device and inode are not a path and two numbers")
    if not isinstance(run, str) or not _RUN.fullmatch(run):
        raise _Bad("its run is not <pid>-<16 hex digits>", run)
    pid = run.partition("-")[0]
    renames, deletes = data["renames"], data["deletes"]
    if not isinstance(renames, list) or not isinstance(deletes, list):
        raise _Bad("its renames and deletes are not lists")
    checked = tuple(_rename(entry, pid) for entry in renames)
    for relative in deletes:
        _confined(relative)
        if relative.rpartition("/")[2].startswith(".gen-ops-"):
            raise _Bad(f"it removes {relative}, one of gen-ops' own files", relative)
    return Journal(checked, tuple(deletes), tree, device, inode, run)


def _rename(entry: Any, pid: str) -> tuple[str, str, str]:
    if not (
        isinstance(entry, list)
        and len(entry) == 3
        and all(isinstance(x, str) for x in entry)
    ):
        raise _Bad("a rename is not [temporary, destination, sha256]", entry)
    temp, final, sha = entry
    _confined(temp)
    _confined(final)
    folder, _, name = final.rpartition("/")
    temp_folder, _, temp_name = temp.rpartition("/")
    if name in (JOURNAL, LOCK_INFO) or name.startswith(TEMP_PREFIX):
        raise _Bad(f"it renames a file onto {final}, one of gen-ops' own", final)
    rest = temp_name.removeprefix(f"{TEMP_PREFIX}{name}.")
    if (
        temp_folder != folder
        or rest == temp_name
        or rest.partition("-")[0] != pid
        or not rest.partition("-")[2].isdigit()
    ):
        raise _Bad(
            f"{temp} is not a file this run staged for {final} (its name, "
            "folder or process id differs)",
            temp,
        )
    if not _DIGEST.fullmatch(sha):
        raise _Bad(f"the digest of {final} is not a sha256", sha)
    return temp, final, sha


def _confined(relative: Any) -> None:
    if (
        not isinstance(relative, str)
        or not relative
        or len(relative) > 4096
        or "\0" in relative
        or relative.startswith("/")
        or any(part in ("", ".", "..") for part in relative.split("/"))
    ):
        raise _Bad(
            f"{relative!r:.200} is not a path inside the tree (relative, without "
            "'..', '.' or empty components)",
            relative,
        )


def _same_tree(out: Path, journal: Journal) -> None:
    try:
        info = os.stat(out)
        real = os.path.realpath(out)
    except OSError as exc:
        raise _Bad(f"cannot look at {display(out)}: {exc.strerror}") from None
    if (journal.tree, journal.device, journal.inode) != (
        real,
        info.st_dev,
        info.st_ino,
    ):
        raise _Bad(
            f"it was written for the tree {journal.tree!r:.300}, not for this one",
            journal.tree,
        )


def check_files(dirs: confined.Dirs, journal: Journal) -> None:
    """Every staged file is a regular file holding its digest (or gone,
    with its destination holding it), every folder on the way a real
    directory, and no removal a directory."""
    for temp, final, sha in journal.renames:
        folder, _, name = final.rpartition("/")
        try:
            above = dirs.fd(folder)
        except confined.Escape as exc:
            raise _Bad(f"{exc}", temp) from None
        temp_name = temp.rpartition("/")[2]
        mode = None if above is None else confined.kind(above, temp_name)
        if mode is None:
            if above is None or confined.digest(above, name) != sha:
                raise _Bad(
                    f"the staged file {temp} is missing and {final} does not "
                    "hold what was staged for it",
                    temp,
                )
        elif not stat.S_ISREG(mode):
            raise _Bad(f"the staged file {temp} is not a regular file", temp)
        elif confined.digest(above, temp_name) != sha:  # type: ignore[arg-type]
            raise _Bad(f"the staged file {temp} does not hold what was staged", temp)
    for relative in journal.deletes:
        folder, _, name = relative.rpartition("/")
        try:
            above = dirs.fd(folder)
        except confined.Escape as exc:
            raise _Bad(f"{exc}", relative) from None
        mode = None if above is None else confined.kind(above, name)
        if mode is not None and stat.S_ISDIR(mode):
            raise _Bad(f"it removes {relative}, a directory", relative)
