"""``register_op``: a function whose signature is an op's prototype.

Rules (GE's, docs/ge-compat.md, "register_op"): positional parameters are the inputs
(``TensorDesc`` required, ``Optional[TensorDesc]`` optional,
``List[TensorDesc]`` dynamic; annotated, no defaults); keyword-only
parameters are the attrs (a default makes the attr optional and must have
exactly the annotated type); the return annotation gives the outputs.
Outputs are named output0, output1, ... unless ``mutates_args`` binds them to
inputs or ``output_names`` (an extension of this runtime) names them.
"""

from __future__ import annotations

import inspect
import keyword
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ge.custom_op import sink
from ge.custom_op._annotations import (
    attr_type_of,
    list_inner,
    optional_inner,
    tuple_items,
)
from ge.custom_op.registry import LOCK, source_location
from ge.graph.attrs import AttrType, check_attr_value
from ge.graph.graph import InputKind
from ge.graph.types import DataType
from ge_ir import elementwise as elementwise_expr
from ge_ir.dtype_rules import DtypeRules
from ge_ir.elementwise import Expr
from ge_ir.names import is_op_type

__all__ = [
    "OpProto",
    "ProtoInput",
    "ProtoOutput",
    "ProtoAttr",
    "register_op",
    "get_registered_op_protos",
    "get_registered_op_proto_dicts",
    "get_registered_op_proto_by_descriptor_key",
    "get_registered_op_proto_by_op_type",
    "clear_registered_op_protos",
]

_MISSING = object()


@dataclass(frozen=True)
class ProtoInput:
    name: str
    kind: InputKind


@dataclass(frozen=True)
class ProtoOutput:
    name: str
    dynamic: bool
    ref_input: str | None = None
    # Note [Reuse input] (ge/engine/reuse.py): the input whose memory this
    # output may take (register_op's reuse_inputs).
    reuse_input: str | None = None


@dataclass(frozen=True)
class ProtoAttr:
    name: str
    type: AttrType
    required: bool
    default: Any = None  # None with required False: optional, no value

    def key(self) -> tuple[Any, ...]:
        return (self.name, self.type, self.required, repr(self.default))


@dataclass(frozen=True, eq=False)
class OpProto:
    """One registered prototype (an op's IR as Python sees it)."""

    op_type: str
    inputs: tuple[ProtoInput, ...]
    outputs: tuple[ProtoOutput, ...]
    attrs: tuple[ProtoAttr, ...]
    descriptor_key: str
    source: str  # file:line of the function
    infer_meta: Callable[..., Any] = field(repr=False)
    returns_tuple: bool = False
    # Note [Dtype rules travel with the op] (ge_ir/dtype_rules.py).
    dtype_rules: DtypeRules | None = None
    # Note [Element-wise expressions] (ge_ir/elementwise.py): what one output
    # element is, when the op declares it (register_op's elementwise).
    elementwise: Expr | None = None

    def content(self) -> tuple[Any, ...]:
        return (
            self.op_type,
            self.inputs,
            self.outputs,
            tuple(a.key() for a in self.attrs),
            self.returns_tuple,
            self.dtype_rules,
            self.elementwise,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "descriptor_key": self.descriptor_key,
            "op_type": self.op_type,
            "inputs": [{"name": i.name, "kind": i.kind.value} for i in self.inputs],
            "outputs": [_output_dict(o) for o in self.outputs],
            "attrs": [
                {
                    "name": a.name,
                    "type": a.type.value_type.name,
                    "required": a.required,
                }
                for a in self.attrs
            ],
            "source": self.source,
        }


def _output_dict(output: ProtoOutput) -> dict[str, Any]:
    """An output as ``as_dict`` lists it: GE's keys, and ``reuse_input``
    (this project's) only where the prototype declares one."""
    entry: dict[str, Any] = {
        "name": output.name,
        "dynamic": output.dynamic,
        "ref_input": output.ref_input,
    }
    if output.reuse_input is not None:
        entry["reuse_input"] = output.reuse_input
    return entry


def _source(fn: Callable[..., Any]) -> str:
    return source_location(fn) or (
        f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', '?')}"
    )


class _Registry:
    """Prototypes by op type. ``staging`` (used while loading plugins) makes a
    batch of registrations land together or not at all."""

    def __init__(self) -> None:
        self.lock = LOCK  # shared with the implementation registry
        self.by_type: dict[str, OpProto] = {}

    def add(self, proto: OpProto) -> OpProto:
        with self.lock:
            existing = self.by_type.get(proto.op_type)
            if existing is not None:
                same_function = (
                    existing.descriptor_key == proto.descriptor_key
                    or existing.source == proto.source
                )
                if same_function and existing.content() == proto.content():
                    # Identical re-registration: the module imported again, maybe
                    # under another name (the plugin loader's). Idempotent.
                    return existing
                raise ValueError(
                    f"register_op op_type '{proto.op_type}' failed: already "
                    f"registered by {existing.descriptor_key} ({existing.source}); "
                    f"conflicting registration by {proto.descriptor_key} ({proto.source})"
                )
            self.by_type[proto.op_type] = proto
            return proto


REGISTRY = _Registry()


def _fail(op_type: str, message: str, error: type[Exception] = TypeError) -> Exception:
    return error(f"register_op op_type '{op_type}' failed: {message}")


def _is_tensor_desc(annotation: Any) -> bool:
    from ge.runtime.types import TensorDesc

    return annotation is TensorDesc


def _input_kind(op_type: str, name: str, annotation: Any) -> InputKind:
    if annotation is inspect.Parameter.empty:
        raise _fail(
            op_type,
            f"input '{name}' needs an annotation (TensorDesc, "
            "Optional[TensorDesc] or List[TensorDesc])",
        )
    if _is_tensor_desc(annotation):
        return InputKind.REQUIRED
    if _is_tensor_desc(optional_inner(annotation)):
        return InputKind.OPTIONAL
    if _is_tensor_desc(list_inner(annotation)):
        return InputKind.DYNAMIC
    raise _fail(
        op_type,
        f"input '{name}' is annotated {annotation!r}; inputs are "
        "TensorDesc, Optional[TensorDesc] or List[TensorDesc]",
    )


def _attr(op_type: str, param: inspect.Parameter, annotation: Any) -> ProtoAttr:
    name = param.name
    if annotation is inspect.Parameter.empty:
        raise _fail(op_type, f"attr '{name}' needs an annotation")
    optional = optional_inner(annotation)
    kind = attr_type_of(optional if optional is not None else annotation)
    if kind is None:
        raise _fail(
            op_type,
            f"attr '{name}' is annotated {annotation!r}, which is " "not an attr type",
        )
    default = param.default
    if default is inspect.Parameter.empty:
        if optional is not None:
            raise _fail(op_type, f"attr '{name}' is Optional but has no default None")
        return ProtoAttr(name, kind, required=True)
    if default is None:
        if optional is None and kind not in (AttrType.TENSOR, AttrType.NAMED_ATTRS):
            raise _fail(
                op_type,
                f"attr '{name}' defaults to None; annotate it "
                f"Optional[...] to make it an attr without a value",
            )
        return ProtoAttr(name, kind, required=False, default=None)
    _check_default_type(op_type, name, kind, default)
    try:
        value = check_attr_value(kind, default)
    except (TypeError, ValueError) as exc:
        raise _fail(op_type, f"default of attr '{name}': {exc}", ValueError) from None
    return ProtoAttr(name, kind, required=False, default=value)


def _check_default_type(op_type: str, name: str, kind: AttrType, value: Any) -> None:
    """GE's rule: a default has exactly the annotated type (1 is not a float).
    Lists may be given as tuples (immutable defaults)."""
    element = kind.element
    if element is not None:
        if not isinstance(value, (list, tuple)):
            raise _fail(
                op_type,
                f"default of attr '{name}' must be a list, got "
                f"{type(value).__name__}",
                ValueError,
            )
        for item in value:
            _check_default_type(op_type, name, element, item)
        return
    expected = {
        AttrType.INT: int,
        AttrType.FLOAT: float,
        AttrType.BOOL: bool,
        AttrType.STR: str,
        AttrType.BYTES: bytes,
        AttrType.DTYPE: DataType,
    }.get(kind)
    if kind in (AttrType.TENSOR, AttrType.NAMED_ATTRS):
        raise _fail(
            op_type,
            f"attr '{name}' ({kind.value}) may only default to None",
            ValueError,
        )
    if expected is not None and type(value) is not expected:
        raise _fail(
            op_type,
            f"default of attr '{name}' must be {expected.__name__}, "
            f"got {type(value).__name__}",
            ValueError,
        )
    if kind is AttrType.DTYPE and value is DataType.DT_MAX:
        raise _fail(
            op_type, f"default of attr '{name}' cannot be DataType.DT_MAX", ValueError
        )


def _outputs(op_type: str, annotation: Any) -> tuple[list[bool], bool]:
    """(dynamic flag per output, whether the function returns a tuple)."""
    if annotation is inspect.Parameter.empty:
        raise _fail(
            op_type,
            "the return annotation is required (None, TensorDesc, "
            "List[TensorDesc] or a Tuple of them)",
        )
    if annotation is None or annotation is type(None):
        return [], False
    items = tuple_items(annotation)
    if items is not None:
        flags = []
        for item in items:
            if _is_tensor_desc(item):
                flags.append(False)
            elif _is_tensor_desc(list_inner(item)):
                flags.append(True)
            else:
                raise _fail(
                    op_type,
                    f"tuple item {item!r} is not TensorDesc or " "List[TensorDesc]",
                )
        return flags, True
    if _is_tensor_desc(annotation):
        return [False], False
    if _is_tensor_desc(list_inner(annotation)):
        return [True], False
    raise _fail(
        op_type,
        f"return annotation {annotation!r} is not None, TensorDesc, "
        "List[TensorDesc] or a Tuple of them",
    )


def _output_names(
    op_type: str,
    inputs: list[ProtoInput],
    dynamic: list[bool],
    mutates_args: Sequence[Any],
    output_names: Sequence[str] | None,
) -> list[ProtoOutput]:
    count = len(dynamic)
    input_names = [i.name for i in inputs]
    refs: dict[int, str] = {}
    if mutates_args:
        if not isinstance(mutates_args, (list, tuple)):
            raise _fail(op_type, "mutates_args must be a tuple", ValueError)
        explicit = [isinstance(m, (list, tuple)) for m in mutates_args]
        if any(explicit) and not all(explicit):
            raise _fail(
                op_type,
                "mutates_args mixes the sequential and explicit forms",
                ValueError,
            )
        if all(explicit) and any(len(m) != 2 for m in mutates_args):
            bad = next(m for m in mutates_args if len(m) != 2)
            raise _fail(
                op_type,
                f"mutates_args item {bad!r} is not an (input name, output index) pair",
                ValueError,
            )
        pairs = (
            [(m[0], m[1]) for m in mutates_args]
            if all(explicit)
            else list(zip(mutates_args, range(len(mutates_args))))
        )
        for name, index in pairs:
            if name not in input_names:
                raise _fail(
                    op_type, f"mutates_args names unknown input {name!r}", ValueError
                )
            if (
                not isinstance(index, int)
                or isinstance(index, bool)
                or not 0 <= index < count
            ):
                raise _fail(
                    op_type,
                    f"mutates_args output index {index!r} is out of "
                    f"range for {count} output(s)",
                    ValueError,
                )
            if index in refs:
                raise _fail(
                    op_type,
                    f"output {index} is bound twice in mutates_args",
                    ValueError,
                )
            refs[index] = name
    if output_names is not None:
        names = list(output_names)
        if len(names) != count:
            raise _fail(
                op_type,
                f"output_names has {len(names)} names for {count} " "output(s)",
                ValueError,
            )
        for name in names:
            if not isinstance(name, str) or not name.isidentifier():
                raise _fail(
                    op_type, f"output name {name!r} is not an identifier", ValueError
                )
        if len(set(names)) != len(names):
            raise _fail(op_type, "output_names repeats a name", ValueError)
    else:
        names = []
        for index in range(count):
            if index in refs:
                names.append(refs[index])
                continue
            name = f"output{index}"
            suffix = 1
            while name in input_names or name in names:
                name = f"output{index}_{suffix}"
                suffix += 1
            names.append(name)
    return [
        ProtoOutput(
            names[i],
            dynamic[i],
            refs.get(i, names[i] if names[i] in input_names else None),
        )
        for i in range(count)
    ]


def _renamed_inputs(
    op_type: str, inputs: list[ProtoInput], names: Sequence[str]
) -> list[ProtoInput]:
    """``input_names``: the IR names of the inputs, in order, where the
    function's parameters had to be named otherwise (an input named like an
    attr, or like a Python keyword)."""
    if isinstance(names, str) or not all(isinstance(n, str) for n in names):
        raise _fail(op_type, "input_names must be a sequence of str")
    names = list(names)
    if len(names) != len(inputs):
        raise _fail(
            op_type,
            f"input_names has {len(names)} names for {len(inputs)} inputs",
            ValueError,
        )
    if len(set(names)) != len(names) or not all(n.isidentifier() for n in names):
        raise _fail(op_type, "input_names must be distinct identifiers", ValueError)
    return [ProtoInput(name, i.kind) for name, i in zip(names, inputs)]


def _reused_inputs(
    op_type: str,
    inputs: list[ProtoInput],
    outputs: list[ProtoOutput],
    reuse: Mapping[str, str],
) -> list[ProtoOutput]:
    """``reuse_inputs``: output name -> the input whose memory it may take
    (Note [Reuse input] in ``ge.engine.reuse``). Both must be single
    tensors, the output not already a ref output, each input taken once."""
    if not isinstance(reuse, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in reuse.items()
    ):
        raise _fail(op_type, "reuse_inputs must be a dict of output name to input name")
    by_input = {i.name: i for i in inputs}
    by_output = {o.name: o for o in outputs}
    taken: dict[str, str] = {}
    for out, name in reuse.items():
        output, source = by_output.get(out), by_input.get(name)
        if output is None:
            raise _fail(
                op_type,
                f"reuse_inputs names output {out!r}, which the prototype does not "
                f"have (outputs: {', '.join(by_output) or 'none'})",
                ValueError,
            )
        if source is None:
            raise _fail(
                op_type,
                f"reuse_inputs: output {out!r} names input {name!r}, which the "
                f"prototype does not have (inputs: {', '.join(by_input) or 'none'})",
                ValueError,
            )
        if output.dynamic or source.kind is InputKind.DYNAMIC:
            raise _fail(
                op_type,
                f"reuse_inputs: output {out!r} and input {name!r} must both be "
                "single tensors (not dynamic)",
                ValueError,
            )
        if output.ref_input is not None:
            raise _fail(
                op_type,
                f"reuse_inputs: output {out!r} is a ref output of input "
                f"{output.ref_input!r}, which shares its memory already",
                ValueError,
            )
        if name in taken:
            raise _fail(
                op_type,
                f"reuse_inputs: outputs {taken[name]!r} and {out!r} both take input "
                f"{name!r}; one input's memory can hold one output",
                ValueError,
            )
        taken[name] = out
    return [replace(o, reuse_input=reuse.get(o.name)) for o in outputs]


def build_proto(
    fn: Callable[..., Any],
    op_type: str,
    mutates_args: Sequence[Any] = (),
    output_names: Sequence[str] | None = None,
    dtype_rules: DtypeRules | None = None,
    input_names: Sequence[str] | None = None,
    reuse_inputs: Mapping[str, str] | None = None,
    elementwise: str | None = None,
) -> OpProto:
    """The prototype a function's signature declares (raises TypeError/ValueError)."""
    if not callable(fn) or inspect.isclass(fn):
        raise _fail(op_type, "register_op decorates a function")
    try:
        signature = inspect.signature(fn)
        hints = typing.get_type_hints(fn)
    except (NameError, TypeError, ValueError) as exc:
        raise _fail(op_type, f"cannot read the annotations: {exc}") from None
    inputs: list[ProtoInput] = []
    attrs: list[ProtoAttr] = []
    for param in signature.parameters.values():
        annotation = hints.get(param.name, inspect.Parameter.empty)
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            stars = "*" if param.kind is param.VAR_POSITIONAL else "**"
            raise _fail(
                op_type,
                f"{stars}{param.name} is not allowed; list each input and attr",
            )
        if param.kind is param.KEYWORD_ONLY:
            attrs.append(_attr(op_type, param, annotation))
            continue
        if param.default is not param.empty:
            raise _fail(
                op_type,
                f"input '{param.name}' has a default; inputs take none "
                "(make it Optional[TensorDesc] for an optional input)",
            )
        inputs.append(
            ProtoInput(param.name, _input_kind(op_type, param.name, annotation))
        )
    if input_names is not None:
        inputs = _renamed_inputs(op_type, inputs, input_names)
    dynamic, returns_tuple = _outputs(
        op_type, hints.get("return", inspect.Parameter.empty)
    )
    outputs = _output_names(op_type, inputs, dynamic, mutates_args, output_names)
    if reuse_inputs is not None:
        outputs = _reused_inputs(op_type, inputs, outputs, reuse_inputs)
    key = (
        f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', '?')}:{op_type}"
    )
    return OpProto(
        op_type=op_type,
        inputs=tuple(inputs),
        outputs=tuple(outputs),
        attrs=tuple(attrs),
        descriptor_key=key,
        source=_source(fn),
        infer_meta=fn,
        returns_tuple=returns_tuple,
        dtype_rules=dtype_rules,
        elementwise=_elementwise(op_type, inputs, outputs, attrs, elementwise),
    )


def _elementwise(
    op_type: str,
    inputs: list[ProtoInput],
    outputs: list[ProtoOutput],
    attrs: list[ProtoAttr],
    text: str | None,
) -> Expr | None:
    """register_op's ``elementwise``, parsed and checked against the
    prototype (Note [Element-wise expressions])."""
    if text is None:
        return None
    if not isinstance(text, str):
        raise _fail(op_type, f"elementwise must be a str, got {type(text).__name__}")
    try:
        expr = elementwise_expr.parse(text)
    except elementwise_expr.ExpressionError as exc:
        raise _fail(op_type, f"elementwise {text!r}: {exc}", ValueError) from None
    if len(outputs) != 1 or outputs[0].dynamic:
        raise _fail(
            op_type, "an element-wise op has one output, not dynamic", ValueError
        )
    if any(i.kind is InputKind.DYNAMIC for i in inputs):
        raise _fail(op_type, "an element-wise op has no dynamic input", ValueError)
    found = elementwise_expr.problems(
        expr,
        {i.name: i.kind is InputKind.OPTIONAL for i in inputs},
        {a.name: a.type.value for a in attrs},
    )
    if found:
        message, hint = found[0]
        raise _fail(op_type, f"elementwise {text!r} {message}; {hint}", ValueError)
    return expr


def register_op(
    *,
    op_type: str,
    mutates_args: Sequence[Any] = (),
    output_names: Sequence[str] | None = None,
    dtype_rules: DtypeRules | None = None,
    input_names: Sequence[str] | None = None,
    reuse_inputs: Mapping[str, str] | None = None,
    elementwise: str | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function as ``op_type``'s prototype and infer_meta.

    ``dtype_rules`` (an addition to GE's signature, as ``output_names`` is)
    gives the dtypes each input and output allows; every graph is checked
    against them at compile (Note [Dtype rules travel with the op]).
    ``input_names`` (an addition too) gives the inputs' IR names where the
    parameters must be named otherwise (an input and an attr of one name, or
    an input named like a Python keyword); ``mutates_args`` then uses them.
    ``reuse_inputs`` (an addition too; GE sets it on an output's tensor desc
    with TensorUtils::SetReuseInput / SetReuseInputIndex) maps an output's
    name to the input whose memory it may take: the kernel tolerates the two
    being one buffer (Note [Reuse input] in ``ge.engine.reuse``).
    ``elementwise`` (an addition too, the spec's ``elementwise:`` key) is
    the op's scalar expression over its inputs and numeric attrs; element-
    wise fusion may then compute the node inside a fused kernel (Note
    [Element-wise expressions] in ``ge_ir.elementwise``)."""
    if not isinstance(op_type, str) or not op_type:
        raise TypeError("register_op: op_type must be a non-empty str")
    if not is_op_type(op_type) or keyword.iskeyword(op_type):
        raise ValueError(
            f"register_op: {op_type!r} is not a valid op type (a letter after "
            "at most one _, then letters, digits and _; not a Python keyword, "
            "which could name no ge.es builder)"
        )

    if dtype_rules is not None and not isinstance(dtype_rules, DtypeRules):
        raise TypeError(
            f"register_op: dtype_rules must be a DtypeRules, got "
            f"{type(dtype_rules).__name__}"
        )

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        proto = build_proto(
            fn,
            op_type,
            mutates_args,
            output_names,
            dtype_rules,
            input_names,
            reuse_inputs,
            elementwise,
        )
        _check_rule_names(proto)
        sink.current().register_proto(proto)
        return fn

    return decorate


def _check_rule_names(proto: OpProto) -> None:
    """Dtype rules may only name the prototype's inputs and outputs."""
    rules = proto.dtype_rules
    if rules is None:
        return
    for kind, names, known in (
        ("input", rules.inputs, {i.name for i in proto.inputs}),
        ("output", rules.outputs, {o.name for o in proto.outputs}),
    ):
        unknown = sorted(set(names) - known)
        if unknown:
            raise _fail(
                proto.op_type,
                f"dtype_rules name {kind} '{unknown[0]}', which the prototype "
                f"does not have",
                ValueError,
            )


def get_registered_op_protos() -> list[OpProto]:
    with REGISTRY.lock:
        return [REGISTRY.by_type[k] for k in sorted(REGISTRY.by_type)]


def get_registered_op_proto_dicts() -> list[dict[str, Any]]:
    return [p.as_dict() for p in get_registered_op_protos()]


def get_registered_op_proto_by_descriptor_key(key: str) -> OpProto | None:
    return next(
        (p for p in get_registered_op_protos() if p.descriptor_key == key), None
    )


def get_registered_op_proto_by_op_type(op_type: str) -> OpProto | None:
    with REGISTRY.lock:
        return REGISTRY.by_type.get(op_type)


def clear_registered_op_protos() -> None:
    """Drop every prototype and forget the modules that registered them at
    import time, so importing them again registers again."""
    with REGISTRY.lock:
        dropped = list(REGISTRY.by_type.values())
        REGISTRY.by_type.clear()
    sink.current().forget_modules(
        [
            (
                getattr(p.infer_meta, "__module__", "") or "",
                getattr(p.infer_meta, "__qualname__", ""),
            )
            for p in dropped
        ]
    )
