"""The docs of the history commands are real: docs/diagnostics.md has a
section per H-code whose example, run, prints what it shows, and the walk
through of docs/releases.md replays as written."""

from __future__ import annotations

import re
import shlex

import pytest
from helpers import ROOT
from history_helpers import Project, project  # noqa: F401

from gen_ops.base.diagnostics import CODES

DIAGNOSTICS = ROOT / "docs" / "diagnostics.md"
RELEASES = ROOT / "docs" / "releases.md"
H_CODES = sorted(code for code in CODES if code.startswith("H"))
SETUP = "gen-ops release 1.0.0 --date 2026-01-10 --registry reg --specs v1 -q"
# A summary line that gives the time a command took.
TIMED = re.compile(r"^gen-ops \w+: .*\(\d+\.\d\d s\)$")


def _chapter() -> tuple[str, dict[str, str]]:
    """The H chapter's introduction and its sections by code."""
    text = DIAGNOSTICS.read_text(encoding="utf-8")
    chapter = text.split("## gen-ops release, compat and changelog\n", 1)[1]
    chapter = chapter.split("\n## ", 1)[0]
    parts = re.split(r"^### (H\d{3})\b.*$", chapter, flags=re.M)
    return parts[0], dict(zip(parts[1::2], parts[2::2]))


def _blocks(text: str) -> list[tuple[str, str]]:
    return re.findall(r"^```(\w+)\n(.*?)^```$", text, flags=re.M | re.S)


def _files(project: Project, text: str) -> None:
    """Write every yaml and json block whose first line names its path."""
    for kind, body in _blocks(text):
        first, _, rest = body.partition("\n")
        named = re.fullmatch(r"(?:#|//) (\S+)", first)
        if kind in ("yaml", "json") and named:
            target = project.root / named.group(1)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(rest, encoding="utf-8")


def _replay(project: Project, console: str) -> tuple[list[str], list[str]]:
    """Run each ``$ gen-ops ...`` of a console block; what was printed and
    what the block shows, timed summary lines left out of both."""
    shown: list[str] = []
    printed: list[str] = []
    for line in console.splitlines():
        if line.startswith("$ "):
            words = shlex.split(line[2:])
            assert words[0] == "gen-ops", line
            run = project.gen(*words[1:])
            printed += (run.err + run.out).splitlines()
        elif not TIMED.match(line):
            shown.append(line)
    return [line for line in printed if not TIMED.match(line)], shown


def test_a_section_per_h_code() -> None:
    text = DIAGNOSTICS.read_text(encoding="utf-8")
    headings = re.findall(r"^### (H\d{3})\b(.*)$", text, flags=re.M)
    assert [code for code, _ in headings] == H_CODES
    for code, title in headings:
        assert f"{code}{title}" == f"{code} {CODES[code].title}"


def test_the_chapter_says_how_the_examples_start() -> None:
    intro, _ = _chapter()
    assert f"`{SETUP}`" in intro.replace("\n", " ")


@pytest.mark.parametrize("code", H_CODES)
def test_the_example_is_real(code: str, project: Project) -> None:
    intro, sections = _chapter()
    _files(project, intro)
    assert project.gen(*shlex.split(SETUP)[1:]).status == 0
    section = sections[code]
    _files(project, section)
    consoles = [body for kind, body in _blocks(section) if kind == "console"]
    assert len(consoles) == 1, code
    printed, shown = _replay(project, consoles[0])
    assert printed == shown
    assert any(f"[{code}]" in line for line in printed), code
    assert "**Fix:**" in section


def test_the_walk_through_of_releases_md(project: Project) -> None:
    walk = RELEASES.read_text(encoding="utf-8").split("## A walk through\n", 1)[1]
    walk = walk.split("\n## The registry\n", 1)[0]
    _files(project, walk)
    consoles = [body for kind, body in _blocks(walk) if kind == "console"]
    assert len(consoles) == 3
    for console in consoles:
        printed, shown = _replay(project, console)
        assert printed == shown
