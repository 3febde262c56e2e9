"""Errors of compiling and running graphs; messages name the node."""

from __future__ import annotations


class CompileError(RuntimeError):
    """A graph cannot be compiled (the message names the node and says why)."""


class ExecuteError(RuntimeError):
    """A compiled graph failed while running."""


def describe(exc: BaseException) -> str:
    """An exception as one line: its type (unless it is one of the errors
    ge-atc documents), message and notes (which say what was being done)."""
    text = str(exc)
    if not isinstance(exc, (OSError, ValueError, TypeError, CompileError)):
        text = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    notes = [n for n in getattr(exc, "__notes__", ()) if isinstance(n, str)]
    if notes:
        text += " (" + "; ".join(notes) + ")"
    return " ".join(line.strip() for line in text.splitlines() if line.strip())
