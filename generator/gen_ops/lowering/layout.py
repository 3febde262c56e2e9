"""Where every file gen-ops writes goes: the output tree and the author modules.

Output paths are POSIX paths relative to the output directory (``--out``).
Every per-op file is named after the op's file stem, the op type in snake
case; every per-module file after the module. Author modules are placed under
the spec's project root, which discovery decides (Note [Project root]).
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path
from typing import Protocol

from gen_ops.spec.model import OpSpec


class Placed(Protocol):
    """What decides where an op's files go: a model or its facts
    (``facts.OpFacts``)."""

    @property
    def op_type(self) -> str: ...

    @property
    def module(self) -> str: ...

    @property
    def file_stem(self) -> str: ...


_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def file_stem(op_type: str) -> str:
    """``AnnotatedAddCustom`` -> ``annotated_add_custom``: the base name of
    every per-op file (two ops of one module with the same stem are E802).

    Note [File stems]: a stem is a Python module name (``ge.es.<module>.<stem>``,
    ``ge_impl.<module>.<stem>``, the author module), so it must be an
    identifier that is not a keyword. The op type in snake case always is
    an identifier (op types are ``_?[A-Za-z][A-Za-z0-9_]*``: ``_If`` gives
    ``_if``, ``phony_If`` ``phony_if``); a keyword (``If``, ``While``, ``Assert`` give ``if``, ``while``,
    ``assert``) gets a trailing ``_``, Python's own convention: ``if_``. An
    op whose snake case already ends so (``If_``) maps to the same stem,
    which E802 reports like any other two ops of one stem."""
    stem = _CAMEL_BOUNDARY.sub("_", op_type).lower()
    return stem + "_" if keyword.iskeyword(stem) else stem


# --- python ----------------------------------------------------------------


def builder_module(op: Placed) -> str:
    """The op's ge.es builder."""
    return f"python/ge/es/{op.module}/{op.file_stem}.py"


def builder_package(module: str) -> str:
    """``ge.es.<module>``, which re-exports the module's builders."""
    return f"python/ge/es/{module}/__init__.py"


IMPL_ROOT_PACKAGE = "python/ge_impl/__init__.py"


def impl_module(op: Placed) -> str:
    """The op's prototype and implementation base."""
    return f"python/ge_impl/{op.module}/{op.file_stem}.py"


def impl_package(module: str) -> str:
    return f"python/ge_impl/{module}/__init__.py"


def impl_import_name(op: Placed) -> str:
    """The dotted name the author module imports the generated base from."""
    return f"ge_impl.{op.module}.{op.file_stem}"


# --- C++ -------------------------------------------------------------------


def header_include(op: Placed) -> str:
    """The op's REG_OP header as ``#include`` names it (under include/)."""
    return f"{op.module}/{op.file_stem}.h"


def module_header_stem(module: str) -> str:
    """The stem of a module's aggregate header; no op may take it (E802)."""
    return f"{module}_ops"


def module_header_include(module: str) -> str:
    return f"{module}/{module_header_stem(module)}.h"


def include_path(include: str) -> str:
    """An output path of a header named ``include`` (as ``#include`` names it)."""
    return f"include/{include}"


def header_guard(include: str) -> str:
    """``custom/scale_custom.h`` -> ``GE_OPS_CUSTOM_SCALE_CUSTOM_H_``."""
    return "GE_OPS_" + re.sub(r"[/.]", "_", include).upper() + "_"


def proto_source(module: str) -> str:
    """The OPP proto library source of a module (includes its headers)."""
    return f"src/{module}_op_proto.cc"


# --- docs ------------------------------------------------------------------

DOCS_DIR = "docs/ops"
DOC_INDEX = f"{DOCS_DIR}/README.md"


def doc_page_name(op: Placed) -> str:
    """The op's reference page, as the index links it."""
    return f"{op.op_type}.md"


def doc_page(op: Placed) -> str:
    return f"{DOCS_DIR}/{doc_page_name(op)}"


def history(module: str) -> str:
    """GE's history registry export of a module."""
    return f"history/{module}/operators.json"


# --- outside the output tree -------------------------------------------------


def author_path(op: OpSpec, scaffold_dir: str) -> Path:
    """Where the author's module for ``op`` lives: ``impl.author``, or
    ``<scaffold_dir>/<module>/<stem>.py``, under the project root (Note
    [Project root]); an absolute ``scaffold_dir`` stands on its own."""
    return author_path_of(
        op, op.impl.author if op.impl else None, op.project, scaffold_dir
    )


def author_path_of(
    op: Placed, author: str | None, project: Path, scaffold_dir: str
) -> Path:
    """``author_path`` from the parts it reads (an op's facts have them)."""
    if author:
        return project / author
    return project / scaffold_dir / op.module / f"{op.file_stem}.py"


def starter_spec(spec_dir: Path, op_type: str) -> Path:
    """Where ``gen-ops new`` writes the starter spec of ``op_type``."""
    return spec_dir / f"{file_stem(op_type)}.yaml"


# --- the C and C++ ES API (gen_esb's file names, docs/es-c-cpp.md) -------------


def es_include(name: str) -> str:
    """An ES header (``es_<Op>_c.h``, ``es_<Op>.h``, ``es_<m>_ops.h``, ...):
    one directory for every module, as gen_esb writes them, since they
    include one another by bare name (op types are unique across specs)."""
    return f"es/include/{name}"


def es_source(name: str) -> str:
    """An ES source, ``es_<Op>.cpp``."""
    return f"es/src/{name}"
