"""Files gen-ops writes once and then leaves to the author: the implementation
module of an op, and a starter spec (``gen-ops new``)."""

from __future__ import annotations

from pathlib import Path

from gen_ops.base.resources import SCHEMA_COPY, schema_reference, schema_text
from gen_ops.emit.pyformat import format_python
from gen_ops.emit.render import render
from gen_ops.emit.transaction import TEMP_PREFIX, WriteError, write_atomic
from gen_ops.lowering import layout
from gen_ops.lowering.layout import author_path, file_stem
from gen_ops.lowering.layout import starter_spec as starter_spec_path
from gen_ops.lowering.lower_impl import lower as lower_impl
from gen_ops.spec.model import OpSpec


def author_module(op: OpSpec) -> str:
    """The scaffold of ``op``'s implementation module."""
    return format_python(
        render(
            "python/author.py.j2",
            m=lower_impl(op),
            impl_module=layout.impl_import_name(op),
        )
    )


class OutsideProject(Exception):
    """An author module would land outside its project (a symlink leads out)."""

    def __init__(self, path: Path, project: Path) -> None:
        super().__init__(f"{path} resolves outside the project {project}")
        self.path = path
        self.project = project


def scaffold_authors(ops: list[OpSpec], scaffold_dir: str) -> list[Path]:
    """Write the author module of every op with an impl that has none yet;
    the paths written. Existing files are never touched. A module whose path,
    followed through symlinks, leaves its project root is refused
    (OutsideProject) before anything is written; ``impl.author`` cannot say
    so itself (E704), a symlink in the tree can."""
    todo = []
    for op in ops:
        if op.impl is None:
            continue
        path = author_path(op, scaffold_dir)
        if path.exists():
            continue
        if not Path(scaffold_dir).is_absolute() or op.impl.author:
            if not path.resolve().is_relative_to(op.project.resolve()):
                raise OutsideProject(path, op.project)
        todo.append((op, path))
    for op, path in todo:
        try:
            _remove_stale_temps(path)
            write_atomic(path, author_module(op))
        except OSError as exc:
            raise WriteError(path, exc.strerror or str(exc), changed=True) from None
    return [path for _, path in todo]


def _remove_stale_temps(path: Path) -> None:
    """Temporary files an interrupted scaffold of ``path`` left beside it."""
    if path.parent.is_dir():
        for stale in path.parent.glob(f"{TEMP_PREFIX}{path.name}.*"):
            stale.unlink(missing_ok=True)


def author_paths(ops: list[OpSpec], scaffold_dir: str) -> list[Path]:
    return [author_path(op, scaffold_dir) for op in ops if op.impl is not None]


def starter_spec(op_type: str, module: str, spec_dir: Path) -> tuple[Path, str]:
    """(path, text) of a starter spec for ``gen-ops new``. Its schema line
    names the copy of the schema beside it (``schema_copy``), so it stays
    right when ge-ops moves to another environment."""
    text = render(
        "spec/new_op.yaml.j2",
        op_type=op_type,
        module=module,
        stem=file_stem(op_type),
        schema_path=schema_reference(0),
    )
    return starter_spec_path(spec_dir, op_type), text


def schema_copy(spec_dir: Path) -> Path | None:
    """Write the JSON Schema beside the specs, for editors, unless it is
    there already with the same text; the path written, if any."""
    path = spec_dir / SCHEMA_COPY
    text = schema_text()
    try:
        if path.read_text(encoding="utf-8") == text:
            return None
    except (OSError, UnicodeDecodeError):
        pass
    write_atomic(path, text)
    return path
