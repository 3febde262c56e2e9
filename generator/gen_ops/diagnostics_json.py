"""Diagnostics as one JSON document (``--format json``; docs/cli.md).

The document is an object: ``diagnostics`` (each with ``file``, ``line``,
``column`` (1-based), ``severity``, ``code``, ``message`` and ``hint``, which
may be null), and the counts ``errors``, ``warnings`` and ``spec_files``.
Text is kept as it is (JSON escapes what needs escaping).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from gen_ops.diagnostics import Diagnostic

VERSION = 1


def as_dict(diagnostic: Diagnostic) -> dict[str, object]:
    return {
        "file": diagnostic.span.path,
        "line": diagnostic.span.line,
        "column": diagnostic.span.col,
        "severity": diagnostic.severity.value,
        "code": diagnostic.code,
        "message": diagnostic.message,
        "hint": diagnostic.hint,
    }


def document(
    diagnostics: Sequence[Diagnostic], errors: int, warnings: int, spec_files: int
) -> str:
    return json.dumps(
        {
            "version": VERSION,
            "diagnostics": [as_dict(d) for d in diagnostics],
            "errors": errors,
            "warnings": warnings,
            "spec_files": spec_files,
        },
        ensure_ascii=False,
    )
