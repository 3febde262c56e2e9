"""``gen-ops changelog``: what each release changed, from the registry and
the current specs, in Markdown (docs/releases.md, "The changelog").

Each release is compared with the release before it (the first with
nothing), and the current specs with the newest release ("Unreleased").
A section lists added ops, removed ops, compatible changes per op, ops
deprecated, and breaking changes with the reason the spec's ``breaking:``
mark gives (docs/releases.md, "Marking a break intended").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gen_ops.base.charset import escape
from gen_ops.base.collector import collector_paused
from gen_ops.base.diagnostics import Sink
from gen_ops.emit.literals import md_code
from gen_ops.emit.render import render
from gen_ops.history import operators, records
from gen_ops.history.compat import covering_mark
from gen_ops.history.diff import compare
from gen_ops.history.records import OpRecord
from gen_ops.history.registry import Index, Release
from gen_ops.history.rules import Rule, Verdict
from gen_ops.spec.model import OpSpec


@dataclass(frozen=True)
class Part:
    title: str
    lines: tuple[str, ...]  # Markdown list items


@dataclass(frozen=True)
class Section:
    title: str
    parts: tuple[Part, ...]  # only those with lines


@dataclass(frozen=True)
class Changelog:
    intro: str
    sections: tuple[Section, ...]  # newest first


# What the Deprecated part lists: an op, an input or an attr deprecated.
_DEPRECATIONS = (Rule.DEPRECATED, Rule.PARAM_DEPRECATED)


def _code(text: str) -> str:
    """A name from the registry as inline code, every invisible character
    shown as an escape."""
    return md_code(escape(text))


def _flat(text: str) -> str:
    """Free text (a reason) on one Markdown line."""
    return escape(" ".join(text.split()))


def section(
    title: str,
    before: Mapping[str, OpRecord],
    after: Mapping[str, OpRecord],
    broken: Release | None,
    specs: Mapping[str, OpSpec],
    order: dict[str, int],
) -> Section:
    """What changed from ``before`` to ``after``; ``broken`` is the release
    callers of which a breaking change breaks (the release before)."""
    changed: list[str] = []
    deprecated: list[str] = []
    breaking: list[str] = []
    for name in sorted(set(before) & set(after)):
        found = compare(before[name], after[name])
        compatible = [
            c.text(_code)
            for c in found
            if c.rule.verdict is not Verdict.BREAKING and c.rule not in _DEPRECATIONS
        ]
        if compatible:
            changed.append(f"{_code(name)}: " + "; ".join(compatible))
        deprecated += [
            f"{_code(name)}: {c.text(_code)}" for c in found if c.rule in _DEPRECATIONS
        ]
        spec = specs.get(name)
        mark = (
            covering_mark(spec, broken, order)
            if spec is not None and broken is not None
            else None
        )
        reason = f" Reason: {_flat(mark.reason)}" if mark is not None else ""
        breaking += [
            f"{_code(name)}: {c.text(_code)} ({c.rule.code}).{reason}"
            for c in found
            if c.rule.verdict is Verdict.BREAKING
        ]
    parts = (
        Part("Added", tuple(_code(n) for n in sorted(set(after) - set(before)))),
        Part("Removed", tuple(_code(n) for n in sorted(set(before) - set(after)))),
        # Kinds, types and versions of a registry GE wrote may hold any text.
        Part("Changed", tuple(escape(line) for line in changed)),
        Part("Deprecated", tuple(escape(line) for line in deprecated)),
        Part("Breaking", tuple(escape(line) for line in breaking)),
    )
    return Section(title, tuple(p for p in parts if p.lines))


def build(index: Index, specs: Sequence[OpSpec], sink: Sink, source: str) -> Changelog:
    """The changelog of every release ``index`` keeps (a release whose
    operators cannot be read is left out, H107) and of the current specs."""
    with collector_paused():
        return _build(index, specs, sink, source)


def _build(index: Index, specs: Sequence[OpSpec], sink: Sink, source: str) -> Changelog:
    order = {r.version: k for k, r in enumerate(index.releases)}
    by_type = {op.op_type: op for op in specs}
    history: list[tuple[Release, dict[str, OpRecord]]] = []
    for release in index.releases:
        ops = operators.read(index.root, release, sink)
        if ops is None:
            continue
        found = {name: ops.record(name, sink) for name in ops.raw}
        history.append((release, {n: r for n, r in found.items() if r is not None}))
    current = {name: records.of_spec(op)[1] for name, op in by_type.items()}
    sections = []
    before: dict[str, OpRecord] = {}
    broken: Release | None = None
    for release, recorded in history:
        title = f"{escape(release.version)} ({release.date})"
        sections.append(section(title, before, recorded, broken, by_type, order))
        before, broken = recorded, release
    sections.append(section("Unreleased", before, current, broken, by_type, order))
    intro = (
        f"What each release of {_code(source)} changed, newest first; "
        '"Unreleased" compares the current specs with the newest release.'
    )
    return Changelog(intro, tuple(reversed(sections)))


def markdown(log: Changelog) -> str:
    return render("history/changelog.md.j2", log=log)
