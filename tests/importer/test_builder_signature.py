"""Every imported op's builder keeps gen_esb's parameter list.

For each REG_OP declaration (the importer's corpus, tests/importer/headers,
and random declarations drawn by hypothesis), this test computes on its own
the parameter list GE's gen_esb gives the op's Python function, following
docs/ge-compat.md ("Builder calling convention", "Names"): names, order,
defaults and the keyword-only marker. It then applies, one by one and each
in its own function below, the differences gen-ops documents
(docs/spec-reference.md section 12, docs/importing.md section 5), and
compares the result with ``inspect.signature`` of the builder gen-ops
generates for the imported spec.

gen_esb's rules, as ge-compat.md states them:

1. the inputs in IR order, named as in the header (a Python keyword gets
   ``in_``); an optional input defaults to None only in the run of optional
   inputs at the end, and only when the op has no dynamic output;
2. ``owner_graph_builder`` for an op without inputs, ``owner_builder`` for
   one whose inputs are all optional (None when an input has a default);
3. ``<output>_num`` per dynamic output; 4. the subgraphs (``subgraph_`` for
   a keyword); 5. ``*``; 6. the required attrs, then the attrs with defaults,
   each in IR order (``attr_`` for a keyword or an input's name), defaults
   converted from the C++ default (None when that fails).

gen-ops' documented differences, applied in ``gen_ops_differences``:
floats as written (gen_esb prints them through ``std::to_string``); lists
as tuples and tensor defaults as None; an optional input followed by a
subgraph gets no default (gen_esb's would not compile); a trailing
keyword-only node name, ``name=None``, or ``node_name=None`` (then
``node_name_2``, ...) when a parameter already is ``name`` (an input
``name`` keeps its name, as in gen_esb); a default the import cannot read
(I305) makes the attr required; ops with named_attrs, list_named_attrs,
list_tensor or bytes attrs, for which gen_esb writes no function, follow the
same convention. Imported specs have no ``count`` or ``derive`` rules, so
every dynamic output keeps its ``_num`` and every attr is a parameter.

The builder is imported from ``ge.es.<module>.<stem>``, the stem computed
here by spec-reference.md's rule (the op type in snake case, a Python
keyword with a trailing ``_``: ``If`` is ``if_``), so a builder written
elsewhere fails too. Every case, corpus and drawn, must give exactly the
expected list; ``test_a_wrong_builder_fails`` shows that a builder that
differs in any one parameter does not pass.
"""

from __future__ import annotations

import inspect
import keyword
import math
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from helpers import import_file, write_tree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ge_ir.attrs import AttrType
from ge_ir.types import DataType, dtype_from_spec_name
from gen_ops import pipeline
from gen_ops.base.diagnostics import Sink
from gen_ops.emit.outputs import Target
from gen_ops.importer import driver
from gen_ops.importer.headers import HeaderFile
from gen_ops.importer.model import ImportedOp, Number, Value

HERE = Path(__file__).resolve().parent
POSITIONAL = inspect.Parameter.POSITIONAL_OR_KEYWORD
KEYWORD = inspect.Parameter.KEYWORD_ONLY
EMPTY = inspect.Parameter.empty


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


REQUIRED = _Marker("REQUIRED")  # REQUIRED_ATTR
UNREADABLE = _Marker("UNREADABLE")  # a default gen_esb cannot convert (I305)
TENSOR = _Marker("Tensor()")  # gen_esb's default object of a Tensor attr
# Attr types gen_esb supports; an op with another one gets no function.
ESB_ATTR_TYPES = frozenset(AttrType) - {
    AttrType.NAMED_ATTRS,
    AttrType.LIST_NAMED_ATTRS,
    AttrType.LIST_TENSOR,
    AttrType.BYTES,
}


# -- a REG_OP declaration, as this test reads it ---------------------------------


@dataclass(frozen=True)
class Input:
    name: str
    kind: str  # INPUT, OPTIONAL_INPUT, DYNAMIC_INPUT


@dataclass(frozen=True)
class Attr:
    name: str
    type: AttrType
    # REQUIRED, UNREADABLE, or the default's value: float, int, bool, str,
    # DataType, None (Tensor(), NamedAttrs()), bytes, or a list of those.
    default: Any = REQUIRED


@dataclass(frozen=True)
class Decl:
    op: str
    inputs: tuple[Input, ...] = ()
    dynamic_outputs: tuple[str, ...] = ()  # names, IR order
    attrs: tuple[Attr, ...] = ()
    graphs: tuple[str, ...] = ()


@dataclass(frozen=True)
class P:
    """One parameter: name, kind, default (EMPTY for none)."""

    name: str
    kind: inspect._ParameterKind
    default: Any = EMPTY


# -- gen_esb's parameter list (docs/ge-compat.md) --------------------------------


def _input_name(name: str) -> str:
    return f"in_{name}" if keyword.iskeyword(name) else name


def _attr_name(name: str, inputs: tuple[Input, ...]) -> str:
    like_input = any(i.name == name for i in inputs)
    return f"attr_{name}" if keyword.iskeyword(name) or like_input else name


def _graph_name(name: str) -> str:
    return f"subgraph_{name}" if keyword.iskeyword(name) else name


def _esb_value(value: Any) -> Any:
    """A default as gen_esb writes it: the C++ value printed, then read as
    Python; floats through std::to_string ("%f")."""
    if isinstance(value, float):
        return float(f"{value:f}")
    if isinstance(value, list):
        return [_esb_value(v) for v in value]
    return value


def _esb_default(attr: Attr) -> Any:
    if attr.default is UNREADABLE:
        return None  # "a default that cannot be converted becomes None"
    if attr.type is AttrType.TENSOR:
        return TENSOR
    return _esb_value(attr.default)


def esb_writes_a_function(decl: Decl) -> bool:
    """gen_esb skips an op with an attr type it does not support."""
    return all(a.type in ESB_ATTR_TYPES for a in decl.attrs)


def gen_esb(decl: Decl) -> list[P]:
    params: list[P] = []
    dynamic_outputs = bool(decl.dynamic_outputs)
    trailing = len(decl.inputs)
    while trailing > 0 and decl.inputs[trailing - 1].kind == "OPTIONAL_INPUT":
        trailing -= 1
    for index, item in enumerate(decl.inputs):
        defaults = index >= trailing and not dynamic_outputs
        params.append(
            P(_input_name(item.name), POSITIONAL, None if defaults else EMPTY)
        )
    if not decl.inputs:
        params.append(P("owner_graph_builder", POSITIONAL))
    elif all(i.kind == "OPTIONAL_INPUT" for i in decl.inputs):
        any_default = any(p.default is None for p in params)
        params.append(P("owner_builder", POSITIONAL, None if any_default else EMPTY))
    params += [P(f"{name}_num", POSITIONAL) for name in decl.dynamic_outputs]
    params += [P(_graph_name(name), POSITIONAL) for name in decl.graphs]
    required = [a for a in decl.attrs if a.default is REQUIRED]
    optional = [a for a in decl.attrs if a.default is not REQUIRED]
    params += [P(_attr_name(a.name, decl.inputs), KEYWORD) for a in required]
    params += [
        P(_attr_name(a.name, decl.inputs), KEYWORD, _esb_default(a)) for a in optional
    ]
    return params


# -- gen-ops' documented differences (spec-reference.md section 12) ---------------


def _as_written(value: Any) -> Any:
    """Float defaults as written, lists as tuples ("Float defaults",
    "Mutable defaults")."""
    if isinstance(value, list):
        return tuple(_as_written(v) for v in value)
    return value


def _our_default(attr: Attr) -> Any:
    """Tensor and named_attrs attrs default to None, lists to tuples
    ("Mutable defaults"); floats are as written, not through std::to_string
    ("Float defaults")."""
    if attr.type in (AttrType.TENSOR, AttrType.NAMED_ATTRS):
        return None
    return _as_written(attr.default)


def gen_ops_differences(decl: Decl, esb: list[P]) -> list[P]:
    """gen_esb's list with gen-ops' documented differences. (An op with an
    attr gen_esb does not support gets no gen_esb function at all:
    "Attr types"; gen-ops gives it the same convention.)"""
    positional = [p for p in esb if p.kind is POSITIONAL]
    # "Optional input defaults": None only where every later positional
    # parameter has a default too (gen_esb gives None before a subgraph,
    # which Python refuses: ge-compat.md, "GE defects we do not copy").
    for index in range(len(positional) - 1, -1, -1):
        later = positional[index + 1 :]
        if positional[index].default is None and any(p.default is EMPTY for p in later):
            positional[index] = P(positional[index].name, POSITIONAL)
    # The keyword-only attrs keep gen_esb's names and order, but a default the
    # import cannot read (I305, importing.md section 5) is not imported: the
    # attr is required, among the required attrs in IR order.
    unset = (REQUIRED, UNREADABLE)
    required = [a for a in decl.attrs if any(a.default is u for u in unset)]
    others = [a for a in decl.attrs if a not in required]
    keywords = [P(_attr_name(a.name, decl.inputs), KEYWORD) for a in required] + [
        P(_attr_name(a.name, decl.inputs), KEYWORD, _our_default(a)) for a in others
    ]
    # "Node names": gen-ops' own keyword, last; it yields to gen_esb's
    # names: ``name`` unless a parameter is called so (ParseExample's input),
    # then the first free one of node_name, node_name_2, ...
    taken = {p.name for p in positional + keywords}
    node_name = "name"
    if node_name in taken:
        node_name, number = "node_name", 2
        while node_name in taken:
            node_name, number = f"node_name_{number}", number + 1
    return positional + keywords + [P(node_name, KEYWORD, None)]


def compare(actual: list[P], decl: Decl) -> None:
    """The builder's parameters are exactly the expected list."""
    expected = expected_of(decl)
    if not same(actual, expected):
        raise AssertionError(f"gen-ops {actual}\nexpected {expected}")


# -- the builder's module (spec-reference.md, "<stem>") ------------------------------

# A word boundary of the op type: lower or digit then upper (AddCustom), or
# an upper that starts a word after an acronym (ABCDef: ABC_Def).
_WORD_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def documented_stem(op_type: str) -> str:
    """The op type in snake case; a Python keyword gets a trailing ``_``."""
    stem = _WORD_BOUNDARY.sub("_", op_type).lower()
    return stem + "_" if keyword.iskeyword(stem) else stem


# -- gen-ops' builder of an imported declaration ---------------------------------


def import_one(header_text: str, work: Path) -> tuple[ImportedOp, str]:
    """The op of a header with one declaration, and its spec's text."""
    path = work / "ops.h"
    path.write_text(header_text, encoding="utf-8")
    result = driver.import_header(
        HeaderFile(path, "ops.h"), "sig", False, work / "specs"
    )
    assert not any(d.severity.value == "error" for d in result.diagnostics), [
        d.format() for d in result.diagnostics
    ]
    (op,) = result.ops
    (text,) = result.texts
    return op, text


def builder_signature(header_text: str, work: Path) -> list[P]:
    """Import the header (one op), render its spec's builder with gen-ops,
    import the builder and read its signature."""
    op, text = import_one(header_text, work)
    return _rendered_signature(op, text, work)


def _rendered_signature(op: ImportedOp, text: str, work: Path) -> list[P]:
    """The signature of the builder gen-ops renders from ``text``, read
    from the module spec-reference.md names (``documented_stem``)."""
    sink = Sink()
    spec = pipeline.check_text(text, "sig/op.yaml", sink)
    assert spec is not None and not sink.has_errors, [d.format() for d in sink.items]
    files = pipeline.render([spec], frozenset({Target.PYTHON}))
    write_tree({f.path: f.content for f in files}, work / "out")
    module = import_file(
        work / "out/python/ge/es" / op.module / f"{documented_stem(op.op_type)}.py"
    )
    signature = inspect.signature(getattr(module, op.op_type))
    return [P(p.name, p.kind, p.default) for p in signature.parameters.values()]


def same(actual: list[P], expected: list[P]) -> bool:
    def key(p: P) -> tuple[str, Any, Any]:
        default = p.default
        if isinstance(default, float) and math.isnan(default):
            default = "nan"
        return (p.name, p.kind, default)

    return [key(p) for p in actual] == [key(p) for p in expected]


def expected_of(decl: Decl) -> list[P]:
    return gen_ops_differences(decl, gen_esb(decl))


# -- the corpus --------------------------------------------------------------------


def _value(kind: AttrType, value: Value) -> Any:
    """An imported default as the C++ value gen_esb would print."""
    if isinstance(value, Number):
        text = value.text.replace(".inf", "inf").replace(".nan", "nan")
        return float(text)
    if isinstance(value, tuple):
        item = AttrType(kind.value.removeprefix("list_")) if kind.is_list else kind
        if kind is AttrType.LIST_LIST_INT:
            item = AttrType.LIST_INT
        return [_value(item, v) for v in value]
    if kind is AttrType.DTYPE and isinstance(value, str):
        # DT_UNDEFINED (importing.md section 12) is a marker, no spec dtype.
        return (
            DataType["DT_" + value.upper()]
            if value == "undefined"
            else (dtype_from_spec_name(value))
        )
    return value


def decl_of(op: ImportedOp) -> Decl:
    """The declaration as the importer read it (its corpus tests pin that)."""
    shape = op.shape
    attrs = []
    for a in shape.attrs:
        if a.dropped is not None:
            default: Any = UNREADABLE
        elif a.default is None:
            default = REQUIRED
        else:
            default = _value(a.type, a.default.value)
        attrs.append(Attr(a.name, a.type, default))
    return Decl(
        shape.op_type,
        tuple(
            Input(
                p.name,
                (
                    "DYNAMIC_INPUT"
                    if p.dynamic
                    else "OPTIONAL_INPUT" if p.optional else "INPUT"
                ),
            )
            for p in shape.inputs
        ),
        tuple(p.name for p in shape.outputs if p.dynamic),
        tuple(attrs),
        tuple(g.name for g in shape.graphs),
    )


def _corpus() -> list[Any]:
    with tempfile.TemporaryDirectory() as nowhere:  # plan writes nothing
        result = driver.plan(
            driver.Options(
                paths=(HERE / "headers",),
                out=Path(nowhere),
                module_per_header=True,
                jobs=1,
            )
        )
    return [
        pytest.param(spec.op, spec.text, id=spec.op.op_type)
        for spec in sorted(result.files, key=lambda f: f.op.op_type)
    ]


@pytest.mark.parametrize("op,text", _corpus())
def test_corpus_builder_has_gen_esbs_parameters(
    op: ImportedOp, text: str, tmp_path: Path
) -> None:
    compare(_rendered_signature(op, text, tmp_path), decl_of(op))


def test_corpus_covers_the_convention() -> None:
    """The corpus holds every part of the convention this test checks."""
    decls = [decl_of(p.values[0]) for p in _corpus()]
    assert any(i.kind == "OPTIONAL_INPUT" for d in decls for i in d.inputs)
    assert any(i.kind == "DYNAMIC_INPUT" for d in decls for i in d.inputs)
    assert any(d.dynamic_outputs for d in decls)
    assert any(d.graphs for d in decls)
    assert any(a.default is REQUIRED for d in decls for a in d.attrs)
    assert any(a.default is UNREADABLE for d in decls for a in d.attrs)
    assert any(isinstance(a.default, float) for d in decls for a in d.attrs)
    assert any(i.name == "name" for d in decls for i in d.inputs)
    # GE's forms: Promote and ListTensorType (MulDemo, IdentityNDemo), a
    # leading _ (_IfDemo, _kernel), keyword file stems (If), Shape.
    ops = {d.op for d in decls}
    assert {"MulDemo", "IdentityNDemo", "_IfDemo", "If", "Shape"} <= ops
    assert any(a.name.startswith("_") for d in decls for a in d.attrs)


# -- random declarations ------------------------------------------------------------

_PY_KEYWORDS = ["lambda", "from", "class", "def", "pass", "with"]
# Each attr type's defaults: (C++ text, the value it means).
_TYPES: dict[AttrType, list[tuple[str, Any]]] = {
    AttrType.INT: [("-1", -1), ("0", 0), ("1024", 1024)],
    AttrType.FLOAT: [("1.0", 1.0), ("0.1", 0.1), ("1e-8", 1e-8), ("-2.5f", -2.5)],
    AttrType.BOOL: [("true", True), ("false", False)],
    AttrType.STR: [('"adam"', "adam"), ('""', ""), ('"a\\tb"', "a\tb")],
    AttrType.DTYPE: [
        ("DT_FLOAT", DataType.DT_FLOAT),
        ("ge::DT_INT64", DataType.DT_INT64),
    ],
    AttrType.TENSOR: [("Tensor()", None)],
    AttrType.LIST_INT: [("{}", []), ("{1, 2}", [1, 2])],
    AttrType.LIST_FLOAT: [("{0.5, 1.0}", [0.5, 1.0]), ("{0.1}", [0.1])],
    AttrType.LIST_BOOL: [("{true, false}", [True, False])],
    AttrType.LIST_STR: [('{"a", "b"}', ["a", "b"])],
    AttrType.LIST_DTYPE: [
        ("{DT_FLOAT, DT_BF16}", [DataType.DT_FLOAT, DataType.DT_BF16])
    ],
    AttrType.LIST_LIST_INT: [("{{1, 2}, {}}", [[1, 2], []])],
    AttrType.BYTES: [("{0x61, 0x62}", b"ab")],
    AttrType.LIST_TENSOR: [("{}", [])],
    AttrType.NAMED_ATTRS: [("NamedAttrs()", None)],
    AttrType.LIST_NAMED_ATTRS: [("{}", [])],
}


@dataclass(frozen=True)
class Drawn:
    decl: Decl
    header: str


@st.composite
def declarations(
    draw: st.DrawFn, inputs: str = "some", input_named_name: bool = False
) -> Drawn:
    """A REG_OP declaration and its header. ``inputs``: "some" (at least one,
    not all optional), "none", or "optional" (all optional)."""
    lines: list[str] = []
    ins: list[Input] = []
    count = 0 if inputs == "none" else draw(st.integers(1, 4))
    names = draw(
        st.lists(
            st.sampled_from([f"x{i}" for i in range(6)] + _PY_KEYWORDS),
            min_size=count,
            max_size=count,
            unique=True,
        )
    )
    if input_named_name:
        names[draw(st.integers(0, count - 1))] = "name"
    for name in names:
        if inputs == "optional":
            kind = "OPTIONAL_INPUT"
        else:
            kind = draw(st.sampled_from(["INPUT", "OPTIONAL_INPUT", "DYNAMIC_INPUT"]))
        ins.append(Input(name, kind))
    if inputs == "some" and all(i.kind == "OPTIONAL_INPUT" for i in ins):
        ins[0] = Input(ins[0].name, "INPUT")
    lines += [f".{i.kind}({i.name}, TensorType({{DT_FLOAT}}))" for i in ins]
    outputs = draw(st.lists(st.booleans(), max_size=3))
    dynamic = tuple(f"y{i}" for i, d in enumerate(outputs) if d)
    lines += [
        f".{'DYNAMIC_OUTPUT' if d else 'OUTPUT'}(y{i}, TensorType({{DT_FLOAT}}))"
        for i, d in enumerate(outputs)
    ]
    attrs: list[Attr] = []
    attr_names = draw(
        st.lists(
            st.sampled_from(
                [f"a{i}" for i in range(6)]
                + ["if", "global", "for", "node_name"]
                + [i.name for i in ins if i.name != "name"]
            ),
            max_size=5,
            unique=True,
        )
    )
    for name in attr_names:
        attr_type = draw(st.sampled_from(sorted(_TYPES, key=lambda t: t.value)))
        if draw(st.booleans()):
            attrs.append(Attr(name, attr_type))
            lines.append(f".REQUIRED_ATTR({name}, {attr_type.ir_name})")
        else:
            text, value = draw(st.sampled_from(_TYPES[attr_type]))
            attrs.append(Attr(name, attr_type, value))
            lines.append(f".ATTR({name}, {attr_type.ir_name}, {text})")
    graphs = draw(
        st.lists(
            st.sampled_from(["g0", "g1", "else", "while"]), max_size=2, unique=True
        )
    )
    lines += [
        f".{'DYNAMIC_GRAPH' if draw(st.booleans()) else 'GRAPH'}({g})" for g in graphs
    ]
    op = "Op" + draw(st.from_regex(r"[A-Z][a-z]{0,5}", fullmatch=True))
    chain = "".join(f"    {line}\n" for line in lines)
    header = (
        f"namespace ge {{\nREG_OP({op})\n{chain}    .OP_END_FACTORY_REG({op})\n"
        "}  // namespace ge\n"
    )
    decl = Decl(op, tuple(ins), dynamic, tuple(attrs), tuple(graphs))
    return Drawn(decl, header)


SETTINGS = settings(
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def _check(drawn: Drawn, work: Path) -> None:
    compare(builder_signature(drawn.header, work), drawn.decl)


@SETTINGS
@given(drawn=declarations())
def test_random_declaration_builder_has_gen_esbs_parameters(
    drawn: Drawn, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _check(drawn, tmp_path_factory.mktemp("sig"))


@SETTINGS
@given(drawn=declarations(inputs="optional"))
def test_random_all_optional_declaration(
    drawn: Drawn, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _check(drawn, tmp_path_factory.mktemp("sig"))


@SETTINGS
@given(drawn=declarations(inputs="none"))
def test_random_declaration_without_inputs(
    drawn: Drawn, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _check(drawn, tmp_path_factory.mktemp("sig"))


@SETTINGS
@given(drawn=declarations(input_named_name=True))
def test_random_declaration_with_an_input_named_name(
    drawn: Drawn, tmp_path_factory: pytest.TempPathFactory
) -> None:
    _check(drawn, tmp_path_factory.mktemp("sig"))


# -- the rules themselves, on fixed declarations -------------------------------------

ESB_CASES: list[tuple[Decl, list[P]]] = [
    (
        # An optional input defaults only at the end of the inputs, and
        # never with a dynamic output.
        Decl(
            "A",
            (
                Input("x", "OPTIONAL_INPUT"),
                Input("y", "INPUT"),
                Input("b", "OPTIONAL_INPUT"),
            ),
        ),
        [P("x", POSITIONAL), P("y", POSITIONAL), P("b", POSITIONAL, None)],
    ),
    (
        Decl("A", (Input("x", "INPUT"), Input("b", "OPTIONAL_INPUT")), ("ys",)),
        [P("x", POSITIONAL), P("b", POSITIONAL), P("ys_num", POSITIONAL)],
    ),
    (
        Decl("A", (), (), (Attr("a", AttrType.FLOAT, 1e-8),)),
        [P("owner_graph_builder", POSITIONAL), P("a", KEYWORD, 0.0)],
    ),
    (
        Decl(
            "A",
            (Input("class", "OPTIONAL_INPUT"),),
            (),
            (Attr("class", AttrType.INT),),
            ("if",),
        ),
        [
            P("in_class", POSITIONAL, None),
            P("owner_builder", POSITIONAL, None),
            P("subgraph_if", POSITIONAL),
            P("attr_class", KEYWORD),
        ],
    ),
]


@pytest.mark.parametrize("decl,params", ESB_CASES)
def test_gen_esb_rules(decl: Decl, params: list[P]) -> None:
    """What gen_esb gives, by ge-compat.md, for a few declarations (the last
    is one gen_esb writes with a default before a subgraph: Python refuses
    it, and gen-ops differs)."""
    assert gen_esb(decl) == params


def test_documented_differences() -> None:
    decl = Decl(
        "A",
        (Input("x", "INPUT"), Input("b", "OPTIONAL_INPUT")),
        (),
        (
            Attr("f", AttrType.FLOAT, 0.1 + 1e-9),
            Attr("t", AttrType.TENSOR, None),
            Attr("l", AttrType.LIST_INT, [1]),
            Attr("u", AttrType.DTYPE, UNREADABLE),
        ),
        ("g",),
    )
    assert gen_esb(decl) == [
        P("x", POSITIONAL),
        P("b", POSITIONAL, None),
        P("g", POSITIONAL),
        P("f", KEYWORD, 0.1),
        P("t", KEYWORD, TENSOR),
        P("l", KEYWORD, [1]),
        P("u", KEYWORD, None),
    ]
    assert esb_writes_a_function(decl)
    assert not esb_writes_a_function(Decl("B", attrs=(Attr("b", AttrType.BYTES),)))
    assert expected_of(decl) == [
        P("x", POSITIONAL),
        P("b", POSITIONAL),  # a subgraph follows
        P("g", POSITIONAL),
        P("u", KEYWORD),  # I305: required
        P("f", KEYWORD, 0.1 + 1e-9),  # as written
        P("t", KEYWORD, None),
        P("l", KEYWORD, (1,)),
        P("name", KEYWORD, None),
    ]


def test_the_node_name_yields() -> None:
    """An input ``name`` keeps its name in gen_esb and in gen-ops; the node
    name is then ``node_name``, or ``node_name_2`` when an attr has that."""
    decl = Decl("A", (Input("name", "INPUT"),))
    assert gen_esb(decl) == [P("name", POSITIONAL)]
    assert expected_of(decl)[-1] == P("node_name", KEYWORD, None)
    taken = Decl("A", (Input("name", "INPUT"),), (), (Attr("node_name", AttrType.INT),))
    assert [p.name for p in expected_of(taken)] == ["name", "node_name", "node_name_2"]


@pytest.mark.parametrize(
    "op_type,stem",
    [
        ("AnnotatedAddCustom", "annotated_add_custom"),
        ("SumNCustom", "sum_n_custom"),
        ("Conv2D", "conv2_d"),
        ("_If", "_if"),
        ("_IfDemo", "_if_demo"),
        ("If", "if_"),
        ("While", "while_"),
        ("Assert", "assert_"),
        ("Shape", "shape"),
    ],
)
def test_documented_stem(op_type: str, stem: str) -> None:
    """spec-reference.md's examples of ``<stem>``."""
    assert documented_stem(op_type) == stem


# -- a wrong builder fails -------------------------------------------------------------

MUTATION_HEADERS = {
    # An input called name: the node name is node_name.
    "input name": """namespace ge {
REG_OP(ParseDemo)
    .INPUT(serialized, TensorType({DT_STRING}))
    .INPUT(name, TensorType({DT_STRING}))
    .DYNAMIC_OUTPUT(values, TensorType({DT_FLOAT}))
    .ATTR(num, Int, 0)
    .OP_END_FACTORY_REG(ParseDemo)
}  // namespace ge
""",
    # No inputs: owner_graph_builder; a keyword file stem (while_).
    "no inputs": """namespace ge {
REG_OP(While)
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .REQUIRED_ATTR(shape, ListInt)
    .ATTR(eps, Float, 1e-5)
    .GRAPH(body)
    .OP_END_FACTORY_REG(While)
}  // namespace ge
""",
    # Only optional inputs: owner_builder; a leading _.
    "optional inputs": """namespace ge {
REG_OP(_Opt)
    .OPTIONAL_INPUT(x, TensorType({DT_FLOAT}))
    .OPTIONAL_INPUT(lambda, TensorType({DT_FLOAT}))
    .OUTPUT(y, TensorType({DT_FLOAT}))
    .ATTR(_kernel, String, "")
    .OP_END_FACTORY_REG(_Opt)
}  // namespace ge
""",
}


def _mutants(params: list[P]) -> list[tuple[str, list[P]]]:
    """Builders that differ from ``params`` in one parameter each."""
    out: list[tuple[str, list[P]]] = []
    for i, p in enumerate(params):
        rest = params[:i] + params[i + 1 :]
        out.append((f"without {p.name}", rest))
        out.append(
            (
                f"{p.name} renamed",
                [*params[:i], P(p.name + "_", p.kind, p.default), *params[i + 1 :]],
            )
        )
        kind = KEYWORD if p.kind is POSITIONAL else POSITIONAL
        out.append(
            (
                f"{p.name} of another kind",
                [*params[:i], P(p.name, kind, p.default), *params[i + 1 :]],
            )
        )
        default = EMPTY if p.default is not EMPTY else None
        out.append(
            (
                f"{p.name} with another default",
                [*params[:i], P(p.name, p.kind, default), *params[i + 1 :]],
            )
        )
        if i + 1 < len(params):
            swapped = [*params[:i], params[i + 1], p, *params[i + 2 :]]
            out.append((f"{p.name} moved", swapped))
    return out


@pytest.mark.parametrize("what", sorted(MUTATION_HEADERS))
def test_a_wrong_builder_fails(what: str, tmp_path: Path) -> None:
    """The real builder passes; a builder one parameter away (missing,
    renamed, of the other kind, with another default, moved) fails, as do
    the names gen-ops gave before GE's names were kept (``in_name`` and the
    node name ``name``, ``owner_builder`` for an op without inputs)."""
    op, text = import_one(MUTATION_HEADERS[what], tmp_path)
    decl = decl_of(op)
    actual = _rendered_signature(op, text, tmp_path)
    compare(actual, decl)
    old_names = {"name": "in_name", "node_name": "name"}
    old_names["owner_graph_builder"] = "owner_builder"
    old = [P(old_names.get(p.name, p.name), p.kind, p.default) for p in actual]
    mutants = _mutants(actual)
    if old != actual:
        mutants.append(("the old names", old))
    assert len(mutants) > 10

    def passes(params: list[P]) -> bool:
        try:
            compare(params, decl)
        except AssertionError:
            return False
        return True

    assert [how for how, mutant in mutants if passes(mutant)] == []
