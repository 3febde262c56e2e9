"""Helpers for tests that render specs and import what was generated."""

from __future__ import annotations

import importlib.util
import itertools
import sys
from pathlib import Path
from types import ModuleType

from gen_ops import pipeline
from gen_ops.diagnostics import Sink
from gen_ops.model import OpSpec
from gen_ops.outputs import Target

ROOT = Path(__file__).resolve().parents[1]
_counter = itertools.count()


def load_ops(*roots: Path) -> tuple[list[OpSpec], Sink]:
    sink = Sink()
    files = pipeline.discover(list(roots), sink)
    return pipeline.load_and_check(files, sink), sink


def render_tree(
    *roots: Path,
    targets: frozenset[Target] = frozenset(Target),
    registry: Path | None = None,
) -> dict[str, str]:
    """Every output file of the specs under ``roots``, by path, in memory;
    with ``registry``, as ``gen-ops --registry`` renders them."""
    ops, sink = load_ops(*roots)
    if registry is not None:
        from gen_ops.history import past

        attached = past.attach(registry, ops, sink)
        assert attached is not None
        ops = attached
    assert not sink.has_errors, "\n".join(d.format() for d in sink.sorted())
    return {f.path: f.content for f in pipeline.render(ops, targets)}


def write_tree(files: dict[str, str], out: Path) -> None:
    for path, content in files.items():
        target = out / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")


def import_file(path: Path) -> ModuleType:
    """Import one generated module from a file under a fresh, unique name."""
    name = f"_generated_{path.stem}_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
