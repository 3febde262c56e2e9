"""The options of a render that decide what it writes, in one place.

Note [Render options]: ``RenderOptions`` holds every option of ``gen-ops``
(render) that changes what a render writes or where, read from the command
line by ``from_args`` alone. The rest is derived from its fields:

- ``key``: what the fast path's fingerprint and the render cache's context
  (Note [Render cache]) depend on besides the specs: one entry per field,
  made by walking the fields, so a new field changes the key with nothing
  else to remember. A field opts out in its metadata (``key=False``): the
  specs (hashed on their own), whether the run only checks, how long it
  waits for the tree's lock. A field whose metadata says ``content`` adds
  the digest of the JSON files below it: a new release renders again;
- ``prepare``: the models a render renders from the loaded ones (excluded
  ops left out, the registry's releases attached).

``render_run.render`` takes the options whole: a render and ``--check``
(``check``) prepare their ops with ``prepare`` and render them by one
function from the same options, so ``--check`` compares what a render with
the same options writes, and an option that a subclass adds (and honours
in ``prepare``) is in the key and in ``--check`` with nothing else to
change (tests/history/test_render_options.py adds one).

Each field's metadata names the command-line options it is read from and
its ``role``: ``output`` (it changes the rendered files), ``place`` (where
they go), ``scaffold`` (the author modules, outside ``--out``, which
``--check`` does not compare), ``input`` (the specs) or ``run`` (how the
run goes, never what it writes). Every option of the render parser is read
into a field or is named in ``NOT_RENDER_OPTIONS`` (how the command
reports); tests/history/test_render_options.py fails on an option that is
neither, and on an ``output`` field that a render followed by ``--check``
with the same options does not honour.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from gen_ops.base.diagnostics import Sink
from gen_ops.emit import state
from gen_ops.emit.locking import DEFAULT_TIMEOUT
from gen_ops.emit.outputs import Target

if TYPE_CHECKING:
    from gen_ops.spec.model import OpSpec

# Render options the command reads, not the run: how it reports.
NOT_RENDER_OPTIONS = frozenset({"format", "max_errors", "quiet"})


def meta(
    role: str, *options: str, content: bool = False, key: bool = True
) -> dict[str, object]:
    """A field's metadata (Note [Render options]): its role, the options it
    is read from, whether its files' content counts, whether it is in the
    key."""
    return {"role": role, "options": options, "content": content, "key": key}


@dataclass(frozen=True)
class RenderOptions:
    out: Path = field(metadata=meta("place", "out"))
    only: frozenset[Target] = field(metadata=meta("output", "only"))
    excluded: frozenset[str] = field(metadata=meta("output", "exclude_ops"))
    registry: Path | None = field(metadata=meta("output", "registry", content=True))
    h_guard_prefix: str = field(metadata=meta("output", "h_guard_prefix"))
    scaffold_dir: str | None = field(  # None: --no-scaffold
        metadata=meta("scaffold", "scaffold_dir", "no_scaffold")
    )
    specs: tuple[Path, ...] = field(
        default=(Path("specs"),), metadata=meta("input", "specs", key=False)
    )
    check: bool = field(default=False, metadata=meta("run", "check", key=False))
    lock_timeout: float = field(
        default=DEFAULT_TIMEOUT, metadata=meta("run", "lock_timeout", key=False)
    )

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> RenderOptions:
        return cls(
            out=args.out,
            only=frozenset(args.only),
            excluded=excluded_ops(args.exclude_ops),
            registry=args.registry,
            h_guard_prefix=args.h_guard_prefix,
            scaffold_dir=None if args.no_scaffold else args.scaffold_dir,
            specs=tuple(args.specs or [Path("specs")]),
            check=args.check,
            lock_timeout=args.lock_timeout,
        )

    def key(self, hasher: state.Hasher) -> list[str]:
        """One entry per field but those marked ``key=False`` (and the
        digest of a ``content`` field's files): the render's context besides
        the specs."""
        entries = []
        for item in dataclasses.fields(self):
            if not item.metadata["key"]:
                continue
            value = getattr(self, item.name)
            entries.append(f"{item.name}={_text(value)}")
            if item.metadata["content"]:
                entries.append(f"{item.name}:content={_content(value, hasher)}")
        return entries

    def prepare(self, ops: Sequence[OpSpec], sink: Sink) -> list[OpSpec]:
        """The models to render: excluded ops left out, the registry's
        releases attached (its problems go to ``sink``)."""
        kept = [op for op in ops if op.op_type not in self.excluded]
        if self.registry is None or sink.has_errors:
            return kept
        from gen_ops.history import past

        with_past = past.attach(self.registry, kept, sink)
        return with_past if with_past is not None else kept


def excluded_ops(text: str) -> frozenset[str]:
    """``--exclude-ops``: comma-separated op types."""
    return frozenset(name.strip() for name in text.split(",") if name.strip())


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, Path):
        return str(value.resolve())
    if isinstance(value, frozenset):
        return ",".join(sorted(str(getattr(v, "value", v)) for v in value))
    return str(value)


def registry_files(root: Path | None) -> list[Path]:
    """The files of a registry whose content a render depends on."""
    if root is None or not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*.json") if p.is_file())


def _content(root: object, hasher: state.Hasher) -> str:
    files = registry_files(root if isinstance(root, Path) else None)
    digests = hasher.digests(files)
    if digests is None:
        return "unreadable"  # the render reads the registry and reports why
    return state.fingerprint(files, [], digests) or ""
