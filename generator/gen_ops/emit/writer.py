"""Writing outputs: a manifest of owned files, only what changed, as one
transaction.

The manifest (``.gen-ops-manifest.json`` in the output directory) lists every
file gen-ops wrote, with its target and hash. A run rewrites a file only when
its bytes change, and removes the files of the selected targets that it no
longer renders (an op that disappeared); it never deletes or rewrites a file
outside the set it renders (whatever stood at a rendered path is replaced).
The changes are applied as one transaction (Note [One transaction] in
``transaction``). ``--check`` computes the same plan without writing and
shows it as a unified diff, and reports what an interrupted run left.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gen_ops.base import jsonstr, untrusted
from gen_ops.emit import transaction
from gen_ops.emit.outputs import OutputFile, Target
from gen_ops.emit.staging import LIST_AT

MANIFEST = ".gen-ops-manifest.json"


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# Target by value: Target(value) costs an enum call per manifest entry.
_TARGETS = {target.value: target for target in Target}
_TARGET_JSON = {target: json.dumps(target.value) for target in Target}
_HEADER = '{\n  "generated_by": "gen-ops; lists the files it owns here; do not edit",\n'
# A line of the joined paths that names nothing ("", ".", "./", ...).
_NOTHING = re.compile(r"\n[./]*\n")


@dataclass(frozen=True)
class Manifest:
    files: dict[str, tuple[Target, str]]  # path -> (target, sha256)

    @staticmethod
    def read(out: Path) -> Manifest:
        """The manifest in ``out``; an unreadable one owns nothing.

        Note [An unreadable manifest owns nothing]: the manifest is read as a
        file a user did not write (Note [Untrusted files]): a FIFO, a device,
        a file over ``untrusted.JSON_LIMIT`` bytes, JSON that is not UTF-8,
        nests too deeply or holds too long an integer owns nothing, as a
        missing one does. gen-ops then overwrites no file it finds in ``out``
        that it does not own (the plan reports each), so nothing is lost."""
        try:
            text = untrusted.read_text(out / MANIFEST, limit=untrusted.JSON_LIMIT)
            data = untrusted.load_json(text, MANIFEST)
            listed = data["files"]
            safe = _all_safe(listed)
            files = {
                path: (_TARGETS[entry["target"]], str(entry["sha256"]))
                for path, entry in listed.items()
                if safe or _is_safe(path)
            }
        except (
            OSError,
            ValueError,
            KeyError,
            TypeError,
            AttributeError,
            untrusted.UntrustedFileError,
        ):
            return Manifest({})
        return Manifest(files)

    def text(self) -> str:
        """The manifest file: what ``json.dumps(..., indent=2)`` writes of
        ``{"generated_by": ..., "files": {path: {"target", "sha256"}}}``,
        joined from pieces (json's indenting encoder is pure Python, and the
        manifest of 5,000 ops has 19,000 entries)."""
        if not self.files:
            return _HEADER + '  "files": {}\n}\n'
        paths = sorted(self.files)
        entries = [self.files[path] for path in paths]
        digests = [digest for _, digest in entries]
        if jsonstr.plain(paths) and jsonstr.plain(digests):
            q = '"'  # the quotes go in the text between the strings
        else:
            q = ""
            paths, digests = jsonstr.quoted(paths), jsonstr.quoted(digests)
        count = len(paths)
        pieces = [""] * (6 * count)
        pieces[0::6] = paths
        pieces[1::6] = [f'{q}: {{\n      "target": '] * count
        pieces[2::6] = [_TARGET_JSON[target] for target, _ in entries]
        pieces[3::6] = [f',\n      "sha256": {q}'] * count
        pieces[4::6] = digests
        pieces[5::6] = [f"{q}\n    }},\n    {q}"] * count
        pieces[-1] = f"{q}\n    }}"  # the last entry
        return f'{_HEADER}  "files": {{\n    {q}' + "".join(pieces) + "\n  }\n}\n"


def _all_safe(paths: Iterable[str]) -> bool:
    """True only when ``_is_safe`` holds for every path, checked on all of
    them at once; False is also given for some safe paths (a name holding
    ``..``), and then each is checked."""
    joined = "\n" + "\n".join(paths) + "\n"
    return "\n/" not in joined and ".." not in joined and not _NOTHING.search(joined)


def _is_safe(path: str) -> bool:
    """Manifest paths stay inside the output directory: relative, naming
    something, no ``..`` (``Path(path).parts``, on POSIX separators)."""
    if path.startswith("/"):
        return False
    if ".." not in path:  # the usual path, quickly
        return bool(path.strip("./"))
    parts = [part for part in path.split("/") if part not in ("", ".")]
    return bool(parts) and ".." not in parts


@dataclass(frozen=True)
class Plan:
    writes: tuple[OutputFile, ...]  # new or changed files
    deletes: tuple[str, ...]  # owned files no longer rendered
    manifest: Manifest
    unchanged: int


def _read(path: Path) -> str | None:
    """The text of a file in the output directory; None (it is written
    again) for one that is missing or not a regular UTF-8 file of at most
    ``untrusted.JSON_LIMIT`` bytes (Note [Untrusted files])."""
    try:
        return untrusted.read_text(path, limit=untrusted.JSON_LIMIT)
    except (OSError, untrusted.UntrustedFileError):
        return None


def _listing(directory: str) -> set[str] | None:
    """The names in ``directory`` (none when it does not exist), or None when
    it cannot be listed (then each file is read)."""
    try:
        return set(os.listdir(directory))
    except (FileNotFoundError, NotADirectoryError):
        return set()
    except OSError:
        return None


def _present(out: Path, paths: Sequence[str]) -> Callable[[str], bool]:
    """Whether a rendered path may exist in ``out``, for ``plan`` not to try
    reading files that cannot exist (a first render's, a new op's): nothing
    does when ``out`` does not; a directory that receives at least
    ``staging.LIST_AT`` files is listed once; other files may exist."""
    if not os.path.isdir(out):
        return lambda path: False
    root = os.fspath(out)
    counts = Counter(path.rpartition("/")[0] for path in paths)
    listings = {
        directory: _listing(f"{root}/{directory}" if directory else root)
        for directory, count in counts.items()
        if count >= LIST_AT
    }

    def present(path: str) -> bool:
        directory, _, name = path.rpartition("/")
        names = listings.get(directory)
        return names is None or name in names

    return present


def plan(
    out: Path,
    rendered: Sequence[OutputFile],
    targets: Iterable[Target],
    kept: Sequence[str] = (),
    old: Manifest | None = None,
) -> Plan:
    """What to write and remove so that ``out`` holds ``rendered``, and
    ``kept``: owned files the run did not render because they stand as the
    last run wrote them (Note [Render cache] in ``render_cache``), owned
    again with their hash in ``old``, the manifest (read if not given)."""
    selected = set(targets)
    if old is None:
        old = Manifest.read(out)
    writes = []
    unchanged = len(kept)
    present = _present(out, [file.path for file in rendered])
    for file in rendered:
        if present(file.path) and _read(out / file.path) == file.content:
            unchanged += 1
        else:
            writes.append(file)
    new_paths = {f.path for f in rendered}
    new_paths.update(kept)
    deletes = sorted(
        path
        for path, (target, _) in old.files.items()
        if target in selected and path not in new_paths and (out / path).exists()
    )
    files = {
        path: entry
        for path, entry in old.files.items()
        if entry[0] not in selected and path not in new_paths
    }
    files.update({path: old.files[path] for path in kept})
    files.update({f.path: (f.target, sha256(f.content)) for f in rendered})
    return Plan(tuple(writes), tuple(deletes), Manifest(files), unchanged)


def apply(out: Path, the_plan: Plan) -> None:
    """Carry out a plan as one transaction: changed files, then the manifest
    (renamed in last), and the removal of stale files."""
    writes = [(file.path, file.content) for file in the_plan.writes]
    manifest_text = the_plan.manifest.text()
    if _read(out / MANIFEST) != manifest_text:
        writes.append((MANIFEST, manifest_text))
    transaction.apply(out, transaction.Change(writes, the_plan.deletes))


def partial_state(out: Path) -> list[str]:
    """What an interrupted run left in ``out`` (a journal, temporary files),
    as lines for ``--check``; a run of gen-ops repairs both."""
    problems = []
    try:
        transaction.read_journal(out)
    except transaction.JournalRefused as exc:
        return [f"{exc}"]
    if transaction.interrupted(out):
        problems.append(
            f"{out}/{transaction.JOURNAL}: a run was interrupted while it renamed "
            "its files into place; the next run completes it"
        )
    for path in transaction.leftovers(out):
        problems.append(
            f"{path}: a temporary file an interrupted run left; the next run "
            "removes it"
        )
    return problems


def drift(out: Path, the_plan: Plan) -> str:
    """A unified diff from what is on disk to what gen-ops would write."""
    chunks: list[str] = []
    for file in the_plan.writes:
        before = _read(out / file.path)
        chunks.extend(
            difflib.unified_diff(
                [] if before is None else before.splitlines(keepends=True),
                file.content.splitlines(keepends=True),
                fromfile=f"a/{file.path}" if before is not None else "/dev/null",
                tofile=f"b/{file.path}",
            )
        )
    for path in the_plan.deletes:
        before = _read(out / path) or ""
        chunks.extend(
            difflib.unified_diff(
                before.splitlines(keepends=True),
                [],
                fromfile=f"a/{path}",
                tofile="/dev/null",
            )
        )
    manifest_text = the_plan.manifest.text()
    before = _read(out / MANIFEST)
    if before != manifest_text:
        chunks.extend(
            difflib.unified_diff(
                (before or "").splitlines(keepends=True),
                manifest_text.splitlines(keepends=True),
                fromfile=f"a/{MANIFEST}",
                tofile=f"b/{MANIFEST}",
            )
        )
    return "".join(c if c.endswith("\n") else c + "\n" for c in chunks)
