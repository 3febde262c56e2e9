"""gen-ops changelog: each release against the one before, the current
specs against the newest, in Markdown, exactly."""

from __future__ import annotations

from history_helpers import Project, project  # noqa: F401

PAD = """\
op: Pad
doc: Pads x.
inputs:
  - {name: x, dtype: float32}
  - {name: paddings, dtype: int64}
outputs:
  - {name: y, dtype: float32}
"""
VALUE = "attrs:\n  - {name: value, type: float, default: 0.0}\n"
PADDINGS = "  - {name: paddings, dtype: int64}\n"
MARK = "breaking:\n  - {release: 1.1.0, reason: The kernel pads\n      by itself.}\n"

EXPECTED = """\
# Changelog

What each release of `reg` changed, newest first; "Unreleased" compares the current specs with the newest release.

## Unreleased

### Changed

- `Keep`: doc of the op changed

### Deprecated

- `Keep`: op deprecated in 1.3.0

### Breaking

- `Fresh`: new attr `k` is required (H316).

## 1.2.0 (2026-03-01)

### Breaking

- `Pad`: input `paddings` removed (H301). Reason: The kernel pads by itself.

## 1.1.0 (2026-02-01)

### Added

- `Fresh`

### Removed

- `Gone`

### Changed

- `Pad`: new optional attr `value`; doc of the op changed

## 1.0.0 (2026-01-01)

### Added

- `Gone`
- `Keep`
- `Pad`
"""


def test_the_changelog(project: Project) -> None:
    project.spec("pad.yaml", PAD)
    project.spec("gone.yaml", "op: Gone\n")
    project.spec("keep.yaml", "op: Keep\n")
    project.release("1.0.0", "2026-01-01")
    project.drop("gone.yaml")
    project.spec("fresh.yaml", "op: Fresh\n")
    project.spec("pad.yaml", PAD.replace("Pads x.", "Pads x with zeros.") + VALUE)
    project.release("1.1.0", "2026-02-01")
    project.spec(
        "pad.yaml", PAD.replace("Pads x.", "Pads x with zeros.") + VALUE + MARK
    )
    project.spec("pad.yaml", project.root.joinpath("specs/pad.yaml").read_text()
                 .replace(PADDINGS, ""))  # fmt: skip
    project.release("1.2.0", "2026-03-01")
    project.spec("keep.yaml", 'op: Keep\ndeprecated: "1.3.0"\ndoc: Use Pad.\n')
    project.spec("fresh.yaml", "op: Fresh\nattrs:\n  - {name: k, type: int}\n")
    run = project.gen("changelog", "--registry", "reg")
    assert (run.status, run.err) == (0, "")
    assert run.out == EXPECTED


def test_a_release_without_changes(project: Project) -> None:
    project.spec("keep.yaml", "op: Keep\n")
    project.release("1.0.0", "2026-01-01")
    project.release("1.0.1", "2026-01-02")
    run = project.gen("changelog", "--registry", "reg")
    assert run.out.split("## ")[1:3] == [
        "Unreleased\n\nNo changes.\n\n",
        "1.0.1 (2026-01-02)\n\nNo changes.\n\n",
    ]


def test_changelog_exit_statuses(project: Project) -> None:
    project.spec("keep.yaml", "op: Keep\n")
    assert project.gen("changelog", "--registry", "reg").status == 2  # H101
    project.release("1.0.0", "2026-01-01")
    assert project.gen("changelog", "--registry", "reg", "--format", "md").status == 2
    project.spec("keep.yaml", "op: kee-p\n")
    assert project.gen("changelog", "--registry", "reg").status == 2  # E204
