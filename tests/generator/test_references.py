"""What the code and docs cite exists: documents inside the repository only,
sections of docs/ge-compat.md that are there, and Notes that are defined and
name only what exists.

ROOTS are the trees held to this: everything in the repository that is
written by hand."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

THIS = Path(__file__).resolve()
ROOT = THIS.parents[2]
ROOTS = [
    "README.md",
    "docs",
    "generator",
    "templates",
    "runtime/ge",
    "runtime/ge_ir",
    "examples",
    "bench",
    "specs",
    "ops",
    "tests/generator",
    "tests/runtime",
    "tests/offline",
    "tests/importer",
    "tests/history",
    "tests/golden/specs",
]
TEXT_SUFFIXES = {".py", ".md", ".j2", ".yaml", ".json", ".c", ".h", ".cc", ".toml"}
# Documents that live outside the repository, and paths that lead there.
OUTSIDE = re.compile(
    r"ge-reference\.md|spec-format\.md|regop-facts\.md|runtime-contract\.md"
    r"|style\.md|\bseeds/|shared/docs|/work/"
)
GE_COMPAT = ROOT / "docs" / "ge-compat.md"
SECTION_CITATION = re.compile(r'ge-compat\.md,\s+"([^"]+)"')
ANCHOR_CITATION = re.compile(r"ge-compat\.md#([\w-]+)")
FILE_SUFFIXES = {"py", "pyi", "json", "yaml", "yml", "h", "cc", "cpp", "md", "j2", "so"}
NOTE = re.compile(r"Note \[([^\]]+)\]")
NOTE_DEFINITION = re.compile(r"Note \[([^\]]+)\]:")


def files(root: str) -> Iterator[Path]:
    """The text files under ``root``; this test, which spells what it looks
    for, left out."""
    path = ROOT / root
    if path.is_file():
        yield path
        return
    for item in sorted(path.rglob("*")):
        if item.is_file() and item.suffix in TEXT_SUFFIXES and item != THIS:
            yield item


def lines(root: str) -> Iterator[tuple[str, int, str]]:
    for path in files(root):
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            yield path.relative_to(ROOT).as_posix(), number, line


def _anchor(heading: str) -> str:
    """A Markdown heading's anchor, as GitHub makes it."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _sections() -> set[str]:
    text = GE_COMPAT.read_text(encoding="utf-8")
    return {m.group(1).strip() for m in re.finditer(r"^#{2,3} (.+)$", text, re.M)}


@pytest.mark.parametrize("root", ROOTS)
def test_no_citation_leaves_the_repository(root: str) -> None:
    found = [
        f"{path}:{number}: {line.strip()}"
        for path, number, line in lines(root)
        if OUTSIDE.search(line)
    ]
    assert found == []


def test_ge_compat_citations_name_its_sections() -> None:
    sections = _sections()
    anchors = {_anchor(s) for s in sections}
    cited = 0
    wrong = []
    for root in ROOTS:
        for path, number, line in lines(root):
            for match in SECTION_CITATION.finditer(line):
                cited += 1
                if match.group(1) not in sections:
                    wrong.append(f"{path}:{number}: section {match.group(1)!r}")
            for match in ANCHOR_CITATION.finditer(line):
                cited += 1
                if match.group(1) not in anchors:
                    wrong.append(f"{path}:{number}: anchor #{match.group(1)}")
    assert wrong == []
    assert cited > 10  # the code and docs do cite it


def _paragraph(text: str, start: int) -> str:
    """From ``start`` to the end of its paragraph: in a comment, the comment
    lines that follow (up to one with nothing after the marker); elsewhere,
    up to a blank line."""
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].lstrip().startswith("#"):
        kept = []
        for line in text[line_start:].split("\n"):
            if not line.lstrip().startswith("#") or not line.strip("# \t"):
                break
            kept.append(line)
        return "\n".join(kept)[start - line_start :]
    return re.split(r"\n\s*\n", text[start:], maxsplit=1)[0]


def _note_blocks() -> dict[str, list[tuple[str, str]]]:
    """Each Note's definitions, ``Note [X]:`` and its paragraph, with where
    they stand."""
    blocks: dict[str, list[tuple[str, str]]] = {}
    for root in ROOTS:
        for path in files(root):
            text = path.read_text(encoding="utf-8")
            for match in NOTE_DEFINITION.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                where = f"{path.relative_to(ROOT).as_posix()}:{line}"
                paragraph = _paragraph(text, match.start())
                blocks.setdefault(match.group(1), []).append((where, paragraph))
    return blocks


def test_every_cited_note_is_defined() -> None:
    defined = set(_note_blocks())
    missing = [
        f"{path}:{number}: Note [{title}]"
        for root in ROOTS
        for path, number, line in lines(root)
        for title in NOTE.findall(line)
        if title not in defined and title != "Title"  # design.md's placeholder
    ]
    assert missing == []


def _defined_names() -> dict[str, set[str]]:
    """The identifiers each module of ours uses outside its Notes, by module
    name (``names`` holds the words of every ``names.py``)."""
    words: dict[str, set[str]] = {}
    for root in ["generator", "runtime"]:
        for path in (ROOT / root).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            notes = [
                _paragraph(text, m.start()) for m in NOTE_DEFINITION.finditer(text)
            ]
            for note in notes:
                text = text.replace(note, "")
            found = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
            words.setdefault(path.stem, set()).update(found)
    return words


def test_what_a_note_names_exists() -> None:
    """A ``module.name`` a Note names, where the module is one of ours, is
    a name that module uses, so a Note cannot point at a function that was
    renamed or never written."""
    modules = _defined_names()
    unknown = []
    for title, definitions in _note_blocks().items():
        for where, text in definitions:
            # A file name (``__init__.pyi``, ``op-spec.schema.json``) is no
            # module.name: a suffix, or a word inside a dashed name.
            for module, name in re.findall(
                r"(?<![-/])\b([a-z_][a-z0-9_]*)\.([A-Za-z_]\w*)", text
            ):
                if name in FILE_SUFFIXES:
                    continue
                if module in modules and name not in modules[module]:
                    unknown.append(f"{where}: Note [{title}] names {module}.{name}")
    assert unknown == []


def test_the_note_check_sees_a_missing_function() -> None:
    """The check above, on the Note that named lower_python.assign_names."""
    modules = _defined_names()
    assert "assign_names" not in modules["lower_python"]
    assert "python_names" in modules["names"]
