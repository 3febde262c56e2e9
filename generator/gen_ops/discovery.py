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

from gen_ops.charset import describe, invisible
from gen_ops.diagnostics import Sink, Span

SPEC_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class SpecFile:
    path: Path
    display: str  # for diagnostics
    label: str  # for banners
    project: Path  # absolute (Note [Project root])


def _project_root(spec_dir: Path, resolved: Path, known: dict[Path, Path]) -> Path:
    """Note [Project root] of the spec file ``resolved`` (its resolved path);
    ``known`` remembers directories already searched."""
    start = resolved.parent
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


def _add(
    found: dict[Path, SpecFile], spec: SpecFile, resolved: Path, sink: Sink
) -> None:
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
    found: dict[Path, SpecFile] = {}
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
            named = sorted(
                p
                for p in root.rglob("*")
                if p.suffix in SPEC_SUFFIXES and not p.is_dir()
            )
            files = [p for p in named if p.is_file()]
            for odd in (p for p in named if not p.is_file()):
                _not_regular(odd, sink)
            if not named:
                sink.emit(
                    "E105",
                    Span(display(root), 1, 1),
                    "no .yaml or .yml spec files in this directory",
                )
            base = root.resolve().name
            for file in files:
                label = f"{base}/{file.relative_to(root).as_posix()}"
                resolved = file.resolve()
                project = _project_root(root, resolved, projects)
                spec = SpecFile(file, display(file), label, project)
                _add(found, spec, resolved, sink)
        elif kind == "file":
            label = f"{root.resolve().parent.name}/{root.name}"
            resolved = root.resolve()
            project = _project_root(root.parent, resolved, projects)
            _add(found, SpecFile(root, display(root), label, project), resolved, sink)
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
