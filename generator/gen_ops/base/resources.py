"""Where gen-ops' data files are: the templates and the spec JSON Schema.

Imports nothing heavy, so the no-change fast path stays fast.

Note [Schema copy]: a spec's first line names the JSON Schema for editors
(``# yaml-language-server: $schema=PATH``). PATH must resolve on every
checkout of the user's project, so it never points into ge-ops' install:
the spec root holds a copy of the schema, ``SCHEMA_COPY``
(``schema_copy``, written by ``gen-ops new`` and ``gen-ops import``, to be
committed with the specs), and PATH is relative from the spec file to that
copy (``schema_reference``): ``op-spec.schema.json`` for a spec ``gen-ops
new`` writes in the spec root, ``../op-spec.schema.json`` for one ``gen-ops
import`` writes in ``<out>/<module>/``.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

TEMPLATE_PACKAGE_DIR = "templates"


def template_dir() -> Path:
    """Packaged templates in a wheel; the repository's templates/ otherwise."""
    packaged = resources.files("gen_ops").joinpath(TEMPLATE_PACKAGE_DIR)
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[3] / "templates"


def schema_path() -> Path:
    """The spec JSON Schema shipped in the package."""
    return Path(str(resources.files("gen_ops").joinpath("schema/op-spec.schema.json")))


SCHEMA_COPY = "op-spec.schema.json"


def schema_reference(depth: int) -> str:
    """The ``$schema`` path of a spec ``depth`` directories below the spec
    root (Note [Schema copy])."""
    return "../" * depth + SCHEMA_COPY


def schema_text() -> str:
    """What ``SCHEMA_COPY`` holds: this gen-ops' schema."""
    return schema_path().read_text(encoding="utf-8")
