"""Finding spec files: directories are searched recursively for *.yaml."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

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
                found.setdefault(file.resolve(), SpecFile(file, _display(file), label))
        elif root.is_file():
            label = f"{root.resolve().parent.name}/{root.name}"
            found.setdefault(root.resolve(), SpecFile(root, _display(root), label))
        else:
            sink.emit(
                "E101",
                Span(_display(root), 1, 1),
                "no such file or directory",
                "pass a spec file or a directory of specs with --specs",
            )
    return sorted(found.values(), key=lambda f: f.label)
