"""Helpers for tests that render specs and import what was generated."""

from __future__ import annotations

import importlib.util
import itertools
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

from gen_ops import pipeline
from gen_ops.base.diagnostics import Sink
from gen_ops.emit.outputs import Target
from gen_ops.spec.model import OpSpec
from gen_ops.spec.source import reads_as_string

ROOT = Path(__file__).resolve().parents[1]
_counter = itertools.count()


class _SpecDumper(yaml.SafeDumper):
    """PyYAML writes YAML 1.1, where ``0e0`` is a string it leaves plain;
    specs are read as YAML 1.2, where it is a float. Quotes every string
    gen-ops' reader would take as a number, a boolean or null."""

    def represent_str(self, data: str) -> yaml.ScalarNode:
        if not reads_as_string(data):
            return self.represent_scalar("tag:yaml.org,2002:str", data, style="'")
        return super().represent_str(data)


_SpecDumper.add_representer(str, _SpecDumper.represent_str)


def spec_yaml(data: Any, sort_keys: bool = True) -> str:
    """``data`` as a spec's YAML text that gen-ops reads back as ``data``."""
    return yaml.dump(data, Dumper=_SpecDumper, allow_unicode=True, sort_keys=sort_keys)


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
