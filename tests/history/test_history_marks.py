"""The spec's ``breaking:`` marks: a mark names the release whose callers
the op breaks on purpose and covers that release and every earlier one;
compat reports what it covers as H300 (exit 0), and a mark naming no
release of the registry as H501. The key's own checks are spec checks."""

from __future__ import annotations

from pathlib import Path

from helpers import load_ops
from history_helpers import Project, project  # noqa: F401

from gen_ops.spec.model import BreakingMark

V1 = """\
op: Pad
inputs:
  - {name: x, dtype: float32}
  - {name: paddings, dtype: int64}
outputs:
  - {name: y, dtype: float32}
"""
V2 = V1.replace("  - {name: paddings, dtype: int64}\n", "")  # removes an input
V3 = V2 + "attrs:\n  - {name: mode, type: str}\n"  # adds a required attr


def marked(text: str, *marks: tuple[str, str]) -> str:
    return (
        text
        + "breaking:\n"
        + "".join(
            f'  - {{release: "{release}", reason: {reason}}}\n'
            for release, reason in marks
        )
    )


def three_releases(project: Project) -> None:
    """1.0.0 and 1.1.0 have paddings; 1.2.0 dropped it (a break of 1.1.0)."""
    project.spec("pad.yaml", V1)
    project.release("1.0.0", "2026-01-01")
    project.release("1.1.0", "2026-02-01")
    project.spec("pad.yaml", marked(V2, ("1.1.0", "the kernel pads by itself")))
    project.release("1.2.0", "2026-03-01")


def test_a_mark_makes_the_break_intended(project: Project) -> None:
    project.spec("pad.yaml", V1)
    project.release("1.0.0", "2026-01-01")
    project.spec("pad.yaml", marked(V2, ("1.0.0", "the kernel pads by itself")))
    run = project.compat("--release-version", "1.0.0")
    assert run.status == 0
    assert run.lines == [
        "specs/pad.yaml:1:5: warning[H300]: Pad: input 'paddings' removed; breaks "
        "callers of release 1.0.0 (H301); marked intended (breaking: release 1.0.0): "
        "the kernel pads by itself"
    ]
    assert run.err.splitlines()[-1].startswith(
        "gen-ops compat: 1 op(s) compared with release 1.0.0: 0 breaking change(s), "
        "1 marked intended, 0 compatible or to review ("
    )


def test_a_mark_covers_its_release_and_earlier_ones(project: Project) -> None:
    three_releases(project)
    run = project.compat("--release-version", "1.2.0")
    assert run.status == 0
    assert run.lines == [
        "specs/pad.yaml:1:5: warning[H300]: Pad: input 'paddings' removed; breaks "
        "callers of releases 1.0.0 and 1.1.0 (H301); marked intended (breaking: "
        "release 1.1.0): the kernel pads by itself"
    ]


def test_a_mark_does_not_cover_a_later_release(project: Project) -> None:
    three_releases(project)
    project.spec("pad.yaml", marked(V3, ("1.1.0", "the kernel pads by itself")))
    run = project.compat("--release-version", "1.2.0")
    assert run.status == 1
    assert run.lines == [
        "specs/pad.yaml:1:5: warning[H300]: Pad: input 'paddings' removed; breaks "
        "callers of releases 1.0.0 and 1.1.0 (H301); marked intended (breaking: "
        "release 1.1.0): the kernel pads by itself",
        "specs/pad.yaml:7:12: error[H316]: Pad: new attr 'mode' is required; breaks "
        "callers of releases 1.0.0, 1.1.0 and 1.2.0",
    ]
    assert run.hints[1].endswith(
        'mark it in the spec: breaking: [{release: "1.2.0", reason: ...}]'
    )
    project.spec(
        "pad.yaml",
        marked(V3, ("1.1.0", "the kernel pads by itself"), ("1.2.0", "modes")),
    )
    again = project.compat("--release-version", "1.2.0")
    assert again.status == 0
    assert "(H316); marked intended (breaking: release 1.2.0): modes" in again.err


def test_a_mark_naming_no_release(project: Project) -> None:
    project.spec("pad.yaml", V1)
    project.release("1.0.0", "2026-01-01")
    project.spec("pad.yaml", marked(V2, ("2.0.0", "the next one")))
    run = project.compat("--release-version", "1.0.0")
    assert run.status == 1
    assert run.lines == [
        "specs/pad.yaml:1:5: error[H301]: Pad: input 'paddings' removed; breaks "
        "callers of release 1.0.0",
        "specs/pad.yaml:7:15: warning[H501]: Pad: breaking names release '2.0.0', "
        "which the registry does not list; the mark covers nothing",
    ]
    assert run.hints[1] == (
        "name the release whose callers the change breaks (the newest is 1.0.0), or "
        "remove the mark"
    )


def test_the_model_keeps_the_marks(tmp_path: Path) -> None:
    (tmp_path / "pad.yaml").write_text(
        V1 + "breaking:\n  - release: 1.0.0\n    reason: |\n      One.\n      Two.\n"
    )
    ops, sink = load_ops(tmp_path / "pad.yaml")
    assert not sink.items
    mark = ops[0].breaking[0]
    assert mark == BreakingMark("1.0.0", "One.\nTwo.", mark.span)
    assert (mark.span.line, mark.span.col) == (8, 14)


def _errors(tmp_path: Path, text: str) -> list[str]:
    (tmp_path / "pad.yaml").write_text(text)
    ops, sink = load_ops(tmp_path / "pad.yaml")
    assert ops == []
    return [d.format().split("\n")[0].split(": ", 1)[1] for d in sink.sorted()]


def test_the_key_is_checked_as_a_spec_key(tmp_path: Path) -> None:
    assert _errors(tmp_path, marked(V1, ("1.0", "a"), ("1.0", "b"))) == [
        "error[E301]: Pad: breaking names release '1.0' twice (also breaking[0])"
    ]
    assert _errors(tmp_path, marked(V1, ("1.0", '"a\u202eb"'))) == [
        "error[E303]: Pad: text holds U+202E (RIGHT-TO-LEFT OVERRIDE), a bidi "
        "formatting character"
    ]
    assert _errors(tmp_path, marked(V1, ("1.0", '"  "'))) == [
        "error[E204]: breaking[0].reason: '  ' is not valid"
    ]
    assert _errors(tmp_path, V1 + "breaking:\n  - {release: '1.0'}\n") == [
        "error[E202]: missing required key 'reason' in breaking[0]"
    ]
    assert _errors(tmp_path, V1 + "breaking:\n  - {release: 1.0, reason: a}\n") == [
        "error[E203]: breaking[0].release must be a string, not a number"
    ]
    assert _errors(tmp_path, V1 + "breaking: {'1.0': a}\n") == [
        "error[E203]: breaking must be a list, not a mapping"
    ]
