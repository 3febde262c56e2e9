"""What a run produces: output files, each of one target family."""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass


class Target(enum.Enum):
    """Output families; ``--only`` picks among them."""

    PYTHON = "python"  # ge.es builders
    CPP = "cpp"  # REG_OP headers, aggregate, proto .cc
    IMPL = "impl"  # register_op prototypes and register_op_impl bases
    DOCS = "docs"  # reference pages and the operators.json export
    ES = "es"  # GE's C and C++ ES API (gen_esb's es_<Op>_c.h, .cpp, .h)


@dataclass(frozen=True)
class OutputFile:
    path: str  # POSIX path relative to the output directory
    target: Target
    content: str


@dataclass(frozen=True)
class Shared:
    """A file several ops share, not yet rendered: its path, the module whose
    ops it is rendered from (None: it is rendered from every op, or from
    none), and how to render it. A run that kept a module's ops may keep
    its files too (Note [Render cache])."""

    path: str
    module: str | None
    render: Callable[[], str]
