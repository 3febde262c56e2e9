"""The whole run: find specs, load, validate, and render every output in memory.

Nothing here touches the output directory; ``writer`` does that.
"""

from __future__ import annotations

import dataclasses
import enum
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gen_ops import schema_check, semantics
from gen_ops.diagnostics import Sink, Span
from gen_ops.model import OpSpec
from gen_ops.source import LoadedSpec, load_spec

SPEC_SUFFIXES = (".yaml", ".yml")


class Target(enum.Enum):
    """Output families; ``--only`` picks among them."""

    PYTHON = "python"  # ge.es builders
    CPP = "cpp"  # REG_OP headers, aggregate, proto .cc
    IMPL = "impl"  # register_op prototypes and register_op_impl bases
    DOCS = "docs"  # reference pages and the operators.json export


@dataclass(frozen=True)
class OutputFile:
    path: str  # POSIX path relative to the output directory
    target: Target
    content: str


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
                    "no .yaml spec files in this directory",
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


def load_and_check(files: Sequence[SpecFile], sink: Sink) -> list[OpSpec]:
    """Load every spec and check all of them; the models of the valid ones."""
    loaded: list[LoadedSpec] = []
    for file in files:
        spec = load_spec(file.path, file.display, sink)
        if spec is not None:
            loaded.append(dataclasses.replace(spec, label=file.label))
    models: list[OpSpec] = []
    for spec in loaded:
        if schema_check.check(spec, sink):
            model = semantics.check_spec(spec, sink)
            if model is not None:
                models.append(model)
    semantics.check_across(loaded, models, sink)
    return sorted(models, key=lambda m: m.op_type)


def render(ops: Sequence[OpSpec], targets: frozenset[Target]) -> list[OutputFile]:
    """Every output file of the selected targets, formatted, in memory."""
    from gen_ops import lower_cpp, lower_docs, lower_impl, lower_python

    renderers = {
        Target.PYTHON: lower_python.files,
        Target.CPP: lower_cpp.files,
        Target.IMPL: lower_impl.files,
        Target.DOCS: lower_docs.files,
    }
    out: list[OutputFile] = []
    for target in Target:
        if target in targets:
            out.extend(
                OutputFile(path, target, content)
                for path, content in renderers[target](ops)
            )
    return sorted(out, key=lambda f: f.path)
