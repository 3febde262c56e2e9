"""Which specs a render must load again; the one place that decides it.

Note [Render cache]: after a successful render, the state file
(``state.STATE``) keeps, for every spec that loaded with no diagnostic at
all, an ``Entry``: the hash of its bytes, how discovery named it (display,
label, project root), where its op type stands, and its ``OpFacts``: what
the files it shares with other ops (each package's init module, aggregate
header, proto source, history export, docs index) and the checks across
specs (E801, E802) need of it. The entries hold for one *context*: gen-ops'
code, templates, JSON Schema and ``ge_ir`` (``state.code_digest``) and the
options; another context keeps nothing.

A later render keeps (does not load, check or render) a spec when all of
these hold; otherwise it loads it like any other:

- the context is the same, and the manifest is as that run left it
  (its size and modification time, as recorded);
- the spec has an entry, with the same bytes, display, label and project;
- each of its per-op outputs of the selected targets (``pipeline.op_outputs``)
  is in the manifest and on disk as recorded (size and modification time);
- when scaffolding, its author module (if it has one) is there as recorded.

The run then checks the loaded specs against the kept specs' claims
(``semantics.Claim``: a duplicate op type, file or exported name is found
whichever side changed), renders the per-op files of the loaded specs, and
the shared files of every op from the facts, loaded and kept: a module's
shared files are rendered again whenever the run renders anything, which
costs little next to one op. Kept per-op files stay as they are, owned in
the manifest with their recorded hash. The result is byte for byte what a
run that loaded every spec writes (tests/generator/test_render_cache.py
checks it after random edits, moves, additions and removals).

A spec with a warning is never kept (its warnings are shown on every run),
nor is anything when the state file is missing or unreadable: the cache is
only ever a way to skip work. ``--check`` and ``validate`` never use it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gen_ops.diagnostics import Span
from gen_ops.discovery import SpecFile, join_prefix
from gen_ops.facts import OpFacts
from gen_ops.layout import author_path_of
from gen_ops.outputs import Target
from gen_ops.pipeline import Checked, op_outputs
from gen_ops.semantics import Claim
from gen_ops.state import Recorded, stat_of
from gen_ops.transaction import JOURNAL
from gen_ops.writer import MANIFEST, Manifest

VERSION = 1


@dataclass(frozen=True)
class Entry:
    """One valid spec as the run that last rendered it saw it."""

    digest: str  # sha256 of the spec's bytes
    display: str
    label: str
    project: str
    op_at: Span
    facts: OpFacts

    def matches(self, file: SpecFile, digest: str) -> bool:
        return (
            self.digest == digest
            and self.display == file.display
            and self.label == file.label
            and self.project == str(file.project)
        )

    def claim(self) -> Claim:
        return Claim(self.facts.op_type, self.op_at, self.facts)

    def to_json(self) -> dict[str, Any]:
        return {
            "digest": self.digest,
            "display": self.display,
            "label": self.label,
            "project": self.project,
            "op_at": [self.op_at.path, self.op_at.line, self.op_at.col],
            "facts": self.facts.to_json(),
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Entry:
        path, line, col = data["op_at"]
        return Entry(
            str(data["digest"]),
            str(data["display"]),
            str(data["label"]),
            str(data["project"]),
            Span(str(path), int(line), int(col)),
            OpFacts.from_json(data["facts"]),
        )


@dataclass(frozen=True)
class Cache:
    context: str
    entries: Mapping[str, Entry]  # by str(spec path), as discovery found it

    def to_json(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "context": self.context,
            "entries": {path: e.to_json() for path, e in self.entries.items()},
        }

    @staticmethod
    def from_json(data: Any) -> Cache | None:
        """The cache ``to_json`` wrote; None for anything else."""
        try:
            if data["version"] != VERSION:
                return None
            entries = {
                str(path): Entry.from_json(entry)
                for path, entry in data["entries"].items()
            }
            return Cache(str(data["context"]), entries)
        except (KeyError, TypeError, ValueError, AttributeError):
            return None


def under(out: Path) -> str:
    """The prefix that makes an output path (POSIX, relative) the string
    ``str(out / path)``, without building a Path per file."""
    return join_prefix(str(out))


def still(recorded: Mapping[str, object]) -> set[str]:
    """The recorded files that are there with the recorded size and
    modification time."""
    return {path for path, stat in recorded.items() if stat and stat_of(path) == stat}


@dataclass(frozen=True)
class Inputs:
    """What the decision reads of this run: its specs and options."""

    files: Sequence[SpecFile]
    digests: Sequence[str]  # sha256 of each spec's bytes, as ``files``
    context: str  # state.context of the options
    out: Path
    targets: frozenset[Target]
    excluded: frozenset[str]
    scaffold_dir: str | None  # None: --no-scaffold


@dataclass(frozen=True)
class Decision:
    kept: dict[Path, Entry]  # the specs this run need not load, by path
    manifest: Manifest | None  # the manifest that owns their files
    # The recorded files that are there as recorded, with their stats.
    standing: Mapping[str, object] = field(default_factory=dict)
    # The per-op files of the kept specs (of ops not excluded).
    kept_paths: tuple[str, ...] = ()


def decide(inputs: Inputs, recorded: Recorded | None) -> Decision:
    """Which specs stand as the last run (``recorded``) left them (Note
    [Render cache])."""
    nothing = Decision({}, None)
    if recorded is None or (inputs.out / JOURNAL).exists():
        return nothing
    cache = Cache.from_json(recorded.cache())
    if cache is None or cache.context != inputs.context:
        return nothing
    there = still(recorded.files)
    if under(inputs.out) + MANIFEST not in there:
        return nothing
    manifest = Manifest.read(inputs.out)
    kept: dict[Path, Entry] = {}
    kept_paths: list[str] = []
    prefix = under(inputs.out)
    for file, digest in zip(inputs.files, inputs.digests, strict=True):
        entry = cache.entries.get(str(file.path))
        if entry is None or not entry.matches(file, digest):
            continue
        paths = _owned(entry, inputs, manifest, there, prefix)
        if paths is not None:
            kept[file.path] = entry
            kept_paths += paths
    standing = {path: recorded.files[path] for path in there}
    return Decision(kept, manifest if kept else None, standing, tuple(kept_paths))


def _owned(
    entry: Entry, inputs: Inputs, manifest: Manifest, there: set[str], prefix: str
) -> list[str] | None:
    """The files the spec's op owns, if every one is as the last run left
    it (``prefix``: ``under(out)``); None if any is not."""
    facts = entry.facts
    if facts.op_type in inputs.excluded:
        return []  # renders nothing
    paths = []
    for path, target in op_outputs(facts, inputs.targets):
        owned = manifest.files.get(path)
        if owned is None or owned[0] is not target or prefix + path not in there:
            return None
        paths.append(path)
    if inputs.scaffold_dir is not None and facts.has_impl:
        author = author_path_of(
            facts, facts.author, Path(entry.project), inputs.scaffold_dir
        )
        if str(author) not in there:
            return None
    return paths


def updated(
    context: str,
    kept_: Mapping[Path, Entry],
    checked: Iterable[Checked],
    digests: Mapping[Path, str],
    flagged: set[str],
) -> Cache:
    """The cache after a run: what it kept, and every spec it loaded that
    gave no diagnostic (``flagged``: the spec paths diagnostics name)."""
    entries = {str(path): entry for path, entry in kept_.items()}
    for c in checked:
        if c.file.display in flagged:
            continue
        entries[str(c.file.path)] = Entry(
            digests[c.file.path],
            c.file.display,
            c.file.label,
            str(c.file.project),
            c.op_at,
            c.facts,
        )
    return Cache(context, entries)
