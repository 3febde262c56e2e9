"""How a builder keeps the calls of earlier releases (docs/releases.md,
"Builders that keep old calls"): the one place these rules live; the
Python and docs lowerings read the ``CallShape`` and templates only print it.

Note [Calls of earlier releases]: A call written against a release binds its
positional arguments to the release's positional parameters (inputs in IR
order, then GE's builder parameter, count parameters and subgraphs) and its
keywords by name. So that a compatible change never changes that binding:

- an input that the op's first recorded release lacked stays positional only
  when no positional parameter follows the inputs; otherwise it becomes
  keyword-only (after the ``*``), in the order releases added it, where no
  positional call of an older release can reach it. Attrs are keyword-only
  already (GE's convention), so new ones never move a call.
- an earlier name (``renamed_from:``) stays a keyword alias that warns;
  GE's builder parameter of an op that had no inputs (``owner_graph_builder``)
  stays an alias of ``owner_builder`` once the op has some.
- a deprecated op or parameter warns when called or given a value.

The first recorded release is the op's oldest in the whole registry, not in
the 365-day window: once a call shape is promised it is kept, or a release
leaving the window would move calls of the releases after it.
"""

from __future__ import annotations

from dataclasses import dataclass

from gen_ops.lowering.names import OWNER_GRAPH_BUILDER, PythonNames, python_names
from gen_ops.spec.model import Attr, Input, OpSpec, PastOp


@dataclass(frozen=True)
class Alias:
    """A keyword the builder still takes for ``param``: ``old`` warns that
    it was renamed in ``release``."""

    old: str
    param: str
    release: str


@dataclass(frozen=True)
class ParamHistory:
    """An input's or attr's history: ``since`` is the release that first
    had it (None: no registry, or no release has it yet: ``new``)."""

    since: str | None
    new: bool
    deprecated: str | None
    aliases: tuple[Alias, ...]


@dataclass(frozen=True)
class CallShape:
    recorded: bool  # a registry release has the op
    first: str | None  # the op's first recorded release
    last: str | None  # its newest
    inputs: dict[str, ParamHistory]
    attrs: dict[str, ParamHistory]
    keyword_inputs: tuple[str, ...]  # inputs after the *, in release order
    aliases: tuple[Alias, ...]  # every alias, in parameter order
    deprecated: tuple[tuple[str, str], ...]  # (parameter, release)

    @property
    def wraps(self) -> bool:
        """Whether calls go through ``OpDef.function`` (aliases, warnings)."""
        return bool(self.aliases or self.deprecated)

    def release_words(self, since: str | None) -> str:
        """``release 1.1.0``, or the coming one for a change not yet recorded."""
        if since is not None:
            return f"release {since}"
        return f"the release after {self.last}" if self.last else "the next release"


def _since(past: tuple[PastOp, ...], known: set[str], attr: bool) -> str | None:
    for release in past:
        items = release.attrs if attr else release.inputs
        names = tuple(item.name for item in items)
        if known.intersection(names):
            return release.version
    return None


def _history(op: OpSpec, item: Input | Attr, param: str, attr: bool) -> ParamHistory:
    known = {item.name, *(f.name for f in item.renamed_from)}
    since = _since(op.past, known, attr)
    return ParamHistory(
        since=since,
        new=bool(op.past) and since is None,
        deprecated=item.deprecated,
        aliases=tuple(Alias(f.name, param, f.release) for f in item.renamed_from),
    )


def _has_positional_tail(op: OpSpec, names: PythonNames) -> bool:
    """Whether a positional parameter follows the inputs: GE's builder
    parameter, a count parameter or a subgraph."""
    counts = any(o.dynamic and o.count is None for o in op.outputs)
    return names.owner is not None or counts or bool(op.graphs)


def shape(op: OpSpec, names: PythonNames | None = None) -> CallShape:
    """Note [Calls of earlier releases]."""
    names = names or python_names(op)
    inputs = {
        i.name: _history(op, i, names.params[("input", i.name)], attr=False)
        for i in op.inputs
    }
    attrs = {
        a.name: _history(op, a, names.params.get(("attr", a.name), a.name), attr=True)
        for a in op.attrs
    }
    order = [r.version for r in op.past]
    added = [i for i in op.inputs if op.past and inputs[i.name].since != order[0]]
    keyword: tuple[str, ...] = ()
    if added and _has_positional_tail(op, names):
        ranked = sorted(
            enumerate(added),
            key=lambda pair: (
                _rank(order, inputs[pair[1].name].since),
                pair[0],
            ),
        )
        keyword = tuple(item.name for _, item in ranked)
    aliases = [alias for i in op.inputs for alias in inputs[i.name].aliases]
    aliases += [
        alias for a in op.attrs if a.derive is None for alias in attrs[a.name].aliases
    ]
    if (
        op.past
        and not op.past[0].inputs
        and names.owner is not None
        and names.owner != OWNER_GRAPH_BUILDER
    ):
        first_input = min(
            (_rank(order, inputs[i.name].since) for i in op.inputs), default=0
        )
        since = order[first_input] if first_input < len(order) else None
        last = order[-1] if order else None
        words = since if since is not None else f"after {last}"
        aliases.append(Alias(OWNER_GRAPH_BUILDER, names.owner, words))
    deprecated = [
        (names.params[("input", i.name)], i.deprecated)
        for i in op.inputs
        if i.deprecated
    ]
    deprecated += [
        (names.params[("attr", a.name)], a.deprecated)
        for a in op.attrs
        if a.deprecated and a.derive is None
    ]
    return CallShape(
        recorded=bool(op.past),
        first=order[0] if order else None,
        last=order[-1] if order else None,
        inputs=inputs,
        attrs=attrs,
        keyword_inputs=keyword,
        aliases=tuple(aliases),
        deprecated=tuple(deprecated),
    )


def _rank(order: list[str], since: str | None) -> int:
    return order.index(since) if since in order else len(order)
