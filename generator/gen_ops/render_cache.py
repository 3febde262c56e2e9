"""Which specs a render must load again; the one place that decides it.

Note [Render cache]: after a successful render, the state file
(``state.STATE``) keeps, for every spec that loaded with no diagnostic at
all, an ``Entry``: the hash of its bytes, how discovery named it (display,
label, project root), where its op type stands, and its ``OpFacts``: what
the files it shares with other ops (each package's init module, aggregate
header, proto source, history export, docs index) and the checks across
specs (E801, E802) need of it. The entries hold for one *context*: gen-ops'
code, templates, JSON Schema and ``ge_ir`` (``fingerprint.code_digest``) and the
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
whichever side changed) and renders the per-op files of the loaded specs.
Of the files ops share, it renders those of every module that changed (one
of its specs was loaded, or is gone) and the files of every op (the docs
index) from the facts, loaded and kept; a module none of whose specs
changed keeps its shared files (``shared_keeper``), when each is owned in
the manifest and on disk as recorded. Kept files stay as they are, owned in
the manifest with their recorded hash. The result is byte for byte what a
run that loaded every spec writes (tests/generator/test_render_cache.py
checks it after random edits, moves, additions and removals).

The cache is the state file's text after its first line (``Cache``). A
run writes the lines of the entries it kept back as it read them, and new
lines for the specs it loaded.

A spec with a warning is never kept (its warnings are shown on every run),
and the cache names its module (``Cache.uncached``), whose shared files the
next run renders again: nothing else tells that run the spec was there, if
it is gone or moved. Nothing is kept when the state file is missing or
unreadable: the cache is only ever a way to skip work. ``--check`` and
``validate`` never use it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gen_ops.base.diagnostics import Span
from gen_ops.emit.outputs import Shared, Target
from gen_ops.emit.state import Recorded, stat_of
from gen_ops.emit.transaction import JOURNAL
from gen_ops.emit.writer import MANIFEST, Manifest
from gen_ops.lowering.facts import OpFacts
from gen_ops.lowering.layout import author_path_of
from gen_ops.pipeline import Checked, op_outputs
from gen_ops.semantics import Claim
from gen_ops.spec.discovery import SpecFile, join_prefix

VERSION = 4


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
        """The entry as its line has it: its facts' history is in the text
        after the lines (``Cache.to_text``), so the line gives its length."""
        facts = self.facts.to_json()
        facts["history"] = len(self.facts.history)
        return {
            "digest": self.digest,
            "display": self.display,
            "label": self.label,
            "project": self.project,
            "op_at": [self.op_at.path, self.op_at.line, self.op_at.col],
            "facts": facts,
        }

    @staticmethod
    def from_json(data: Mapping[str, Any], history: str) -> Entry:
        path, line, col = data["op_at"]
        return Entry(
            str(data["digest"]),
            str(data["display"]),
            str(data["label"]),
            str(data["project"]),
            Span(str(path), int(line), int(col)),
            OpFacts.from_json({**data["facts"], "history": history}),
        )


@dataclass(frozen=True)
class Cache:
    """Note [Render cache]'s entries, as the state file keeps them: a head
    line (version, context, how many entries), a line of JSON per entry,
    then every entry's history text (``OpFacts.history``, the largest part
    by far) one after another, as it is: each line gives its text's length.
    So reading parses no history text, and a line read is written back as
    it was."""

    context: str
    entries: Mapping[str, Entry]  # by str(spec path), as discovery found it
    # The line each entry was read from, by path: written again as it is.
    lines: Mapping[str, str] = field(default_factory=dict)
    # The modules of the specs the run rendered but holds no entry for (a
    # spec with a warning): the next run cannot see such a spec go, so it
    # renders these modules' shared files again (``decide``).
    uncached: frozenset[str] = frozenset()

    def to_text(self) -> str:
        head = {
            "version": VERSION,
            "context": self.context,
            "uncached": sorted(self.uncached),
        }
        rows = [json.dumps({**head, "entries": len(self.entries)})]
        for path, entry in self.entries.items():
            line = self.lines.get(path)
            if line is None:
                line = _path_key(path) + json.dumps(
                    entry.to_json(), separators=(",", ":")
                ).removeprefix("{")
            rows.append(line)
        texts = [entry.facts.history for entry in self.entries.values()]
        return "\n".join(rows) + "\n" + "".join(texts)

    @staticmethod
    def from_text(text: str) -> Cache | None:
        """The cache ``to_text`` wrote; None for anything else. The entry
        lines are parsed as one JSON array (one call, not one per line);
        each must be an object that names its path first."""
        head, _, body = text.partition("\n")
        try:
            data = json.loads(head)
            count, uncached = data["entries"], data["uncached"]
            if data["version"] != VERSION or not isinstance(count, int):
                return None
            if not isinstance(uncached, list) or not all(
                isinstance(module, str) for module in uncached
            ):
                return None
            *rows, texts = body.split("\n", count)
            items = json.loads("[" + ",".join(rows) + "]")
            if len(rows) != count or len(items) != count:
                return None
            entries: dict[str, Entry] = {}
            lines: dict[str, str] = {}
            at = 0
            for line, item in zip(rows, items, strict=True):
                path = str(item["path"])
                size = item["facts"]["history"]
                if not line.startswith(_LINE_START) or not _length(size):
                    return None
                entries[path] = Entry.from_json(item, texts[at : at + size])
                lines[path] = line
                at += size
            if at != len(texts):
                return None
            return Cache(str(data["context"]), entries, lines, frozenset(uncached))
        except (KeyError, TypeError, ValueError, AttributeError, RecursionError):
            return None  # Note [A state file is only a cache] (state)


def _length(value: object) -> bool:
    return type(value) is int and value >= 0


_LINE_START = '{"path":'


def _path_key(path: str) -> str:
    """How an entry's line starts (``to_text``)."""
    return _LINE_START + json.dumps(path) + ","


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
    # The manifest that owns their files, as read (None: not read; then
    # ``writer.plan`` reads it).
    manifest: Manifest | None
    # The recorded files that are there as recorded, with their stats.
    standing: Mapping[str, object] = field(default_factory=dict)
    # The per-op files of the kept specs (of ops not excluded).
    kept_paths: tuple[str, ...] = ()
    # The modules all of whose recorded specs are kept.
    clean: frozenset[str] = frozenset()
    cache: Cache | None = None  # as read


def decide(inputs: Inputs, recorded: Recorded | None) -> Decision:
    """Which specs stand as the last run (``recorded``) left them (Note
    [Render cache])."""
    nothing = Decision({}, None)
    if recorded is None or (inputs.out / JOURNAL).exists():
        return nothing
    cache = Cache.from_text(recorded.cache_text)
    if cache is None or cache.context != inputs.context:
        return nothing
    there = still(recorded.files)
    prefix = under(inputs.out)
    if prefix + MANIFEST not in there:
        return nothing
    manifest = Manifest.read(inputs.out)
    selected = [t for t in Target if t in inputs.targets]
    kept: dict[Path, Entry] = {}
    kept_paths: list[str] = []
    for file, digest in zip(inputs.files, inputs.digests, strict=True):
        entry = cache.entries.get(str(file.path))
        if entry is None or not entry.matches(file, digest):
            continue
        paths = _owned(entry, inputs, selected, manifest, there, prefix)
        if paths is not None:
            kept[file.path] = entry
            kept_paths += paths
    standing = {path: recorded.files[path] for path in there}
    kept_ids = {id(entry) for entry in kept.values()}
    changed = {e.facts.module for e in cache.entries.values() if id(e) not in kept_ids}
    changed |= cache.uncached
    clean = frozenset({e.facts.module for e in kept.values()} - changed)
    return Decision(kept, manifest, standing, tuple(kept_paths), clean, cache)


def _owned(
    entry: Entry,
    inputs: Inputs,
    selected: Sequence[Target],
    manifest: Manifest,
    there: set[str],
    prefix: str,
) -> list[str] | None:
    """The files the spec's op owns, if every one is as the last run left
    it (``prefix``: ``under(out)``); None if any is not."""
    facts = entry.facts
    if facts.op_type in inputs.excluded:
        return []  # renders nothing
    paths = []
    for path, target in op_outputs(facts, selected):
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


def shared_keeper(
    decision: Decision, loaded: Iterable[OpFacts], out: Path
) -> Callable[[Shared, Target], bool] | None:
    """Which shared files a run keeps (Note [Render cache]): those of a
    module all of whose recorded specs are kept and none loaded
    (``loaded``: the facts of the specs this run loaded), each owned in the
    manifest for its target and on disk (in ``out``) as recorded. None: it
    keeps none."""
    clean = decision.clean - {facts.module for facts in loaded}
    manifest = decision.manifest
    if not clean or manifest is None:
        return None
    owners, prefix, standing = manifest.files, under(out), decision.standing

    def keep(file: Shared, target: Target) -> bool:
        if file.module not in clean:
            return False
        owned = owners.get(file.path)
        return (
            owned is not None and owned[0] is target and prefix + file.path in standing
        )

    return keep


def updated(
    context: str,
    decision: Decision,
    checked: Iterable[Checked],
    digests: Mapping[Path, str],
    flagged: set[str],
) -> Cache:
    """The cache after a run: what it kept (with the lines they were read
    from), and every spec it loaded that gave no diagnostic (``flagged``:
    the spec paths diagnostics name)."""
    entries = {str(path): entry for path, entry in decision.kept.items()}
    read = decision.cache.lines if decision.cache is not None else {}
    lines = {path: read[path] for path in entries if path in read}
    uncached: set[str] = set()
    for c in checked:
        if c.file.display in flagged:
            uncached.add(c.facts.module)
            continue
        entries[str(c.file.path)] = Entry(
            digests[c.file.path],
            c.file.display,
            c.file.label,
            str(c.file.project),
            c.op_at,
            c.facts,
        )
    return Cache(context, entries, lines, frozenset(uncached))
