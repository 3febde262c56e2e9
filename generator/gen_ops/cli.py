"""The ``gen-ops`` console entry point (pyproject's ``gen-ops``, and
``python -m gen_ops``). The commands are ``gen_ops.commands``, one module
each (Note [Command layer]); ``commands.runner`` runs them and says how a
run ends. See docs/cli.md."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """``gen-ops``: the exit status of the command ``argv`` (default: the
    process's arguments) names."""
    from gen_ops.commands.runner import main as run

    return run(sys.argv[1:] if argv is None else argv)
