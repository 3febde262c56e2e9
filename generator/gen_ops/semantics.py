"""Meaning checks on structurally valid specs, and construction of the model.

Every rule about what a spec may say beyond its shape lives here: names,
dtypes, defaults, count/derive/infer_meta rules, launch arguments, and the
checks across specs. Problems are collected, never raised; a spec with an
error yields no model.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from ge_ir.names import RESERVED_MODULE_NAMES, RESERVED_NODE_TYPES
from ge_ir.attrs import AttrType, check_attr_value
from ge_ir.named_attrs import NamedAttrs
from ge_ir.types import NAMED_TENSOR_TYPES, DataType, dtype_from_spec_name
from ge_ir.types import dtype_spec_names

from gen_ops.charset import describe as describe_char
from gen_ops.charset import invisible, invisible_in_doc
from gen_ops.diagnostics import Severity, Sink, Span
from gen_ops.model import (
    Attr,
    Capability,
    CountKind,
    CountRule,
    Default,
    DeriveKind,
    DeriveRule,
    DtypeConstraint,
    DtypeKind,
    DtypeRule,
    DtypeRuleKind,
    Impl,
    InferOutput,
    Input,
    InputKind,
    LaunchArg,
    LaunchArgKind,
    OpSpec,
    Output,
    ShapeKind,
    ShapeRule,
    Subgraph,
    TypeVar,
)
from gen_ops.names import (
    CPP_KEYWORDS,
    PYTHON_MODULE_NAMES,
    exported_names,
    PYTHON_KEYWORDS,
    ROLE_PREFIX,
    python_names,
    snake_case,
)
from gen_ops.reg_op import GE_TYPE_NAMES, member_clashes
from gen_ops.rules import RuleSyntaxError, parse_call
from gen_ops.source import LoadedSpec, Path_

DEFAULT_MODULE = "custom"


# Attr types whose only default is "empty".
_EMPTY_ONLY = {
    AttrType.TENSOR: None,
    AttrType.NAMED_ATTRS: None,
    AttrType.LIST_TENSOR: (),
    AttrType.LIST_NAMED_ATTRS: (),
}
# Attr types a launch argument can pass by value in one 64-bit slot.
_SCALAR_ATTRS = {AttrType.INT, AttrType.FLOAT, AttrType.BOOL, AttrType.DTYPE}


def _expand_indent(line: str) -> str:
    body = line.lstrip(" \t")
    return line[: len(line) - len(body)].expandtabs() + body


def _suggest(word: str, choices: Iterable[str]) -> str | None:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None


class _OpChecker:
    """Checks one spec and builds its OpSpec."""

    def __init__(self, spec: LoadedSpec, sink: Sink) -> None:
        self.spec = spec
        self.data: dict[str, Any] = spec.data
        self.src = spec.source
        self.sink = sink
        self.op = self.data["op"]
        self.errors_before = sum(1 for d in sink.items if d.severity.value == "error")

    # -- helpers -----------------------------------------------------------

    def at(self, *where: str | int) -> Span:
        return self.src.at(tuple(where))

    def error(
        self, code: str, where: Path_, message: str, hint: str | None = None
    ) -> None:
        self.sink.emit(code, self.src.at(where), f"{self.op}: {message}", hint)

    def failed(self) -> bool:
        return (
            sum(1 for d in self.sink.items if d.severity is Severity.ERROR)
            > self.errors_before
        )

    def doc(self, where: Path_) -> str:
        node: Any = self.data
        for part in where:
            node = node[part]
        text = str(node)
        bad = invisible_in_doc(text)  # Note [Invisible characters]
        if bad is not None:
            self.error(
                "E303",
                where,
                f"text holds {describe_char(bad)}",
                "remove it; docs may use newlines and tabs, and no other "
                "invisible or reordering character",
            )
        # Trailing spaces carry no meaning, and leading tabs are expanded as
        # black expands them in docstrings, so docs read the same everywhere.
        return "\n".join(
            _expand_indent(line.rstrip()) for line in text.split("\n")
        ).strip()

    def maybe_doc(self, item: dict[str, Any], where: Path_) -> str:
        return self.doc(where + ("doc",)) if "doc" in item else ""

    # -- the spec ----------------------------------------------------------

    def run(self) -> OpSpec | None:
        data = self.data
        module = data.get("module", DEFAULT_MODULE)
        if module in PYTHON_KEYWORDS:
            self.error(
                "E304",
                ("module",),
                f"module '{module}' is a Python keyword; "
                f"'from ge.es.{module} import ...' would not parse",
                "choose another module name",
            )
        elif module in RESERVED_MODULE_NAMES:
            self.error(
                "E304",
                ("module",),
                f"module '{module}' is taken by the runtime (ge.es.{module})",
                "choose another module name",
            )
        if self.op in RESERVED_NODE_TYPES:
            self.error(
                "E308",
                ("op",),
                f"op type '{self.op}' is a node type the runtime itself creates or "
                "treats specially (" + ", ".join(sorted(RESERVED_NODE_TYPES)) + ")",
                f"choose another op type, e.g. {self.op}Custom",
            )
        elif self.op in PYTHON_KEYWORDS:
            self.error(
                "E304",
                ("op",),
                f"op type '{self.op}' is a Python keyword; the builder function "
                "could not be defined",
                "choose another op type",
            )
        elif self.op in PYTHON_MODULE_NAMES or self.op in GE_TYPE_NAMES:
            self.error(
                "E304",
                ("op",),
                f"op type '{self.op}' is a name the generated "
                + (
                    "Python module imports"
                    if self.op in PYTHON_MODULE_NAMES
                    else "REG_OP code uses (GE's C++ API)"
                ),
                "choose another op type",
            )
        doc = self.doc(("doc",)) if "doc" in data else ""
        type_vars = self.type_vars()
        inputs = self.inputs(type_vars)
        attrs_raw = list(enumerate(data.get("attrs", [])))
        attr_types = {a["name"]: AttrType(a["type"]) for _, a in attrs_raw}
        outputs = self.outputs(type_vars, inputs, attr_types)
        attrs = self.attrs(inputs)
        graphs = self.graphs()
        self.unused_type_vars(type_vars)
        infer = self.infer_meta(inputs, outputs, attrs)
        impl = self.impl(inputs, outputs, attrs)
        if infer is not None or impl is not None:
            for i, attr in enumerate(attrs):
                if attr.name in PYTHON_KEYWORDS or (
                    impl is not None and attr.name == "self"
                ):
                    self.error(
                        "E304",
                        ("attrs", i, "name"),
                        f"attr '{attr.name}' is "
                        + (
                            "a Python keyword"
                            if attr.name in PYTHON_KEYWORDS
                            else "self, the implementation's own parameter"
                        )
                        + "; register_op and register_op_impl bind attrs by name, "
                        "so no prototype or implementation method could take it",
                        "rename the attr (the op can keep it only without "
                        "infer_meta and impl)",
                    )
        if self.failed():
            return None
        op = OpSpec(
            op_type=self.op,
            module=module,
            doc=doc,
            since=data.get("since"),
            deprecated=data.get("deprecated"),
            type_vars=tuple(type_vars.values()),
            inputs=tuple(inputs),
            outputs=tuple(outputs),
            attrs=tuple(attrs),
            graphs=tuple(graphs),
            infer_meta=infer,
            impl=impl,
            source=self.spec.path,
            label=self.spec.label or self.spec.path,
            file_stem=snake_case(self.op),
            span=self.at("op"),
            project=self.spec.project,
        )
        self.naming_notes(op)
        self.reg_op_clashes(op)
        return op

    def reg_op_clashes(self, op: OpSpec) -> None:
        """E306/E307: members GE's REG_OP would declare twice, or that are
        system macros (see gen_ops.reg_op)."""
        for member, item, other in member_clashes(op):
            span = getattr(item, "span", op.span)
            if other.startswith("a macro"):
                self.sink.emit(
                    "E307",
                    span,
                    f"{self.op}: REG_OP would declare '{member}', which the C/C++ "
                    "system headers define as a macro",
                    "rename it",
                )
            else:
                self.sink.emit(
                    "E306",
                    span,
                    f"{self.op}: REG_OP would declare '{member}' twice (also for "
                    f"{other})",
                    "rename one of the two",
                )

    # -- dtypes ------------------------------------------------------------

    def dtype_names(self, names: str | list[str], where: Path_) -> tuple[DataType, ...]:
        """Resolve one dtype name (at ``where``) or a list of them."""
        items = (
            [(names, where)]
            if isinstance(names, str)
            else [(name, where + (i,)) for i, name in enumerate(names)]
        )
        found: set[DataType] = set()
        for name, place in items:
            try:
                found.add(dtype_from_spec_name(name))
            except KeyError:
                hint = (
                    f"'{name}' is a named set; a named set stands alone, "
                    "not inside a list"
                    if name in NAMED_TENSOR_TYPES
                    else _suggest(name, dtype_spec_names())
                    or "dtype names are lower-case: float32, int64, bfloat16, ..."
                )
                self.error("E401", place, f"unknown dtype '{name}'", hint)
        return tuple(sorted(found))

    def type_vars(self) -> dict[str, TypeVar]:
        result: dict[str, TypeVar] = {}
        for name, value in self.data.get("dtypes", {}).items():
            where: Path_ = ("dtypes", name)
            if name in NAMED_TENSOR_TYPES or name in dtype_spec_names():
                self.sink.emit(
                    "E403",
                    self.src.key(where),
                    f"{self.op}: type variable '{name}' has the name of a "
                    + ("named set" if name in NAMED_TENSOR_TYPES else "dtype"),
                    "rename the type variable (e.g. T, T1, TIndex)",
                )
                continue
            if isinstance(value, str) and value in NAMED_TENSOR_TYPES:
                dtypes = tuple(sorted(NAMED_TENSOR_TYPES[value].types))
                result[name] = TypeVar(name, dtypes, value, self.src.key(where))
            else:
                dtypes = self.dtype_names(value, where)
                result[name] = TypeVar(name, dtypes, None, self.src.key(where))
        return result

    def constraint(
        self, value: str | list[str], where: Path_, type_vars: dict[str, TypeVar]
    ) -> DtypeConstraint:
        if isinstance(value, list):
            return DtypeConstraint(DtypeKind.LIST, self.dtype_names(value, where))
        if value in type_vars:
            var = type_vars[value]
            return DtypeConstraint(DtypeKind.VAR, var.dtypes, value, var.set_name)
        if value in NAMED_TENSOR_TYPES:
            dtypes = tuple(sorted(NAMED_TENSOR_TYPES[value].types))
            return DtypeConstraint(DtypeKind.SET, dtypes, value)
        try:
            return DtypeConstraint(DtypeKind.LIST, (dtype_from_spec_name(value),))
        except KeyError:
            pass
        choices = list(type_vars) + list(NAMED_TENSOR_TYPES) + list(dtype_spec_names())
        self.error(
            "E402",
            where,
            f"'{value}' is not a type variable, named set or dtype",
            _suggest(value, choices)
            or (
                f"declare it under dtypes, e.g. dtypes: {{{value}: [float32]}}"
                if value[:1].isupper()
                else None
            ),
        )
        return DtypeConstraint(DtypeKind.LIST, ())

    def unused_type_vars(self, type_vars: dict[str, TypeVar]) -> None:
        used = {
            item["dtype"]
            for key in ("inputs", "outputs")
            for item in self.data.get(key, [])
            if isinstance(item["dtype"], str)
        }
        for name, var in type_vars.items():
            if name not in used:
                self.sink.emit(
                    "W903",
                    var.span,
                    f"{self.op}: type variable '{name}' is not used by any input "
                    "or output",
                    "remove it or use it as a dtype",
                )

    # -- inputs, outputs, attrs, graphs -------------------------------------

    def unique(self, key: str) -> None:
        seen: dict[str, int] = {}
        for i, item in enumerate(self.data.get(key, [])):
            name = item["name"]
            if name in seen:
                self.error(
                    "E301",
                    (key, i, "name"),
                    f"{key[:-1]} '{name}' is declared twice (also {key}[{seen[name]}])",
                    "give each a distinct name",
                )
            else:
                seen[name] = i

    def inputs(self, type_vars: dict[str, TypeVar]) -> list[Input]:
        self.unique("inputs")
        result = []
        for i, item in enumerate(self.data.get("inputs", [])):
            where: Path_ = ("inputs", i)
            optional, dynamic = item.get("optional", False), item.get("dynamic", False)
            if optional and dynamic:
                self.error(
                    "E305",
                    where + ("dynamic",),
                    f"input '{item['name']}' cannot be both optional and dynamic",
                    "a dynamic input may simply have zero instances; drop optional",
                )
            kind = (
                InputKind.DYNAMIC
                if dynamic
                else InputKind.OPTIONAL if optional else InputKind.REQUIRED
            )
            result.append(
                Input(
                    name=item["name"],
                    kind=kind,
                    dtype=self.constraint(item["dtype"], where + ("dtype",), type_vars),
                    doc=self.maybe_doc(item, where),
                    span=self.at(*where, "name"),
                )
            )
        return result

    def outputs(
        self,
        type_vars: dict[str, TypeVar],
        inputs: list[Input],
        attr_types: dict[str, AttrType],
    ) -> list[Output]:
        self.unique("outputs")
        by_name = {i.name: i for i in inputs}
        result = []
        for i, item in enumerate(self.data.get("outputs", [])):
            where: Path_ = ("outputs", i)
            name, dynamic = item["name"], item.get("dynamic", False)
            ref = by_name.get(name)
            if ref is not None and (ref.kind is InputKind.DYNAMIC) != dynamic:
                self.error(
                    "E603",
                    where + ("name",),
                    f"output '{name}' is named like input '{name}' (a ref pair) but "
                    "only one of them is dynamic",
                    "rename the output, or make both dynamic or neither",
                )
            count = None
            if "count" in item:
                if not dynamic:
                    self.error(
                        "E605",
                        where + ("count",),
                        f"output '{name}' has a count rule but is not dynamic",
                        "add dynamic: true or remove count",
                    )
                else:
                    count = self.count_rule(
                        item["count"], where + ("count",), by_name, attr_types
                    )
            result.append(
                Output(
                    name=name,
                    dynamic=dynamic,
                    count=count,
                    dtype=self.constraint(item["dtype"], where + ("dtype",), type_vars),
                    doc=self.maybe_doc(item, where),
                    span=self.at(*where, "name"),
                    ref_input=name if ref is not None else None,
                )
            )
        return result

    def call(
        self, text: str, where: Path_, allowed: dict[str, tuple[int, int | None]]
    ) -> tuple[str, tuple[str, ...]] | None:
        try:
            call = parse_call(text, allowed)
        except RuleSyntaxError as exc:
            self.error("E601", where, str(exc))
            return None
        return call.func, call.args

    def count_rule(
        self,
        text: str,
        where: Path_,
        inputs: dict[str, Input],
        attr_types: dict[str, AttrType],
    ) -> CountRule | None:
        parsed = self.call(text, where, {"len": (1, 1), "attr": (1, 1)})
        if parsed is None:
            return None
        func, (ref,) = parsed
        if func == "len":
            if ref not in inputs:
                self.error(
                    "E602",
                    where,
                    f"count rule names unknown input '{ref}'",
                    _suggest(ref, inputs),
                )
                return None
            if inputs[ref].kind is not InputKind.DYNAMIC:
                self.error(
                    "E603",
                    where,
                    f"len({ref}) needs a dynamic input; "
                    f"'{ref}' is {inputs[ref].kind.value}",
                )
                return None
            return CountRule(CountKind.LEN, ref)
        if ref not in attr_types:
            self.error(
                "E602",
                where,
                f"count rule names unknown attr '{ref}'",
                _suggest(ref, attr_types),
            )
            return None
        if attr_types[ref] is not AttrType.INT:
            self.error(
                "E603",
                where,
                f"attr({ref}) needs an int attr; '{ref}' is "
                f"{attr_types[ref].value}",
            )
            return None
        default = next(
            (a.get("default") for a in self.data.get("attrs", []) if a["name"] == ref),
            None,
        )
        if isinstance(default, int) and not isinstance(default, bool) and default < 0:
            self.error(
                "E603",
                where,
                f"attr({ref}) gives a count, but '{ref}' " f"defaults to {default}",
                "counts are >= 0; change the default",
            )
            return None
        return CountRule(CountKind.ATTR, ref)

    def attrs(self, inputs: list[Input]) -> list[Attr]:
        self.unique("attrs")
        by_name = {i.name: i for i in inputs}
        result = []
        for i, item in enumerate(self.data.get("attrs", [])):
            where: Path_ = ("attrs", i)
            attr_type = AttrType(item["type"])
            default = derive = None
            if "default" in item and "derive" in item:
                self.error(
                    "E502",
                    where + ("derive",),
                    f"attr '{item['name']}' has both a default and a derive rule",
                    "a derived attr is computed; remove the default",
                )
            elif "default" in item:
                default = self.default(attr_type, item["default"], where + ("default",))
            elif "derive" in item:
                derive = self.derive_rule(
                    attr_type, item["derive"], where + ("derive",), by_name
                )
            result.append(
                Attr(
                    name=item["name"],
                    type=attr_type,
                    default=default,
                    derive=derive,
                    doc=self.maybe_doc(item, where),
                    span=self.at(*where, "name"),
                )
            )
        return result

    def default(self, attr_type: AttrType, value: Any, where: Path_) -> Default | None:
        name = self.data["attrs"][where[1]]["name"]

        def bad(reason: str, hint: str | None = None) -> None:
            self.error(
                "E501",
                where,
                f"default of attr '{name}' does not fit {attr_type.value}: {reason}",
                hint,
            )

        if attr_type in _EMPTY_ONLY:
            empty = _EMPTY_ONLY[attr_type]
            if value is None or value == {} or value == []:
                return Default(empty)
            bad(
                f"{attr_type.value} attrs can only default to empty",
                "write `default: null` (or [] for lists), or make the attr required",
            )
            return None
        try:
            converted = self.yaml_to_attr(attr_type, value)
            normalised = check_attr_value(attr_type, converted)
        except (TypeError, ValueError, KeyError) as exc:
            message = str(exc.args[0]) if exc.args else str(exc)
            bad(message, self.default_hint(attr_type, value))
            return None
        text = self.src.text(where) if attr_type is AttrType.FLOAT else None
        if attr_type is AttrType.LIST_FLOAT:
            texts = [self.src.text(where + (i,)) for i in range(len(value))]
            text = "\x1f".join(t or "" for t in texts)
        return Default(normalised, text)

    @staticmethod
    def default_hint(attr_type: AttrType, value: Any) -> str | None:
        if attr_type is AttrType.LIST_DTYPE and not isinstance(value, list):
            return "write a list, e.g. [float32]"
        if attr_type in (AttrType.DTYPE, AttrType.LIST_DTYPE):
            word = value if isinstance(value, str) else None
            return (_suggest(word, dtype_spec_names()) if word else None) or (
                "dtypes are written by name: float32, int64, ..."
            )
        if attr_type is AttrType.FLOAT and isinstance(value, str):
            try:
                float(value)
            except ValueError:
                return "write a number, e.g. 1.0 (YAML reads .inf and .nan too)"
            return "write the number unquoted"
        return None

    @staticmethod
    def yaml_to_attr(attr_type: AttrType, value: Any) -> Any:
        """YAML spellings that differ from Python values: dtypes by name,
        bytes as text or !!binary."""
        if attr_type is AttrType.DTYPE:
            if not isinstance(value, str):
                raise TypeError(f"expected a dtype name, got {type(value).__name__}")
            try:
                return dtype_from_spec_name(value)
            except KeyError:
                raise ValueError(f"unknown dtype '{value}'") from None
        if attr_type is AttrType.LIST_DTYPE and isinstance(value, list):
            return [_OpChecker.yaml_to_attr(AttrType.DTYPE, v) for v in value]
        if attr_type is AttrType.BYTES and isinstance(value, str):
            return value.encode("utf-8")
        return value

    def derive_rule(
        self,
        attr_type: AttrType,
        text: str,
        where: Path_,
        inputs: dict[str, Input],
    ) -> DeriveRule | None:
        parsed = self.call(text, where, {"len": (1, 1), "dtype": (1, 1)})
        if parsed is None:
            return None
        func, (ref,) = parsed
        if ref not in inputs:
            self.error(
                "E602",
                where,
                f"derive rule names unknown input '{ref}'",
                _suggest(ref, inputs),
            )
            return None
        if func == "len":
            if attr_type is not AttrType.INT:
                self.error(
                    "E603",
                    where,
                    f"len({ref}) gives an int; the attr is " f"{attr_type.value}",
                )
                return None
            if inputs[ref].kind is not InputKind.DYNAMIC:
                self.error(
                    "E603",
                    where,
                    f"len({ref}) needs a dynamic input; "
                    f"'{ref}' is {inputs[ref].kind.value}",
                )
                return None
            return DeriveRule(DeriveKind.LEN, ref)
        if attr_type is not AttrType.DTYPE:
            self.error(
                "E603",
                where,
                f"dtype({ref}) gives a dtype; the attr is " f"{attr_type.value}",
            )
            return None
        if inputs[ref].kind is InputKind.OPTIONAL:
            self.error(
                "E603", where, f"dtype({ref}): '{ref}' is optional and may " "be absent"
            )
            return None
        return DeriveRule(DeriveKind.DTYPE, ref)

    def graphs(self) -> list[Subgraph]:
        self.unique("graphs")
        return [
            Subgraph(
                name=item["name"],
                dynamic=item.get("dynamic", False),
                doc=self.maybe_doc(item, ("graphs", i)),
                span=self.at("graphs", i, "name"),
            )
            for i, item in enumerate(self.data.get("graphs", []))
        ]

    def naming_notes(self, op: OpSpec) -> None:
        """Notes for every name the Python builder cannot keep as written
        (the namer decides), and for C++ keywords GE's C/C++ API renames."""
        spans = {
            **{("input", i.name): i.span for i in op.inputs},
            **{("num", o.name): o.span for o in op.outputs},
            **{("output", o.name): o.span for o in op.outputs},
            **{("graph", g.name): g.span for g in op.graphs},
            **{("attr", a.name): a.span for a in op.attrs},
        }
        for rename in python_names(op).renames:
            span = spans[(rename.role, rename.ir_name)]
            role = "output" if rename.role == "num" else rename.role
            if rename.reason == "keyword":
                self.sink.emit(
                    "W901",
                    span,
                    f"{self.op}: {role} '{rename.ir_name}' is a Python keyword; the "
                    f"Python API calls it '{rename.py_name}' (GE's rule)",
                )
            else:
                what = (
                    f"the count parameter of output '{rename.ir_name}'"
                    if rename.role == "num"
                    else f"{role} '{rename.ir_name}'"
                )
                self.sink.emit(
                    "W904",
                    span,
                    f"{self.op}: {what} is called '{rename.py_name}' in the Python "
                    "API, as its name is taken",
                )
        for role, items in (
            ("input", op.inputs),
            ("output", op.outputs),
            ("attr", op.attrs),
            ("graph", op.graphs),
        ):
            for item in items:
                if item.name in CPP_KEYWORDS and item.name not in PYTHON_KEYWORDS:
                    self.sink.emit(
                        "W902",
                        item.span,
                        f"{self.op}: {role} '{item.name}' is a C++ keyword; GE's "
                        f"C/C++ ES API calls it '{ROLE_PREFIX[role]}{item.name}'",
                    )

    # -- infer_meta ----------------------------------------------------------

    def infer_meta(
        self, inputs: list[Input], outputs: list[Output], attrs: list[Attr]
    ) -> tuple[InferOutput, ...] | None:
        if "infer_meta" not in self.data:
            return None
        rules: dict[str, Any] = self.data["infer_meta"]
        by_input = {i.name: i for i in inputs}
        by_attr = {a.name: a for a in attrs}
        by_output = {o.name: o for o in outputs}
        for name in rules:
            if name not in by_output:
                self.sink.emit(
                    "E602",
                    self.src.key(("infer_meta", name)),
                    f"{self.op}: infer_meta names unknown output '{name}'",
                    _suggest(name, by_output),
                )
        missing = [o.name for o in outputs if o.name not in rules]
        if missing:
            self.error(
                "E604",
                ("infer_meta",),
                "infer_meta has no rule for output(s) " + ", ".join(missing),
                "give every output a rule, or drop infer_meta and write it by hand",
            )
        result = []
        for output in outputs:
            if output.name not in rules:
                continue
            rule = rules[output.name]
            where: Path_ = ("infer_meta", output.name)
            shape = dtype = None
            if "shape" in rule:
                shape = self.shape_rule(
                    rule["shape"], where + ("shape",), by_input, by_attr
                )
            if "dtype" in rule:
                dtype = self.dtype_rule(
                    rule["dtype"], where + ("dtype",), by_input, by_attr, output
                )
            # A rule that failed has reported it, and the spec gets no model.
            result.append(InferOutput(output.name, shape, dtype))
        self.partial_infer_needs_impl(
            {name: rule for name, rule in rules.items() if name in by_output}
        )
        return tuple(result)

    def partial_infer_needs_impl(self, rules: dict[str, Any]) -> None:
        """E606: what a rule leaves out, the implementation infers
        (infer_shapes, infer_dtypes), so the op needs an impl."""
        if "impl" in self.data:
            return
        for part, method in (("shape", "infer_shapes"), ("dtype", "infer_dtypes")):
            left = [name for name, rule in rules.items() if rule and part not in rule]
            if left:
                self.sink.emit(
                    "E606",
                    self.src.key(("infer_meta", left[0])),
                    f"{self.op}: infer_meta gives no {part} rule for output(s) "
                    f"{', '.join(left)}, but the op has no impl to infer it",
                    f"add impl (its author module defines {method}), or give "
                    f"{'that output' if len(left) == 1 else 'those outputs'} a "
                    f"{part} rule",
                )

    def shape_rule(
        self,
        value: str | list[int],
        where: Path_,
        inputs: dict[str, Input],
        attrs: dict[str, Attr],
    ) -> ShapeRule | None:
        if isinstance(value, list):
            return ShapeRule(ShapeKind.LITERAL, dims=tuple(value))
        parsed = self.call(
            value, where, {"same_as": (1, 1), "broadcast": (1, None), "attr": (1, 1)}
        )
        if parsed is None:
            return None
        func, refs = parsed
        if func == "attr":
            (ref,) = refs
            if ref not in attrs:
                self.error(
                    "E602",
                    where,
                    f"shape rule names unknown attr '{ref}'",
                    _suggest(ref, attrs),
                )
                return None
            if attrs[ref].type is not AttrType.LIST_INT:
                self.error(
                    "E603",
                    where,
                    f"attr({ref}) as a shape needs a list_int "
                    f"attr; '{ref}' is {attrs[ref].type.value}",
                )
                return None
            return ShapeRule(ShapeKind.ATTR, refs)
        ok = True
        for ref in refs:
            if ref not in inputs:
                self.error(
                    "E602",
                    where,
                    f"shape rule names unknown input '{ref}'",
                    _suggest(ref, inputs),
                )
                ok = False
            elif inputs[ref].kind is InputKind.DYNAMIC and func == "same_as":
                self.error(
                    "E603",
                    where,
                    f"same_as({ref}): '{ref}' is a dynamic "
                    "input, which has no single shape",
                    f"broadcast({ref}) broadcasts all its instances",
                )
                ok = False
            elif func == "same_as" and inputs[ref].kind is InputKind.OPTIONAL:
                self.error(
                    "E603",
                    where,
                    f"same_as({ref}): '{ref}' is optional and " "may be absent",
                    "use broadcast(...), which skips absent "
                    "optional inputs, or a required input",
                )
                ok = False
        if not ok:
            return None
        return ShapeRule(ShapeKind(func), refs)

    def dtype_rule(
        self,
        value: str,
        where: Path_,
        inputs: dict[str, Input],
        attrs: dict[str, Attr],
        output: Output,
    ) -> DtypeRule | None:
        allowed = set(output.dtype.dtypes)
        if "(" in value:
            parsed = self.call(value, where, {"attr": (1, 1)})
            if parsed is None:
                return None
            (ref,) = parsed[1]
            if ref not in attrs:
                self.error(
                    "E602",
                    where,
                    f"dtype rule names unknown attr '{ref}'",
                    _suggest(ref, attrs),
                )
                return None
            if attrs[ref].type is not AttrType.DTYPE:
                self.error(
                    "E603",
                    where,
                    f"attr({ref}) as a dtype needs a dtype "
                    f"attr; '{ref}' is {attrs[ref].type.value}",
                )
                return None
            return DtypeRule(DtypeRuleKind.ATTR, ref=ref)
        if value in inputs:
            source = inputs[value]
            if source.kind is InputKind.OPTIONAL:
                self.error(
                    "E603",
                    where,
                    f"dtype rule uses optional input "
                    f"'{value}', which may be absent",
                )
                return None
            if (
                allowed
                and source.dtype.dtypes
                and not allowed & set(source.dtype.dtypes)
            ):
                self.error(
                    "E603",
                    where,
                    f"output '{output.name}' takes the dtype "
                    f"of '{value}', but their dtype sets do not overlap",
                )
                return None
            return DtypeRule(DtypeRuleKind.INPUT, ref=value)
        try:
            fixed = dtype_from_spec_name(value)
        except KeyError:
            self.error(
                "E602",
                where,
                f"dtype rule '{value}' is neither an input " "nor a dtype name",
                _suggest(value, list(inputs) + list(dtype_spec_names())),
            )
            return None
        if allowed and fixed not in allowed:
            self.error(
                "E603",
                where,
                f"infer_meta gives output '{output.name}' "
                f"dtype {value}, which its dtype constraint does not allow",
            )
            return None
        return DtypeRule(DtypeRuleKind.FIXED, dtype=fixed)

    # -- impl ----------------------------------------------------------------

    def impl(
        self, inputs: list[Input], outputs: list[Output], attrs: list[Attr]
    ) -> Impl | None:
        if "impl" not in self.data:
            return None
        data = self.data["impl"]
        caps = {Capability(c) for c in data["capabilities"]}
        ordered = tuple(c for c in Capability if c in caps)
        by_input = {i.name for i in inputs}
        by_output = {o.name for o in outputs}
        by_attr = {a.name: a for a in attrs}
        launch_args = []
        for i, item in enumerate(data.get("launch_args", [])):
            ((key, value),) = item.items()
            where: Path_ = ("impl", "launch_args", i, key)
            kind = LaunchArgKind(key)
            if kind is LaunchArgKind.WORKSPACE:
                launch_args.append(LaunchArg(kind, size=value))
                continue
            known = {
                LaunchArgKind.INPUT: by_input,
                LaunchArgKind.OUTPUT: by_output,
                LaunchArgKind.ATTR: set(by_attr),
            }[kind]
            if value not in known:
                self.error(
                    "E701",
                    where,
                    f"launch argument {i} names {key} '{value}', which does not exist",
                    _suggest(value, known)
                    or f"{key}s of {self.op}: {', '.join(sorted(known)) or 'none'}",
                )
                continue
            if kind is LaunchArgKind.ATTR and by_attr[value].type not in _SCALAR_ATTRS:
                self.error(
                    "E702",
                    where,
                    f"attr '{value}' is {by_attr[value].type.value}; only int, float, "
                    "bool and dtype attrs fit a 64-bit argument slot",
                    "pass the data through an input or a workspace instead",
                )
                continue
            launch_args.append(LaunchArg(kind, name=value))
        if data.get("launch_args") and Capability.DECLARE_LAUNCH_ARGS not in caps:
            self.error(
                "E703",
                ("impl", "launch_args"),
                "launch_args are given but capabilities lack declare_launch_args",
                "add declare_launch_args to capabilities",
            )
        if caps == {Capability.COMPILE}:
            self.error(
                "E703",
                ("impl", "capabilities"),
                "compile alone cannot run the op",
                "add execute or declare_launch_args to capabilities",
            )
        if data.get("launch_args") and "kernel" not in data:
            self.error(
                "E703",
                ("impl", "launch_args"),
                "launch_args are given but impl names no kernel",
                "add `kernel: <function name in the kernel binary>`",
            )
        if "author" in data:
            self.author(data["author"])
        return Impl(
            capabilities=ordered,
            kernel=data.get("kernel"),
            launch_args=tuple(launch_args),
            author=data.get("author"),
        )

    def author(self, path: str) -> None:
        """E704: impl.author stays inside the project (Note [Project root]):
        relative, POSIX, no "..", nothing invisible."""
        bad = invisible(path)
        parts = PurePosixPath(path).parts
        problem = (
            f"holds {describe_char(bad)}"
            if bad is not None
            else (
                "is an absolute path"
                if path.startswith(("/", "~")) or re.match(r"[A-Za-z]:", path)
                else (
                    "uses \\; write paths with /"
                    if "\\" in path
                    else (
                        "climbs out of the project with '..'" if ".." in parts else None
                    )
                )
            )
        )
        if problem is not None:
            self.error(
                "E704",
                ("impl", "author"),
                f"impl.author {path!r} {problem}",
                "write a path relative to the project root (the directory of the "
                "nearest pyproject.toml, or the parent of the specs directory), "
                "e.g. ops/custom/my_op.py",
            )


def check_spec(spec: LoadedSpec, sink: Sink) -> OpSpec | None:
    """Check one structurally valid spec; its OpSpec, or None on any error."""
    return _OpChecker(spec, sink).run()


def check_across(
    specs: Sequence[LoadedSpec], models: Sequence[OpSpec], sink: Sink
) -> None:
    """Rules between specs: op types are unique, file names do not collide."""
    first: dict[str, LoadedSpec] = {}
    for spec in specs:
        op = spec.data.get("op") if isinstance(spec.data, dict) else None
        if not isinstance(op, str):
            continue
        if op in first:
            other = first[op]
            sink.emit(
                "E801",
                spec.source.at(("op",)),
                f"op type '{op}' is already defined in {other.source.at(('op',))}",
                "op types are unique across all specs; rename one",
            )
        else:
            first[op] = spec
    stems: dict[tuple[str, str], OpSpec] = {}
    exported: dict[tuple[str, str], OpSpec] = {}
    for model in models:
        key = (model.module, model.file_stem)
        if key in stems and stems[key].op_type != model.op_type:
            earlier = stems[key]
            sink.emit(
                "E802",
                model.span,
                f"ops '{earlier.op_type}' and '{model.op_type}' both map to file "
                f"'{model.file_stem}' in module '{model.module}'",
                "rename one op or move it to another module",
            )
        else:
            stems.setdefault(key, model)
        if model.file_stem == f"{model.module}_ops":
            sink.emit(
                "E802",
                model.span,
                f"op '{model.op_type}' maps to file '{model.file_stem}', the name of "
                f"module {model.module}'s aggregate header",
                "rename the op or move it to another module",
            )
        for name in exported_names(model):
            clash = exported.get((model.module, name))
            if clash is not None and clash.op_type != model.op_type:
                sink.emit(
                    "E802",
                    model.span,
                    f"ge.es.{model.module}.{name} would be defined by both "
                    f"'{clash.op_type}' and '{model.op_type}'",
                    "rename one op or move it to another module",
                )
            exported.setdefault((model.module, name), model)


def author_path(spec: OpSpec, scaffold_dir: str) -> Path:
    """Where the author's module for ``spec`` lives: ``impl.author``, or
    ``<scaffold_dir>/<module>/<stem>.py``, under the project root (Note
    [Project root]); an absolute ``scaffold_dir`` stands on its own."""
    if spec.impl and spec.impl.author:
        return spec.project / spec.impl.author
    return spec.project / scaffold_dir / spec.module / f"{spec.file_stem}.py"
