"""Finding spec files: directories are searched recursively for *.yaml."""

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


def _display(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)


def _add(found: dict[Path, SpecFile], spec: SpecFile, sink: Sink) -> None:
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
    found.setdefault(spec.path.resolve(), spec)


def discover(roots: Sequence[Path], sink: Sink) -> list[SpecFile]:
    """Spec files under each root (a directory, searched recursively, or a
    file), each once, in a stable order."""
    found: dict[Path, SpecFile] = {}
    for root in roots:
        if root.is_dir():
            files = sorted(
                p for p in root.rglob("*") if p.suffix in SPEC_SUFFIXES and p.is_file()
            )
            if not files:
                sink.emit(
                    "E105",
                    Span(_display(root), 1, 1),
                    "no .yaml or .yml spec files in this directory",
                )
            for file in files:
                label = f"{root.resolve().name}/{file.relative_to(root).as_posix()}"
                _add(found, SpecFile(file, _display(file), label), sink)
        elif root.is_file():
            label = f"{root.resolve().parent.name}/{root.name}"
            _add(found, SpecFile(root, _display(root), label), sink)
        else:
            sink.emit(
                "E101",
                Span(_display(root), 1, 1),
                "no such file or directory",
                "pass a spec file or a directory of specs with --specs",
            )
    return sorted(found.values(), key=lambda f: f.label)
