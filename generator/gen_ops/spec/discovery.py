"""Finding spec files: directories are searched recursively for *.yaml.

Note [Project root]: author modules (``impl.author`` and the default
``<scaffold-dir>/<module>/<stem>.py``) are placed relative to the spec's
project root, never to the current directory, so that running gen-ops from
anywhere finds the same modules. The project root of a spec is the nearest
directory above the spec file that holds a ``pyproject.toml``; without one,
the parent of its spec directory (the ``--specs`` directory it was found in,
or the directory of a spec file named directly), which is the project of the
``specs/`` + ``generated/`` + ``ops/`` layout. It is decided here, once per
spec file, and carried by the model.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gen_ops.base.charset import describe, invisible
from gen_ops.base.diagnostics import Sink, Span

SPEC_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class SpecFile:
    path: Path
    display: str  # for diagnostics
    label: str  # for banners
    project: Path  # absolute (Note [Project root])


def _project_root(spec_dir: Path, start: Path, known: dict[Path, Path]) -> Path:
    """Note [Project root] of a spec file whose resolved path is in the
    directory ``start``; ``known`` remembers directories already searched."""
    if start not in known:
        found = next(
            (d for d in (start, *start.parents) if (d / "pyproject.toml").is_file()),
            None,
        )
        known[start] = found if found is not None else spec_dir.resolve().parent
    return known[start]


def display(path: Path) -> str:
    """``path`` relative to the current directory, for messages."""
    if not path.is_absolute() and ".." not in path.parts:
        return str(path)  # what relpath gives, without two abspath calls
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)


def join_prefix(text: str) -> str:
    """The prefix that makes the path ``text`` joined with a relative POSIX
    name the string ``str(Path(text) / name)``, without a Path per name."""
    return "" if text == "." else text if text.endswith("/") else text + "/"


def _add(found: dict[str, SpecFile], spec: SpecFile, resolved: str, sink: Sink) -> None:
    """Keep ``spec`` unless its label, which every generated banner and docs
    page quotes, holds a character no output may hold (Note [Invisible
    characters]); such a file is refused (E106), not read."""
    bad = invisible(spec.label)
    if bad is not None:
        sink.emit(
            "E106",
            Span(spec.display, 1, 1),
            f"the spec's name '{spec.label}' holds {describe(bad)}; generated "
            "files name their spec",
            "rename the file (or its directory) using printable characters",
        )
        return
    found.setdefault(resolved, spec)


def discover(roots: Sequence[Path], sink: Sink) -> list[SpecFile]:
    """Spec files under each root (a directory, searched recursively, or a
    file), each once, in a stable order."""
    found: dict[str, SpecFile] = {}  # by resolved path
    projects: dict[Path, Path] = {}
    for root in roots:
        kind = _kind(root)
        if isinstance(kind, OSError):
            sink.emit(
                "E101",
                Span(display(root), 1, 1),
                f"cannot read it: {kind.strerror or kind}",
                "pass a spec file or a directory of specs with --specs",
            )
        elif kind == "directory":
            entries = _spec_entries(root)
            for odd in (e.path for e in entries if e.resolved is None):
                _not_regular(odd, sink)
            if not entries:
                sink.emit(
                    "E105",
                    Span(display(root), 1, 1),
                    "no .yaml or .yml spec files in this directory",
                )
            base = root.resolve().name
            # display(root / rel) is display(root) joined with rel (names
            # from scandir, no ".."): one relpath per root, not per spec.
            shown = join_prefix(display(root))
            for entry in entries:
                if entry.resolved is None or entry.real_dir is None:
                    continue
                project = _project_root(root, entry.real_dir, projects)
                spec = SpecFile(
                    entry.path, shown + entry.rel, f"{base}/{entry.rel}", project
                )
                _add(found, spec, entry.resolved, sink)
        elif kind == "file":
            label = f"{root.resolve().parent.name}/{root.name}"
            resolved = root.resolve()
            project = _project_root(root.parent, resolved.parent, projects)
            spec = SpecFile(root, display(root), label, project)
            _add(found, spec, str(resolved), sink)
        elif kind == "other":
            _not_regular(root, sink)
        else:
            sink.emit(
                "E101",
                Span(display(root), 1, 1),
                "no such file or directory",
                "pass a spec file or a directory of specs with --specs",
            )
    return sorted(found.values(), key=lambda f: f.label)


@dataclass(frozen=True)
class _Entry:
    path: Path
    rel: str  # relative to the searched directory, with /
    resolved: str | None  # its resolved path; None: not a regular file (E101)
    real_dir: Path | None  # the directory of its resolved path


def _spec_entries(root: Path) -> list[_Entry]:
    """Every name ending in a spec suffix under the directory ``root`` that
    is not a directory, searched as ``root.rglob("*")`` does (symlinked
    directories are not entered; unreadable ones are skipped), sorted by
    path. One ``scandir`` per directory gives each entry's type, so a spec
    costs no ``stat`` of its own unless it is a symlink, and its resolved
    path is its directory's plus its name (a string: one Path per spec)."""
    found: list[_Entry] = []
    pending = [(root, root.resolve(), "")]
    while pending:
        directory, real, rel = pending.pop()
        try:
            with os.scandir(directory) as scan:
                listed = list(scan)
        except OSError:
            continue
        real_prefix = join_prefix(str(real))
        for item in listed:
            path = directory / item.name
            try:
                link = item.is_symlink()
                if item.is_dir() and not link:
                    pending.append((path, real / item.name, f"{rel}{item.name}/"))
                    continue
                if os.path.splitext(item.name)[1] not in SPEC_SUFFIXES:
                    continue
                if item.is_dir():
                    continue
                regular = item.is_file()
            except OSError:
                regular = False
            resolved: str | None = None
            real_dir: Path | None = None
            if regular and link:
                target = path.resolve()
                resolved, real_dir = str(target), target.parent
            elif regular:
                resolved, real_dir = real_prefix + item.name, real
            found.append(_Entry(path, rel + item.name, resolved, real_dir))
    return sorted(found, key=lambda e: e.rel.split("/"))  # as Paths sort


def _kind(path: Path) -> str | OSError:
    """ "directory", "file", "other" (a FIFO, a device, a dangling link) or
    "missing"; the OSError when the path cannot even be looked at (a name
    too long, no permission on a parent)."""
    try:
        if path.is_dir():
            return "directory"
        if path.is_file():
            return "file"
        return "other" if path.exists() or path.is_symlink() else "missing"
    except OSError as exc:
        return exc


def _not_regular(path: Path, sink: Sink) -> None:
    """E101 for a spec path that is neither a regular file nor a directory: a
    FIFO or a device (reading it could block or never end) or a symlink that
    leads nowhere."""
    what = (
        "a symlink to nothing"
        if path.is_symlink() and not path.exists()
        else "a FIFO, a socket or a device"
    )
    sink.emit(
        "E101",
        Span(display(path), 1, 1),
        f"not a regular file: {what}",
        "a spec is a regular YAML file",
    )
