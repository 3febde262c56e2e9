"""The property of issue 11: for random histories of an op made only of
compatible changes (new optional inputs and attrs, renames that keep the
old name, deprecations), every call valid against an older release's
builder binds the same arguments to the same parameters under the newest
builder. Each release is recorded in a registry as gen-ops release records
it; each builder is rendered as gen-ops --registry renders it (with the
releases before it), imported, and called against a recording graph
builder; the nodes the two builders ask for are compared."""

from __future__ import annotations

import inspect
import json
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from helpers import import_file, load_ops, write_tree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from recording import Call, RecordingBuilder

from ge.es import GraphBuilder
from gen_ops import pipeline
from gen_ops.base.diagnostics import Sink
from gen_ops.emit.outputs import Target
from gen_ops.history import dates, past, recording


@dataclass
class Param:
    name: str  # the current name
    optional: bool = True
    attr: bool = False
    renamed_from: list[tuple[str, str]] = field(default_factory=list)
    deprecated: str | None = None


@dataclass
class History:
    """The op, release by release: each release's spec as a dict."""

    specs: list[dict[str, Any]]
    # per release: current name -> the name each earlier release used
    names: list[dict[str, str]]


def _spec(
    inputs: list[Param], attrs: list[Param], count: bool, graph: bool
) -> dict[str, Any]:
    def extra(p: Param) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if p.deprecated:
            out["deprecated"] = p.deprecated
        if p.renamed_from:
            out["renamed_from"] = [{"name": n, "release": r} for n, r in p.renamed_from]
        return out

    spec: dict[str, Any] = {
        "op": "Evolving",
        "module": "evolving",
        "inputs": [
            {"name": p.name, "dtype": "float32"}
            | ({"optional": True} if p.optional else {})
            | extra(p)
            for p in inputs
        ],
        "outputs": [{"name": "out", "dtype": "float32", "dynamic": count}],
        "attrs": [
            {"name": p.name, "type": "int", "default": 0} | extra(p) for p in attrs
        ],
    }
    if graph:
        spec["graphs"] = [{"name": "body"}]
    return spec


@st.composite
def histories(draw: st.DrawFn) -> History:
    required = draw(st.integers(0, 2))
    optional = draw(st.integers(0, 2))
    inputs = [Param(f"x{i}", optional=False) for i in range(required)]
    inputs += [Param(f"o{i}") for i in range(optional)]
    attrs = [Param(f"a{i}", attr=True) for i in range(draw(st.integers(0, 2)))]
    count, graph = draw(st.booleans()), draw(st.booleans())
    fresh = iter(range(1000))
    specs = [_spec(inputs, attrs, count, graph)]
    for k in range(1, draw(st.integers(2, 3))):
        version = f"1.{k}.0"
        for _ in range(draw(st.integers(1, 3))):
            change = draw(
                st.sampled_from(["input", "attr", "rename", "deprecate", "none"])
            )
            if change == "input":
                inputs.append(Param(f"n{next(fresh)}"))
            elif change == "attr":
                attrs.append(Param(f"t{next(fresh)}", attr=True))
            elif change == "rename" and inputs + attrs:
                p = draw(st.sampled_from(inputs + attrs))
                p.renamed_from.append((p.name, version))
                p.name = f"r{next(fresh)}"
            elif change == "deprecate":
                can = [p for p in inputs + attrs if p.optional and not p.deprecated]
                if can:
                    draw(st.sampled_from(can)).deprecated = version
        specs.append(_spec(inputs, attrs, count, graph))
    return History(specs, [])


def _render(spec: dict[str, Any], registry: Path, out: Path) -> Any:
    """The builder of ``spec`` as gen-ops --registry renders it, imported."""
    specs = out / "specs"
    specs.mkdir(parents=True)
    (specs / "evolving.yaml").write_text(json.dumps(spec))
    ops, sink = load_ops(specs)
    assert not sink.has_errors, [d.format() for d in sink.items]
    if (registry / "index.json").exists():
        attached = past.attach(registry, ops, sink)
        assert attached is not None
        ops = attached
    files = {
        f.path: f.content for f in pipeline.render(ops, frozenset({Target.PYTHON}))
    }
    write_tree(files, out / "gen")
    module = import_file(out / "gen/python/ge/es/evolving/evolving.py")
    return module.Evolving, ops


def _release(ops: Any, registry: Path, k: int) -> None:
    sink = Sink()
    recording.record(
        registry, f"1.{k}.0", dates.ReleaseDate(f"2026-0{k + 1}-01"), None, ops, sink
    )
    assert not sink.has_errors


@dataclass(frozen=True)
class Planned:
    """A call: how many parameters go by position, and each keyword."""

    positional: int
    keywords: tuple[str, ...]


def _plan(fn: Any, data: st.DataObject) -> Planned:
    """A call valid against ``fn``'s signature, as a caller of that release
    writes it: a positional prefix, then keywords for every required
    parameter left and some optional ones."""
    params = list(inspect.signature(fn).parameters.values())
    by_position = [p for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
    n = data.draw(st.integers(0, len(by_position)))
    keywords = []
    for p in params:
        if p in by_position[:n]:
            continue
        if p.default is p.empty or data.draw(st.booleans()):
            keywords.append(p.name)
    return Planned(n, tuple(keywords))


def _value(name: str, g: GraphBuilder, holders: dict[str, Any]) -> Any:
    """The argument a parameter of the old builder gets: a tensor of its
    own for an input (in ``holders``), a distinct number for an attr."""
    if name in ("owner_builder", "owner_graph_builder"):
        return g
    if name == "out_num":
        return 2
    if name == "body":
        return GraphBuilder("body").build_and_reset()
    if name == "name":
        return "the_node"
    if name in holders:
        return holders[name]
    return 100 + sum(map(ord, name))


def _call(fn: Any, plan: Planned, params: list[str], inputs: list[str]) -> Call | None:
    """``fn`` called as ``plan`` says; ``inputs`` are the parameters that
    take tensors (the old spec's inputs, whose IR names are the Python
    ones here)."""
    g = RecordingBuilder()
    holders = {p: g.create_input(i) for i, p in enumerate(inputs)}
    positional = [_value(p, g, holders) for p in params[: plan.positional]]
    keywords = {p: _value(p, g, holders) for p in plan.keywords}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(*positional, **keywords)
        except ValueError:
            return None  # e.g. no tensor and no builder: invalid for both
    return g.calls[-1]


def _renames(old: dict[str, Any], new: dict[str, Any]) -> dict[str, str]:
    """Each IR name of the old spec -> its name in the new one."""
    out = {}
    for key in ("inputs", "attrs"):
        for item in new[key]:
            for name in [item["name"]] + [
                f["name"] for f in item.get("renamed_from", [])
            ]:
                out[name] = item["name"]
    return out


@settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(history=histories(), data=st.data())
def test_old_calls_bind_the_same_under_the_newest_builder(
    history: History, data: st.DataObject, tmp_path_factory: Any
) -> None:
    work = tmp_path_factory.mktemp("evolving")
    registry = work / "registry"
    builders = []
    for k, spec in enumerate(history.specs):
        fn, ops = _render(spec, registry, work / f"r{k}")
        builders.append(fn)
        if k < len(history.specs) - 1:
            _release(ops, registry, k)
    newest, newest_spec = builders[-1], history.specs[-1]
    for k, (old, old_spec) in enumerate(zip(builders[:-1], history.specs[:-1])):
        plan = _plan(old, data)
        params = list(inspect.signature(old).parameters)
        inputs = [i["name"] for i in old_spec["inputs"]]
        before = _call(old, plan, params, inputs)
        if before is None:
            continue
        after = _call(newest, plan, params, inputs)
        assert after is not None, (k, plan)
        renamed = _renames(old_spec, newest_spec)
        assert after.op_type == before.op_type
        assert {renamed[n]: v for n, v in before.inputs.items()} == {
            n: v
            for n, v in after.inputs.items()
            if n in renamed.values() and n in {renamed[m] for m in before.inputs}
        }, (k, plan)
        assert {renamed[n]: v for n, v in before.attrs.items()} == {
            n: v
            for n, v in after.attrs.items()
            if n in {renamed[m] for m in before.attrs}
        }, (k, plan)
        assert after.subgraphs == before.subgraphs
        new_inputs = set(after.inputs) - {renamed[n] for n in before.inputs}
        assert all(after.inputs[n] is None for n in new_inputs), (k, plan)
