"""Schema-bound signatures of ``execute``, ``compile`` and
``declare_launch_args`` (GE's rules, docs/ge-compat.md, "Schema-bound signatures").

- ``execute(self, <one parameter per IR input>, *, <attrs>)``
- ``compile`` / ``declare_launch_args(self, <inputs>, <outputs>, *, <attrs>) -> None``

Exact parameter count; no ``*args``/``**kwargs``; attrs keyword-only, named
exactly as the IR attrs and in IR order; positional names are free.
Annotations are optional, but when present must be ``Tensor``,
``Optional[Tensor]`` or ``list[Tensor]`` for tensors and the attr's type for
attrs. Checked once, when an implementation meets its prototype.
"""

from __future__ import annotations

import inspect
import types
import typing
from typing import Any

from ge.custom_op._annotations import (
    attr_annotation_text,
    attr_type_of,
    list_inner,
    optional_inner,
)
from ge.custom_op.proto import OpProto
from ge.custom_op.registry import Capability
from ge.graph.graph import InputKind
from ge.runtime.tensor import Tensor

_TENSOR_TEXT = {
    InputKind.REQUIRED: "Tensor",
    InputKind.OPTIONAL: "Optional[Tensor]",
    InputKind.DYNAMIC: "list[Tensor]",
}


def _expected(
    method: Capability, proto: OpProto
) -> tuple[list[InputKind], list[str], list[str]]:
    """(positional kinds, positional texts, attr texts) the method must have."""
    kinds = [i.kind for i in proto.inputs]
    if method is not Capability.EXECUTE:
        kinds += [InputKind.of_output(o.dynamic) for o in proto.outputs]
    texts = [_TENSOR_TEXT[k] for k in kinds]
    attrs = [f"{a.name}: {attr_annotation_text(a.type)}" for a in proto.attrs]
    return kinds, texts, attrs


def _render(positional: list[str], keyword: list[str], returns: str | None) -> str:
    parts = ["self"] + positional + (["*"] + keyword if keyword else [])
    text = ", ".join(parts)
    return f"({text})" + (f" -> {returns}" if returns else "")


def _tensor_ok(kind: InputKind, annotation: Any) -> bool:
    if annotation is inspect.Parameter.empty:
        return True
    if kind is InputKind.REQUIRED:
        return annotation is Tensor
    if kind is InputKind.OPTIONAL:
        return optional_inner(annotation) is Tensor
    return list_inner(annotation) is Tensor


def validate_method(cls: type, method: Capability, proto: OpProto) -> None:
    """TypeError unless ``cls.<method>`` has the schema-bound signature."""
    function = inspect.getattr_static(cls, method)
    if isinstance(function, (staticmethod, classmethod)):
        raise TypeError(
            f"invalid {method} signature for op type {proto.op_type}: it must be a "
            "plain method taking self"
        )
    kinds, texts, attr_texts = _expected(method, proto)
    returns = None if method is Capability.EXECUTE else "None"
    expected = _render([f"{t}" for t in texts], attr_texts, returns)
    try:
        signature = inspect.signature(function)
        hints = typing.get_type_hints(function)
    except (NameError, TypeError, ValueError) as exc:
        raise TypeError(
            f"invalid {method} signature for op type {proto.op_type}: cannot read "
            f"its annotations ({exc})"
        ) from None
    params = list(signature.parameters.values())
    actual = "(" + ", ".join(_params_text(params, hints)) + ")"
    if "return" in hints or signature.return_annotation is not inspect.Signature.empty:
        actual += f" -> {_type_text(hints.get('return', signature.return_annotation))}"

    def fail(reason: str) -> TypeError:
        return TypeError(
            f"invalid {method} signature for op type {proto.op_type}, expected "
            f"{expected}, actual {actual}: {reason}"
        )

    if not params or params[0].kind not in (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    ):
        raise fail("the first parameter must be self")
    rest = params[1:]
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in rest):
        raise fail("*args and **kwargs are not allowed")
    positional = [p for p in rest if p.kind is not p.KEYWORD_ONLY]
    keyword = [p for p in rest if p.kind is p.KEYWORD_ONLY]
    if len(positional) != len(kinds):
        raise fail(
            f"{len(kinds)} positional parameter(s) expected, got {len(positional)}"
        )
    if [p.name for p in keyword] != [a.name for a in proto.attrs]:
        raise fail(
            "attrs must be keyword-only and named as the IR attrs, in IR order: "
            + (", ".join(a.name for a in proto.attrs) or "(none)")
        )
    for param, kind, text in zip(positional, kinds, texts):
        if not _tensor_ok(kind, hints.get(param.name, inspect.Parameter.empty)):
            raise fail(f"parameter '{param.name}' must be annotated {text}")
    for param, attr in zip(keyword, proto.attrs):
        annotation = hints.get(param.name, inspect.Parameter.empty)
        if annotation is inspect.Parameter.empty:
            continue
        inner = optional_inner(annotation)
        if (
            attr_type_of(annotation) is not attr.type
            and attr_type_of(inner) is not attr.type
        ):
            raise fail(
                f"attr '{param.name}' must be annotated {attr_annotation_text(attr.type)}"
            )
    if method is not Capability.EXECUTE:
        declared = hints.get("return", signature.return_annotation)
        if declared is inspect.Signature.empty:
            raise fail("the return annotation -> None is required")
        if declared is not None and declared is not type(None):
            raise fail("it must return None")


def _type_text(annotation: Any) -> str:
    """An annotation as its author wrote it, with short class names
    (``List[Tensor]``, not ``List[ge.runtime.tensor.Tensor]``)."""
    if annotation is inspect.Parameter.empty:
        return "?"
    if annotation is None or annotation is type(None):
        return "None"
    if annotation is Ellipsis:
        return "..."
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is types.UnionType:
        return " | ".join(_type_text(a) for a in args)
    if origin is typing.Union:
        if len(args) == 2 and type(None) in args:
            inner = next(a for a in args if a is not type(None))
            return f"Optional[{_type_text(inner)}]"
        return f"Union[{', '.join(_type_text(a) for a in args)}]"
    if origin is not None and args:
        if isinstance(annotation, types.GenericAlias):
            name = getattr(origin, "__name__", str(origin))  # list[...]
        else:
            name = getattr(annotation, "_name", None) or str(origin)  # List[...]
        return f"{name}[{', '.join(_type_text(a) for a in args)}]"
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def _params_text(params: list[inspect.Parameter], hints: dict[str, Any]) -> list[str]:
    """Each parameter as written, with the bare ``*`` before keyword-only
    parameters that follow no ``*args`` (so the message shows which
    parameters are keyword-only)."""
    texts = []
    starred = False  # a * or *args has been written
    for param in params:
        if param.kind is param.VAR_POSITIONAL:
            starred = True
        elif param.kind is param.KEYWORD_ONLY and not starred:
            texts.append("*")
            starred = True
        texts.append(_param_text(param, hints))
    return texts


def _param_text(param: inspect.Parameter, hints: dict[str, Any]) -> str:
    prefix = ""
    if param.kind is param.VAR_POSITIONAL:
        prefix = "*"
    elif param.kind is param.VAR_KEYWORD:
        prefix = "**"
    text = prefix + param.name
    if param.name in hints:
        text += f": {_type_text(hints[param.name])}"
    return text


def validate_impl(
    cls: type, proto: OpProto, capabilities: tuple[Capability, ...]
) -> None:
    """Check every capability method of ``cls`` against ``proto``."""
    for method in Capability:
        if method in capabilities:
            validate_method(cls, method, proto)
