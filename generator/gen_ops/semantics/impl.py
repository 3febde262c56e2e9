"""impl (E7xx): capabilities, the kernel's launch arguments, and the author
module's path."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from ge_ir.attrs import AttrType
from gen_ops.charset import describe, invisible
from gen_ops.diagnostics import suggest
from gen_ops.model import (
    Attr,
    Capability,
    Impl,
    Input,
    LaunchArg,
    LaunchArgKind,
    Output,
)
from gen_ops.semantics.context import Checker
from gen_ops.source import YamlPath

# Attr types a launch argument can pass by value in one 64-bit slot.
_SCALAR_ATTRS = {AttrType.INT, AttrType.FLOAT, AttrType.BOOL, AttrType.DTYPE}


def impl(
    ctx: Checker, inputs: list[Input], outputs: list[Output], attrs: list[Attr]
) -> Impl | None:
    """The spec's impl: capabilities in GE's order, launch arguments that
    name what exists and fit a slot, and an author path inside the project."""
    if "impl" not in ctx.data:
        return None
    data = ctx.data["impl"]
    caps = {Capability(c) for c in data["capabilities"]}
    launch_args = _launch_args(ctx, data, inputs, outputs, attrs)
    _check_consistent(ctx, data, caps)
    if "author" in data:
        _check_author(ctx, data["author"])
    return Impl(
        capabilities=tuple(c for c in Capability if c in caps),
        kernel=data.get("kernel"),
        launch_args=launch_args,
        author=data.get("author"),
    )


def _launch_args(
    ctx: Checker,
    data: dict[str, Any],
    inputs: list[Input],
    outputs: list[Output],
    attrs: list[Attr],
) -> tuple[LaunchArg, ...]:
    """E701 for a slot naming nothing, E702 for an attr no slot can hold."""
    by_attr = {a.name: a for a in attrs}
    known = {
        LaunchArgKind.INPUT: {i.name for i in inputs},
        LaunchArgKind.OUTPUT: {o.name for o in outputs},
        LaunchArgKind.ATTR: set(by_attr),
    }
    result = []
    for i, item in enumerate(data.get("launch_args", [])):
        ((key, value),) = item.items()
        where: YamlPath = ("impl", "launch_args", i, key)
        kind = LaunchArgKind(key)
        if kind is LaunchArgKind.WORKSPACE:
            result.append(LaunchArg(kind, size=value))
            continue
        if value not in known[kind]:
            ctx.report(
                "E701",
                where,
                f"launch argument {i} names {key} '{value}', which does not exist",
                suggest(value, known[kind])
                or f"{key}s of {ctx.op}: {', '.join(sorted(known[kind])) or 'none'}",
            )
            continue
        if kind is LaunchArgKind.ATTR and by_attr[value].type not in _SCALAR_ATTRS:
            ctx.report(
                "E702",
                where,
                f"attr '{value}' is {by_attr[value].type.value}; only int, float, "
                "bool and dtype attrs fit a 64-bit argument slot",
                "pass the data through an input or a workspace instead",
            )
            continue
        result.append(LaunchArg(kind, name=value))
    return tuple(result)


def _check_consistent(
    ctx: Checker, data: dict[str, Any], caps: set[Capability]
) -> None:
    """E703: launch_args need declare_launch_args and a kernel; compile alone
    cannot run an op."""
    if data.get("launch_args") and Capability.DECLARE_LAUNCH_ARGS not in caps:
        ctx.report(
            "E703",
            ("impl", "launch_args"),
            "launch_args are given but capabilities lack declare_launch_args",
            "add declare_launch_args to capabilities",
        )
    if caps == {Capability.COMPILE}:
        ctx.report(
            "E703",
            ("impl", "capabilities"),
            "compile alone cannot run the op",
            "add execute or declare_launch_args to capabilities",
        )
    if data.get("launch_args") and "kernel" not in data:
        ctx.report(
            "E703",
            ("impl", "launch_args"),
            "launch_args are given but impl names no kernel",
            "add `kernel: <function name in the kernel binary>`",
        )


def _author_problem(path: str) -> str | None:
    """Why ``path`` could leave the project (Note [Project root]), or None:
    it must be relative, POSIX, without "..", with nothing invisible."""
    bad = invisible(path)
    if bad is not None:
        return f"holds {describe(bad)}"
    if path.startswith(("/", "~")) or re.match(r"[A-Za-z]:", path):
        return "is an absolute path"
    if "\\" in path:
        return "uses \\; write paths with /"
    if ".." in PurePosixPath(path).parts:
        return "climbs out of the project with '..'"
    return None


def _check_author(ctx: Checker, path: str) -> None:
    """E704: impl.author stays inside the project."""
    problem = _author_problem(path)
    if problem is not None:
        ctx.report(
            "E704",
            ("impl", "author"),
            f"impl.author {path!r} {problem}",
            "write a path relative to the project root (the directory of the "
            "nearest pyproject.toml, or the parent of the specs directory), "
            "e.g. ops/custom/my_op.py",
        )
