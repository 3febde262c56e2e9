"""What one op contributes to files it shares with other ops.

A module's ``__init__.py`` files, aggregate header, proto source, history
export, and the docs index are rendered from every member's ``OpFacts``,
never from the models themselves: so a run that renders only the ops whose
spec changed (Note [Render cache] in ``render_cache``) renders those shared
files from the facts it kept for the others, and gets the same bytes as a
run that loaded every spec. Facts are plain data that survive a JSON round
trip unchanged (``to_json`` / ``from_json``); this module holds the data
only, and ``targets.facts_of`` works them out from the lowerings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gen_ops.base.diagnostics import Span


@dataclass(frozen=True)
class OpFacts:
    op_type: str
    module: str
    file_stem: str
    span: Span  # the op's model span (E802 points here)
    exported: tuple[str, ...]  # names ge.es.<module> exports for it
    impl_renders: bool  # it has a ge_impl module (lower_impl.renders)
    has_impl: bool  # it has an author module
    author: str | None  # impl.author as written
    summary: str  # its cell in the docs index
    history: str  # its entry of operators.json, as the file's text has it
    es_unsupported: str | None = None  # why the ES C/C++ API leaves it out

    def to_json(self) -> dict[str, Any]:
        return {
            "op_type": self.op_type,
            "module": self.module,
            "file_stem": self.file_stem,
            "span": [self.span.path, self.span.line, self.span.col],
            "exported": list(self.exported),
            "impl_renders": self.impl_renders,
            "has_impl": self.has_impl,
            "author": self.author,
            "summary": self.summary,
            "history": self.history,
            "es_unsupported": self.es_unsupported,
        }

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> OpFacts:
        """The facts ``to_json`` wrote; KeyError, TypeError or ValueError
        for anything else."""
        path, line, col = data["span"]
        facts = OpFacts(
            op_type=str(data["op_type"]),
            module=str(data["module"]),
            file_stem=str(data["file_stem"]),
            span=Span(str(path), int(line), int(col)),
            exported=tuple(str(name) for name in data["exported"]),
            impl_renders=bool(data["impl_renders"]),
            has_impl=bool(data["has_impl"]),
            author=None if data["author"] is None else str(data["author"]),
            summary=str(data["summary"]),
            history=str(data["history"]),
            es_unsupported=(
                None if data["es_unsupported"] is None else str(data["es_unsupported"])
            ),
        )
        return facts


def by_module(ops: Iterable[OpFacts]) -> list[tuple[str, list[OpFacts]]]:
    """The ops of each module, modules in sorted order, each one's ops in
    the order given."""
    members: dict[str, list[OpFacts]] = {}
    for op in ops:
        members.setdefault(op.module, []).append(op)
    return sorted(members.items())
