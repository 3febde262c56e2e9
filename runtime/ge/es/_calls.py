"""Calls written against earlier releases of an op (docs/releases.md,
"Builders that keep old calls"; Note [Calls of earlier releases] in
gen_ops/lowering/call_shapes.py).

A generated builder whose op table names a deprecation or an earlier
parameter name is decorated with ``OpDef.function``, which wraps it here:
the wrapper turns each earlier name into the parameter's current one and
warns. Every warning is a ``DeprecationWarning`` issued at the caller's
line (``stacklevel``), so Python's warning filters show it once per call
site under their ``default`` action (as in ``__main__``, under pytest, or
with ``-W default``); a loop calling the builder warns once.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Renamed:
    """Parameter ``old`` is now ``new``, since ``release`` (a version, or
    ``after <version>`` for a rename no release has recorded yet)."""

    old: str
    new: str
    release: str

    @property
    def when(self) -> str:
        return (
            f"the release {self.release}"
            if self.release.startswith("after ")
            else f"release {self.release}"
        )


@dataclass(frozen=True)
class Deprecated:
    """Parameter ``param`` is deprecated since ``release``."""

    param: str
    release: str


def _warn(message: str) -> None:
    # 3: the caller of the wrapper (_warn, wrapper, caller).
    warnings.warn(message, DeprecationWarning, stacklevel=3)


def wrap(
    fn: F,
    op_type: str,
    deprecated: str | None,
    renamed: tuple[Renamed, ...],
    deprecated_params: tuple[Deprecated, ...],
) -> F:
    """``fn``, taking the earlier names in ``renamed`` and warning about
    them, about the deprecated parameters a call gives a value (None is no
    value) and, when ``deprecated``, about every call."""
    positions = {
        name: i
        for i, (name, p) in enumerate(inspect.signature(fn).parameters.items())
        if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    }
    deprecations = tuple((d, positions.get(d.param)) for d in deprecated_params)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if deprecated is not None:
            _warn(f"{op_type} is deprecated since release {deprecated}")
        for alias in renamed:
            if alias.old not in kwargs:
                continue
            at = positions.get(alias.new)
            if alias.new in kwargs or (at is not None and at < len(args)):
                raise TypeError(
                    f"{op_type}() got parameter '{alias.new}' twice: also as "
                    f"'{alias.old}', its name until {alias.when}; pass "
                    f"{alias.new}= only"
                )
            _warn(
                f"{op_type}: parameter '{alias.old}' was renamed to '{alias.new}' "
                f"in {alias.when}; pass {alias.new}="
            )
            kwargs[alias.new] = kwargs.pop(alias.old)
        for item, at in deprecations:
            value = kwargs.get(item.param)
            if value is None and at is not None and at < len(args):
                value = args[at]
            if value is not None:
                _warn(
                    f"{op_type}: parameter '{item.param}' is deprecated since "
                    f"release {item.release}"
                )
        return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
