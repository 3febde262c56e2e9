"""``gen-ops compat``: every change of every op between the releases of a
window and the current specs, each under its rule, and whether the spec
marks a break intended.

Each release is compared with the current specs, so a finding answers "what
does a caller written against release R meet now"; a change that shows
against several releases is one finding that lists them. The result keeps,
per op, the record of every release that has it (``OpCompat.versions``):
what its parameters were in each release and how they bound.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gen_ops.base.collector import collector_paused
from gen_ops.base.diagnostics import Sink, Span
from gen_ops.history import operators, records
from gen_ops.history.diff import Change, compare
from gen_ops.history.operators import Operators
from gen_ops.history.records import OpRecord
from gen_ops.history.registry import Index, Release
from gen_ops.history.rules import Rule, Verdict
from gen_ops.spec.model import Attr, BreakingMark, Input, OpSpec, Output, Subgraph


@dataclass(frozen=True)
class Version:
    """The op as ``release`` recorded it."""

    release: Release
    record: OpRecord


@dataclass(frozen=True)
class Finding:
    """A change, the releases compared with which it shows (oldest first),
    where it is reported, and why it is intended when it breaks callers on
    purpose (the spec's mark, or --allow-removed)."""

    change: Change
    releases: tuple[Release, ...]
    span: Span
    mark: BreakingMark | None = None
    allowed: bool = False  # an op removed under --allow-removed

    @property
    def rule(self) -> Rule:
        return self.change.rule

    @property
    def breaking(self) -> bool:
        return self.rule.verdict is Verdict.BREAKING

    @property
    def intended(self) -> bool:
        return self.breaking and (self.mark is not None or self.allowed)


@dataclass(frozen=True)
class OpCompat:
    op_type: str
    spec: OpSpec | None  # None: the op is gone from the specs
    current: OpRecord | None
    versions: tuple[Version, ...]  # oldest first; releases without it left out
    findings: tuple[Finding, ...]


@dataclass(frozen=True)
class Report:
    releases: tuple[Release, ...]  # compared with, oldest first
    ops: tuple[OpCompat, ...]  # by op type

    def op(self, op_type: str) -> OpCompat | None:
        return next((o for o in self.ops if o.op_type == op_type), None)

    @property
    def findings(self) -> list[tuple[OpCompat, Finding]]:
        return [(op, f) for op in self.ops for f in op.findings]

    @property
    def unintended(self) -> list[tuple[OpCompat, Finding]]:
        """Breaking changes no mark covers: they make compat fail."""
        return [(op, f) for op, f in self.findings if f.breaking and not f.intended]


def check(
    index: Index,
    releases: Sequence[Release],
    specs: Sequence[OpSpec],
    sink: Sink,
    allow_removed: frozenset[str] = frozenset(),
) -> Report:
    """Compare ``specs`` with each of ``releases`` (of ``index``); a release
    whose operators cannot be read is left out (H107), and so is an op whose
    entry is invalid, for that release (H108)."""
    with collector_paused():
        return _check(index, releases, specs, sink, allow_removed)


def _check(
    index: Index,
    releases: Sequence[Release],
    specs: Sequence[OpSpec],
    sink: Sink,
    allow_removed: frozenset[str],
) -> Report:
    loaded: list[Operators] = []
    for release in releases:
        ops = operators.read(index.root, release, sink)
        if ops is not None:
            loaded.append(ops)
    order = {r.version: k for k, r in enumerate(index.releases)}
    by_type = {op.op_type: op for op in specs}
    names = set(by_type).union(*(ops.raw for ops in loaded))
    result = []
    for name in sorted(names):
        spec = by_type.get(name)
        if spec is None:
            result.append(_removed(name, loaded, sink, name in allow_removed))
        else:
            result.append(_kept(spec, loaded, order, sink))
    return Report(tuple(ops.release for ops in loaded), tuple(result))


def _versions(
    name: str,
    loaded: Sequence[Operators],
    sink: Sink,
    current: tuple[dict[str, Any], OpRecord] | None,
) -> list[Version]:
    """The op's record in each release that has a valid one. What an entry
    shares with the current op's (or the release before's) is taken from its
    record (Note [Shared records] in records), so only what differs is
    checked and compared."""
    versions: list[Version] = []
    ours = [current] if current is not None else []
    known = ours
    for ops in loaded:
        raw = ops.raw.get(name)
        if raw is None:
            continue
        record = ops.record(name, sink, known)
        if record is not None:
            versions.append(Version(ops.release, record))
            known = ours + [(raw.entry, record)]
    return versions


def _kept(
    spec: OpSpec, loaded: Sequence[Operators], order: dict[str, int], sink: Sink
) -> OpCompat:
    entry, current = records.of_spec(spec)
    versions = _versions(spec.op_type, loaded, sink, (entry, current))
    groups: dict[Change, list[Release]] = {}
    seen: dict[int, list[Change]] = {}
    for version in versions:
        if version.record is current:
            continue
        changes = seen.get(id(version.record))
        if changes is None:
            changes = seen[id(version.record)] = compare(version.record, current)
        for change in changes:
            groups.setdefault(change, []).append(version.release)
    findings = [
        _finding(spec, change, tuple(found), order) for change, found in groups.items()
    ]
    if not versions and loaded:
        findings.append(
            Finding(
                Change(Rule.NEW_OP, "new op", ()),
                tuple(ops.release for ops in loaded),
                spec.span,
            )
        )
    for mark in spec.breaking:
        if mark.release not in order:
            _unknown_mark(spec, mark, order, sink)
    return OpCompat(spec.op_type, spec, current, tuple(versions), tuple(findings))


def _finding(
    spec: OpSpec, change: Change, found: tuple[Release, ...], order: dict[str, int]
) -> Finding:
    span = _span(spec, change.element)
    if change.rule.verdict is not Verdict.BREAKING:
        return Finding(change, found, span)
    newest = max(found, key=lambda r: order[r.version])
    return Finding(change, found, span, covering_mark(spec, newest, order))


def covering_mark(
    spec: OpSpec, broken: Release, order: dict[str, int]
) -> BreakingMark | None:
    """The mark that makes a break of callers of ``broken`` intended: the
    one of the oldest release from ``broken`` on (a mark covers its release
    and every earlier one)."""
    at = order[broken.version]
    covering = [m for m in spec.breaking if order.get(m.release, -1) >= at]
    return min(covering, key=lambda m: order[m.release]) if covering else None


def _span(spec: OpSpec, element: tuple[str, str] | None) -> Span:
    """The element's position in the spec; the op's for the op itself."""
    if element is not None:
        family, name = element
        families: dict[str, Sequence[Input | Output | Attr | Subgraph]] = {
            "input": spec.inputs,
            "output": spec.outputs,
            "attr": spec.attrs,
            "subgraph": spec.graphs,
        }
        for item in families[family]:
            if item.name == name:
                return item.span
    return spec.span


def _unknown_mark(
    spec: OpSpec, mark: BreakingMark, order: dict[str, int], sink: Sink
) -> None:
    newest = max(order, key=order.__getitem__) if order else None
    sink.emit(
        "H501",
        mark.span,
        f"{spec.op_type}: breaking names release '{mark.release}', which the "
        "registry does not list; the mark covers nothing",
        "name the release whose callers the change breaks"
        + (f" (the newest is {newest})" if newest else "")
        + ", or remove the mark",
    )


def _removed(
    name: str, loaded: Sequence[Operators], sink: Sink, allowed: bool
) -> OpCompat:
    versions = _versions(name, loaded, sink, None)
    findings: tuple[Finding, ...] = ()
    if versions:
        newest = versions[-1].release
        raw = next(ops for ops in loaded if ops.release is newest).raw[name]
        findings = (
            Finding(
                Change(Rule.OP_REMOVED, "op removed: no spec defines it", (name,)),
                tuple(v.release for v in versions),
                raw.file.span(raw.where + ("op_type",)),
                allowed=allowed,
            ),
        )
    return OpCompat(name, None, None, tuple(versions), findings)


def releases_text(releases: Sequence[Release]) -> str:
    """``release 1.2.0``, ``releases 1.0.0, 1.1.0 and 1.2.0``, or for more
    than three ``5 releases, 1.0.0 to 1.4.0``."""
    names = [r.version for r in releases]
    if len(names) == 1:
        return f"release {names[0]}"
    if len(names) <= 3:
        return f"releases {', '.join(names[:-1])} and {names[-1]}"
    return f"{len(names)} releases, {names[0]} to {names[-1]}"


def _quote(name: str) -> str:
    return f"'{name}'"


def emit(report: Report, sink: Sink) -> None:
    """Every finding as a diagnostic at its place (docs/diagnostics.md)."""
    for op, finding in report.findings:
        change, rule = finding.change, finding.rule
        text = change.text(_quote)
        against = releases_text(finding.releases)
        if not finding.breaking:
            sink.emit(
                rule.code,
                finding.span,
                f"{op.op_type}: {text}, compared with {against}",
                change.hint(_quote),
            )
        elif finding.intended:
            why = (
                f"marked intended (breaking: release {finding.mark.release}): "
                f"{' '.join(finding.mark.reason.split())}"
                if finding.mark is not None
                else "allowed by --allow-removed"
            )
            sink.emit(
                "H300",
                finding.span,
                f"{op.op_type}: {text}; breaks callers of {against} ({rule.code}); "
                + why,
                "callers of those releases must change; gen-ops changelog lists "
                "the change with its reason",
            )
        else:
            newest = finding.releases[-1].version
            hint = change.hint(_quote)
            if rule is not Rule.OP_REMOVED:
                hint += (
                    "; or, if the break is intended, mark it in the spec: breaking: "
                    f'[{{release: "{newest}", reason: ...}}]'
                )
            sink.emit(
                rule.code,
                finding.span,
                f"{op.op_type}: {text}; breaks callers of {against}",
                hint,
            )
