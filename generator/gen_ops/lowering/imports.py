"""The imports of a generated Python module, collected where names are chosen.

A lowering that decides to write a name (an annotation, a base class, a
call through a module alias) records the import that name needs here, at
that point; nothing reads generated text to guess its imports. The template
prints the lines (``templates/python/imports.j2``) in the order isort's
default profile gives them: the standard library first, then everything
else; in each section ``import m`` lines sorted by module, then ``from m
import ...`` lines sorted by module, a module's aliased names each on a line
of its own after its plain names.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class ImportLine:
    """``import module [as alias]`` when ``names`` is empty, else ``from
    module import names`` (one name when it has an ``alias``)."""

    module: str
    names: tuple[str, ...] = ()
    alias: str | None = None


# Note [Names an op type could hide]: the names a generated module's imports
# bind that have an op type's shape, which is any identifier GE's REG_OP
# accepts, lower-case ones included (``phony_1i_1o``) (E304 asks the lowerings only for an op
# type among these, or one ending in Base, the shape of the implementation
# base an author module imports, <Op>Base). ``Imports`` refuses to record any
# other such name, so a new import cannot slip past the check unseen.
OP_TYPE_SHAPED = frozenset(
    {
        "Any",
        "DataType",
        "Graph",
        "GraphBuilder",
        "GraphTensor",
        "LaunchConfig",
        "NamedAttrs",
        "NamedTuple",
        "Sequence",
        "Tensor",
        "TensorDesc",
        "TensorHolder",
        "TensorLike",
        "_api",
        "_b",
        "_cop",
        "_infer",
        "_rt",
        "_types",
        "abc",
        "register_op",
        "register_op_impl",
    }
)
_OP_TYPE_SHAPE = re.compile(r"_?[A-Za-z][A-Za-z0-9_]*")


def may_be_imported(op_type: str) -> bool:
    """Whether a generated module could import a name spelled ``op_type``."""
    return op_type in OP_TYPE_SHAPED or op_type.endswith("Base")


def _bindable(bound: str) -> None:
    if _OP_TYPE_SHAPE.fullmatch(bound) and not may_be_imported(bound):
        raise AssertionError(
            f"import binds {bound!r}: add it to imports.OP_TYPE_SHAPED "
            "(Note [Names an op type could hide])"
        )


class NameRecorder(Protocol):
    """Where a lowering records the ``from module import name`` it needs."""

    def name(self, module: str, name: str, alias: str | None = None) -> None: ...


class Imports:
    """Collects what one generated module imports."""

    def __init__(self) -> None:
        self._modules: set[tuple[str, str | None]] = set()
        self._names: set[tuple[str, str, str | None]] = set()

    def module(self, module: str, alias: str | None = None) -> None:
        """``import module [as alias]``."""
        _bindable(alias or module.split(".")[0])
        self._modules.add((module, alias))

    def name(self, module: str, name: str, alias: str | None = None) -> None:
        """``from module import name [as alias]``."""
        _bindable(alias or name)
        self._names.add((module, name, alias))

    def sections(self) -> tuple[tuple[ImportLine, ...], ...]:
        """The import lines, by section; empty sections left out."""
        return tuple(
            lines
            for lines in (self._lines(stdlib=True), self._lines(stdlib=False))
            if lines
        )

    def _lines(self, stdlib: bool) -> tuple[ImportLine, ...]:
        def wanted(module: str) -> bool:
            return _is_stdlib(module) == stdlib

        lines = [
            ImportLine(module, alias=alias)
            for module, alias in sorted(self._modules, key=_by_module)
            if wanted(module)
        ]
        for module in sorted({m for m, _, _ in self._names if wanted(m)}):
            plain = sorted(n for m, n, a in self._names if m == module and a is None)
            if plain:
                lines.append(ImportLine(module, tuple(plain)))
            aliased = sorted(
                (n, a) for m, n, a in self._names if m == module and a is not None
            )
            lines += [ImportLine(module, (n,), a) for n, a in aliased]
        return tuple(lines)


def bound_names(sections: tuple[tuple[ImportLine, ...], ...]) -> frozenset[str]:
    """The names these import lines bind in the module that holds them."""
    names: set[str] = set()
    for lines in sections:
        for line in lines:
            if not line.names:
                names.add(line.alias or line.module.split(".")[0])
            elif line.alias is not None:
                names.add(line.alias)
            else:
                names.update(line.names)
    return frozenset(names)


def _by_module(item: tuple[str, str | None]) -> tuple[str, str]:
    return item[0], item[1] or ""


def _is_stdlib(module: str) -> bool:
    return module.split(".")[0] in sys.stdlib_module_names


class Both:
    """Records each name in two modules' imports: for code that both the
    generated module and the author's scaffold spell (abstract methods)."""

    def __init__(self, first: Imports, second: Imports) -> None:
        self._targets = (first, second)

    def name(self, module: str, name: str, alias: str | None = None) -> None:
        for imports in self._targets:
            imports.name(module, name, alias)
