"""Errors of compiling and running graphs; messages name the node."""

from __future__ import annotations


class CompileError(RuntimeError):
    """A graph cannot be compiled (the message names the node and says why)."""


class ExecuteError(RuntimeError):
    """A compiled graph failed while running."""
