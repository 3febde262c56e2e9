"""``--format json``: a command's whole outcome as one JSON document.

Note [JSON output]: every gen-ops command that takes ``--format json``
(render, validate, package, release, compat, changelog) prints exactly one
JSON document on standard output and nothing else, on success and on every
failure (invalid specs, usage errors, write errors, an interrupt, an
internal error). ``runner.main`` (``gen_ops.commands``) alone decides it,
for the commands whose ``Command.json`` says so: it runs the command with
standard output and error captured (``JsonRun``), the diagnostics reported
into the run instead of printed (``report.show``), and then prints
``JsonRun.document``. The document is an object:

- ``version`` (2), ``command``, ``status`` (the exit status) and ``ok``;
- ``diagnostics`` (each with ``file``, ``line``, ``column`` (1-based),
  ``severity``, ``code``, ``message`` and ``hint``, which may be null) and
  the counts ``errors``, ``warnings`` and ``spec_files``;
- ``output``: what the command would have printed on standard output (a
  ``--check`` diff, a changelog, a summary line), as one string;
- ``messages``: the lines it would have printed on standard error.

Text is kept as it is (JSON escapes what needs escaping).
"""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from gen_ops.base.diagnostics import Diagnostic

VERSION = 2


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


@dataclass
class JsonRun:
    """What one command reports while it runs under ``--format json``."""

    command: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    errors: int = 0
    warnings: int = 0
    spec_files: int = 0

    def add(
        self,
        diagnostics: Sequence[Diagnostic],
        errors: int,
        warnings: int,
        spec_files: int,
    ) -> None:
        self.diagnostics.extend(diagnostics)
        self.errors += errors
        self.warnings += warnings
        self.spec_files = max(self.spec_files, spec_files)

    def document(self, status: int, output: str, messages: str) -> str:
        return json.dumps(
            {
                "version": VERSION,
                "command": self.command,
                "status": status,
                "ok": status == 0,
                "diagnostics": [as_dict(d) for d in self.diagnostics],
                "errors": self.errors,
                "warnings": self.warnings,
                "spec_files": self.spec_files,
                "output": output,
                "messages": messages.splitlines(),
            },
            ensure_ascii=False,
        )


_active: JsonRun | None = None


def active() -> JsonRun | None:
    """The run of this ``--format json`` command, if one is running."""
    return _active


@contextlib.contextmanager
def running(run: JsonRun) -> Iterator[JsonRun]:
    global _active
    previous, _active = _active, run
    try:
        yield run
    finally:
        _active = previous


def requested(argv: Sequence[str]) -> bool:
    """Whether ``argv`` asks for ``--format json`` (as argparse reads it:
    ``--format json``, ``--format=json``, an abbreviation; the last wins)."""
    probe = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    probe.add_argument("--format")
    try:
        known, _ = probe.parse_known_args(list(argv))
    except (argparse.ArgumentError, SystemExit):
        return False
    return bool(known.format == "json")
