"""GE's documented Python surface, counted: every member of ``GraphBuilder``,
``TensorHolder``, ``tensor_like``, ``Graph``, ``Session`` (and ``GeApi``,
``Tensor``, the ``ge.es`` package functions) that GE's documentation of its
ES Python runtime lists (the ``ge.es`` package, graph_builder.py,
tensor_holder.py, tensor_like.py, graph.py, session.py, geapi.py) exists
here, with the signature documented: parameter names (where GE's
documentation names them), their order, their defaults and which are
keyword-only.

The table below restates that documentation in our own words, one row per
member. A row's parameters are written as a Python parameter list; a name
starting with ``_`` stands for a parameter the documentation shows without
a name (any name passes, the position and the absence of a default are
checked); ``...`` means it names the member but not its parameters (only
that it exists and is callable is checked). ``extensions`` are our own optional
parameters after GE's, allowed only where listed.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

import pytest

import ge.es
from ge.es import GraphBuilder, TensorHolder, tensor_like
from ge.es import graph_builder as graph_builder_module
from ge.es.graph_builder import InputType
from ge.ge_global import GeApi
from ge.graph import DataType, DumpFormat, Format, Graph, Placement, Tensor
from ge.session import Session

PROPERTY = "property"
UNSPECIFIED = "..."


@dataclass(frozen=True)
class Member:
    owner: str  # a key of OWNERS
    name: str
    params: str  # a Python parameter list, PROPERTY or UNSPECIFIED
    extensions: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return f"{self.owner}.{self.name}"


OWNERS: dict[str, Any] = {
    "GraphBuilder": GraphBuilder,
    "graph_builder": graph_builder_module,
    "TensorHolder": TensorHolder,
    "tensor_like": tensor_like,
    "Graph": Graph,
    "Session": Session,
    "GeApi": GeApi,
    "Tensor": Tensor,
    "ge.es": ge.es,
}

_CONST = "value, shape=None"
_FIVE = ("int64", "float", "uint64", "int32", "uint32")

# GE's ES Python runtime, member by member.
SURFACE: list[Member] = [
    # the ge.es package
    Member("ge.es", "list_plugins", ""),
    Member("ge.es", "get_plugin", "name"),
    # GraphBuilder
    Member("GraphBuilder", "__init__", "name=None"),
    Member("GraphBuilder", "name", PROPERTY),
    Member(
        "GraphBuilder",
        "create_input",
        "index, *, name=None, type_str=InputType.DATA, "
        "data_type=DataType.DT_FLOAT, format=Format.FORMAT_ND, shape=None",
    ),
    Member("GraphBuilder", "create_inputs", "num, start_index=0"),
    *(Member("GraphBuilder", f"create_const_{t}", _CONST) for t in _FIVE),
    Member("GraphBuilder", "create_vector_int64", "_values"),
    *(Member("GraphBuilder", f"create_scalar_{t}", "value") for t in _FIVE),
    # value=: our extension, the variable's dtype, shape and initial value
    # (docs/runtime.md, "Variables").
    Member("GraphBuilder", "create_variable", "index, name", extensions=("value",)),
    Member("GraphBuilder", "set_graph_output", "tensor, output_index"),
    *(
        Member("GraphBuilder", f"set_graph_attr_{t}", "name, value")
        for t in ("int64", "string", "bool")
    ),
    *(
        Member("GraphBuilder", f"set_{what}_attr_{t}", "tensor, name, value")
        for what in ("tensor", "node")
        for t in ("int64", "string", "bool")
    ),
    Member("GraphBuilder", "add_control_dependency", "dst_tensor, src_tensors"),
    Member("GraphBuilder", "build_and_reset", "outputs=None"),
    Member("graph_builder", "attr_scope", "_attrs"),
    Member("graph_builder", "control_dependency_scope", "_tensors"),
    # TensorHolder and tensor_like
    Member("TensorHolder", "name", PROPERTY),
    Member("TensorHolder", "set_data_type", "_data_type"),
    Member("TensorHolder", "set_format", "_format"),
    Member("TensorHolder", "set_shape", "_shape"),
    Member("TensorHolder", "get_owner_builder", ""),
    *(Member("TensorHolder", op, "other") for op in ("add", "sub", "mul", "div")),
    *(
        Member("TensorHolder", f"__{side}{op}__", "_other")
        for op in ("add", "sub", "mul", "truediv")
        for side in ("", "r")
    ),
    Member("tensor_like", "convert_to_tensor_holder", "value, builder"),
    Member("tensor_like", "resolve_builder", "*values"),
    # Graph
    Member("Graph", "name", PROPERTY),
    Member("Graph", "get_all_nodes", ""),
    Member("Graph", "get_direct_nodes", ""),
    Member("Graph", "get_attr", UNSPECIFIED),
    Member("Graph", "set_attr", UNSPECIFIED),
    Member("Graph", "dump_to_file", "format=DumpFormat.kReadable, suffix=''"),
    Member("Graph", "dump_to_stream", UNSPECIFIED),
    Member("Graph", "save_to_air", "path"),
    Member("Graph", "load_from_air", "path"),
    *(
        Member("Graph", name, UNSPECIFIED)
        for name in (
            "remove_node",
            "remove_edge",
            "add_data_edge",
            "add_control_edge",
            "find_node_by_name",
            "get_all_subgraphs",
            "get_subgraph",
            "add_subgraph",
            "remove_subgraph",
        )
    ),
    # GeApi, Session, Tensor
    Member("GeApi", "ge_initialize", "options"),
    Member("GeApi", "ge_finalize", ""),
    Member("Session", "__init__", "options=None"),
    Member("Session", "add_graph", "graph_id, graph, options=None"),
    Member("Session", "run_graph", "graph_id, inputs"),
    # Our extension: the caller's output tensors, written in place.
    Member(
        "Session",
        "run_graph_with_stream_async",
        "graph_id, stream, inputs",
        extensions=("outputs",),
    ),
    Member("Session", "remove_graph", "graph_id"),
    Member("Session", "register_external_allocator", "stream, allocator"),
    Member("Session", "unregister_external_allocator", "stream"),
    Member(
        "Tensor",
        "__init__",
        "data=None, file_path=None, data_type=DataType.DT_FLOAT, "
        "format=Format.FORMAT_ND, shape=None, placement=Placement.PLACEMENT_HOST",
    ),
]

# Where we differ from the document on purpose (each says why, and where
# it is documented): member id -> {parameter: our default}.
DELIBERATE_DEFAULTS: dict[str, dict[str, object]] = {
    # None: a numpy array keeps its own dtype, anything else is DT_FLOAT
    # as in GE (docs/runtime.md, "Tensors and numpy").
    "Tensor.__init__": {"data_type": None},
    # None: DT_FLOAT as in GE, but an input made so binds dtypes softly
    # (Note [Inputs of the default dtype] in ge/es/graph_builder.py).
    "GraphBuilder.create_input": {"data_type": None},
}

_NAMES = {
    "InputType": InputType,
    "DataType": DataType,
    "Format": Format,
    "DumpFormat": DumpFormat,
    "Placement": Placement,
}


def _expected(params: str) -> inspect.Signature:
    namespace = dict(_NAMES)
    exec(f"def _stub({params}): pass", namespace)
    return inspect.signature(namespace["_stub"])


def _actual(member: Member) -> inspect.Signature:
    owner = OWNERS[member.owner]
    if inspect.ismodule(owner):
        return inspect.signature(getattr(owner, member.name))
    raw = inspect.getattr_static(owner, member.name)
    signature = inspect.signature(getattr(owner, member.name))
    if isinstance(raw, (staticmethod, classmethod)):
        return signature
    params = list(signature.parameters.values())
    assert params and params[0].name == "self", f"{member.id}: no self parameter"
    return signature.replace(parameters=params[1:])


def _compare(member: Member, actual: inspect.Signature) -> list[str]:
    expected = list(_expected(member.params).parameters.values())
    got = list(actual.parameters.values())
    problems: list[str] = []
    if len(got) < len(expected):
        problems.append(f"has {len(got)} parameter(s), GE documents {len(expected)}")
    deliberate = DELIBERATE_DEFAULTS.get(member.id, {})
    for want, have in zip(expected, got):
        where = f"parameter {have.name!r}"
        if not want.name.startswith("_") and want.name != have.name:
            problems.append(f"{where} should be named {want.name!r}")
        if want.kind != have.kind:
            problems.append(
                f"{where} is {have.kind.description}, GE: {want.kind.description}"
            )
        default = deliberate.get(have.name, want.default)
        if default is inspect.Parameter.empty and have.default is not default:
            problems.append(f"{where} has a default ({have.default!r}); GE: required")
        elif default is not inspect.Parameter.empty and have.default != default:
            problems.append(f"{where} defaults to {have.default!r}, GE: {default!r}")
    extra = got[len(expected) :]
    for param in extra:
        if param.name not in member.extensions:
            problems.append(f"extra parameter {param.name!r} is not a listed extension")
        elif param.default is inspect.Parameter.empty:
            problems.append(f"extension {param.name!r} must be optional")
    return problems


@pytest.mark.parametrize("member", SURFACE, ids=lambda m: m.id)
def test_documented_member_has_its_signature(member: Member) -> None:
    owner = OWNERS[member.owner]
    assert hasattr(owner, member.name), f"{member.id} is missing"
    if member.params == PROPERTY:
        assert isinstance(inspect.getattr_static(owner, member.name), property)
        return
    assert callable(getattr(owner, member.name)), f"{member.id} is not callable"
    if member.params == UNSPECIFIED:
        return
    problems = _compare(member, _actual(member))
    assert not problems, f"{member.id}: " + "; ".join(problems)


def test_the_table_counts_the_document() -> None:
    # Per class, as the issue counts them: 17 TensorHolder members (5
    # methods, add/sub/mul/div, 8 operators), 18 of Graph.
    counts: dict[str, int] = {}
    for member in SURFACE:
        counts[member.owner] = counts.get(member.owner, 0) + 1
    assert counts["TensorHolder"] == 17
    assert counts["Graph"] == 18
    assert counts["Session"] == 7
    assert counts["tensor_like"] == 2
    assert len({m.id for m in SURFACE}) == len(SURFACE)
    assert set(DELIBERATE_DEFAULTS) <= {m.id for m in SURFACE}


def test_input_type_values_and_package_exports() -> None:
    assert {t.name: t.value for t in InputType} == {
        "DATA": "Data",
        "REF_DATA": "RefData",
        "AIPP_DATA": "AippData",
        "ANY_DATA": "AnyData",
    }
    assert {"GraphBuilder", "TensorHolder", "list_plugins", "get_plugin"} <= set(
        ge.es.__all__
    )
    assert hasattr(tensor_like, "TensorLike")


def test_builders_and_holders_are_not_copied_or_made_directly() -> None:
    import copy

    builder = GraphBuilder("surface")
    for copier in (copy.copy, copy.deepcopy):
        with pytest.raises(TypeError, match="cannot be copied"):
            copier(builder)
    with pytest.raises((TypeError, RuntimeError)):
        TensorHolder()


def test_the_checker_reports_what_differs() -> None:
    """The comparison names wrong names, kinds, defaults and extras (so a
    passing row means something)."""

    def sample(a, b=1, *, c=None, extra=0):  # type: ignore[no-untyped-def]
        pass

    member = Member("GeApi", "x", "a, c=None, *, b=2")
    problems = _compare(member, inspect.signature(sample))
    assert problems == [
        "parameter 'b' should be named 'c'",
        "parameter 'b' defaults to 1, GE: None",
        "parameter 'c' should be named 'b'",
        "parameter 'c' defaults to None, GE: 2",
        "extra parameter 'extra' is not a listed extension",
    ]

    def keyword(*, a=0):  # type: ignore[no-untyped-def]
        pass

    assert _compare(Member("GeApi", "x", "a"), inspect.signature(keyword)) == [
        "parameter 'a' is keyword-only, GE: positional or keyword",
        "parameter 'a' has a default (0); GE: required",
    ]
    assert _compare(Member("GeApi", "x", "a, b"), inspect.signature(keyword)) == [
        "has 1 parameter(s), GE documents 2",
        "parameter 'a' is keyword-only, GE: positional or keyword",
        "parameter 'a' has a default (0); GE: required",
    ]
