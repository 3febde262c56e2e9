"""Reporting a problem of one declaration: located, prefixed with the op."""

from __future__ import annotations

from dataclasses import dataclass

from gen_ops.base.diagnostics import CODES, Severity, Sink
from gen_ops.importer.lexer import SourceText


@dataclass
class OpReporter:
    """Emits the diagnostics of one op (``Op: message``) at offsets of its
    header, and remembers whether one was an error: then the op is not
    imported."""

    source: SourceText
    sink: Sink
    op: str
    failed: bool = False

    def __call__(
        self, code: str, offset: int, message: str, hint: str | None = None
    ) -> None:
        self.sink.emit(code, self.source.span(offset), f"{self.op}: {message}", hint)
        if CODES[code].severity is Severity.ERROR:
            self.failed = True
