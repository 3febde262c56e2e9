"""Where gen-ops' data files are: the templates and the spec JSON Schema.

Imports nothing heavy, so the no-change fast path stays fast.
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
    return Path(__file__).resolve().parents[2] / "templates"


def schema_path() -> Path:
    """The spec JSON Schema shipped in the package."""
    return Path(str(resources.files("gen_ops").joinpath("schema/op-spec.schema.json")))
