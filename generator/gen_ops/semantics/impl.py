"""impl (E7xx): capabilities, the kernel's launch arguments (or a foreign
library's call arguments), and the author module's path."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from ge_ir.attrs import AttrType
from gen_ops.base.charset import describe, invisible
from gen_ops.base.diagnostics import suggest
from gen_ops.semantics.context import Checker
from gen_ops.spec.model import (
    Attr,
    Capability,
    Impl,
    Input,
    InputKind,
    LaunchArg,
    LaunchArgKind,
    Library,
    Output,
)
from gen_ops.spec.source import YamlPath

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
    library = _library(ctx, data, inputs, outputs)
    _check_consistent(ctx, data, caps)
    if "author" in data:
        _check_author(ctx, data["author"])
    return Impl(
        capabilities=tuple(c for c in Capability if c in caps),
        kernel=data.get("kernel"),
        launch_args=launch_args,
        author=data.get("author"),
        library=library,
    )


def _library(
    ctx: Checker, data: dict[str, Any], inputs: list[Input], outputs: list[Output]
) -> Library | None:
    """impl.library: E701 for a call argument naming nothing, E705 for one
    that is not exactly one tensor, or a tensor passed twice."""
    if "library" not in data:
        return None
    by_input = {i.name: i for i in inputs}
    by_output = {o.name: o for o in outputs}
    result = []
    seen: set[tuple[str, str]] = set()
    for i, item in enumerate(data["library"]["call_args"]):
        ((key, value),) = item.items()
        where: YamlPath = ("impl", "library", "call_args", i, key)
        known = by_input if key == "input" else by_output
        if value not in known:
            ctx.report(
                "E701",
                where,
                f"call argument {i} names {key} '{value}', which does not exist",
                suggest(value, known)
                or f"{key}s of {ctx.op}: {', '.join(sorted(known)) or 'none'}",
            )
            continue
        problem = _call_arg_problem(key, value, by_input, by_output, seen)
        if problem is not None:
            ctx.report(
                "E705",
                where,
                f"call argument {i} ({key} '{value}') {problem}",
                "a library's call takes one pointer per required input or "
                "non-dynamic output, each once",
            )
            continue
        seen.add((key, value))
        result.append(LaunchArg(LaunchArgKind(key), name=value))
    return Library(data["library"].get("function", "call"), tuple(result))


def _call_arg_problem(
    key: str,
    value: str,
    by_input: dict[str, Input],
    by_output: dict[str, Output],
    seen: set[tuple[str, str]],
) -> str | None:
    if (key, value) in seen:
        return "is passed twice"
    if key == "input" and by_input[value].kind is InputKind.OPTIONAL:
        return "is optional; the call has no way to say it is absent"
    if key == "input" and by_input[value].kind is InputKind.DYNAMIC:
        return "is a dynamic input, a list of tensors, not one pointer"
    if key == "output" and by_output[value].dynamic:
        return "is a dynamic output, a list of tensors, not one pointer"
    return None


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
    if "library" in data:
        _check_library_consistent(ctx, data, caps)
    if data.get("launch_args") and "kernel" not in data:
        ctx.report(
            "E703",
            ("impl", "launch_args"),
            "launch_args are given but impl names no kernel",
            "add `kernel: <function name in the kernel binary>`",
        )


def _check_library_consistent(
    ctx: Checker, data: dict[str, Any], caps: set[Capability]
) -> None:
    """E703: a library replaces kernel and launch_args, and runs through
    declare_launch_args (never execute)."""
    for key in ("kernel", "launch_args"):
        if key in data:
            ctx.report(
                "E703",
                ("impl", key),
                f"impl gives both library and {key}",
                f"remove {key}: library.call_args says how the library is called",
            )
    if Capability.DECLARE_LAUNCH_ARGS not in caps or Capability.EXECUTE in caps:
        ctx.report(
            "E703",
            ("impl", "library"),
            "library is given but capabilities are not declare_launch_args "
            "(with compile or without), without execute",
            "write capabilities: [compile, declare_launch_args]; the runtime "
            "launches the library natively",
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
