"""Graph.dump_to_file (issue 8, finding 6): the graph's name and the suffix
become part of a file name in the dump directory, and nothing in them can
lead the file elsewhere or make an invalid name."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ge.graph import DumpFormat, Graph


@pytest.fixture
def dump_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "dumps"
    directory.mkdir()
    monkeypatch.setenv("DUMP_GRAPH_PATH", str(directory))
    monkeypatch.chdir(tmp_path)
    return directory


def dumped(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def test_a_plain_name_is_kept(dump_dir: Path) -> None:
    path = Graph("my_graph-v1.2").dump_to_file(suffix="_after")
    assert Path(path) == dump_dir / "ge_readable_my_graph-v1.2_after.txt"
    assert Path(path).read_text().startswith('graph("my_graph-v1.2"):\n')


@pytest.mark.parametrize(
    "name",
    [
        "../../escaped",
        "/etc/passwd",
        "a/b/c",
        "..",
        "...",
        "a\\..\\b",
        "nul\x00byte",
        "line\nbreak\ttab\x1b[31m",
        "del\x7f",
        "\u202eright-to-left",
        "lone\udcffsurrogate",
    ],
)
def test_a_hostile_name_stays_one_file_in_the_dump_directory(
    dump_dir: Path, tmp_path: Path, name: str
) -> None:
    path = Path(Graph(name).dump_to_file())
    assert path.parent == dump_dir
    assert dumped(dump_dir) == [path.name]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dumps"]
    assert ".." not in path.name and "/" not in path.name and "\\" not in path.name
    assert all(ch.isprintable() and not ch.isspace() for ch in path.name)
    assert path.name.startswith("ge_readable_") and path.name.endswith(".txt")


def test_the_suffix_is_sanitised_too(dump_dir: Path) -> None:
    path = Path(Graph("g").dump_to_file(suffix="/../../x\n"))
    assert path.parent == dump_dir
    assert path.name == "ge_readable_g_______x_.txt"


def test_unicode_letters_and_digits_are_kept(dump_dir: Path) -> None:
    path = Path(Graph("图_ü1").dump_to_file())
    assert path.name == "ge_readable_图_ü1.txt"


def test_a_long_name_is_shortened_and_stays_distinct(dump_dir: Path) -> None:
    first = Path(Graph("x" * 1000 + "a").dump_to_file())
    second = Path(Graph("x" * 1000 + "b").dump_to_file())
    assert first != second
    for path in (first, second):
        assert len(path.name.encode()) <= 255 and path.parent == dump_dir
    # Deterministic: the same name gives the same file.
    assert Path(Graph("x" * 1000 + "a").dump_to_file()) == first


def test_the_current_directory_without_dump_graph_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DUMP_GRAPH_PATH", raising=False)
    monkeypatch.chdir(tmp_path)
    path = Graph("../up").dump_to_file()
    assert Path(path).resolve().parent == tmp_path.resolve()
    assert os.path.basename(path) == "ge_readable_.._up.txt".replace("..", "__")


def test_bad_arguments(dump_dir: Path) -> None:
    with pytest.raises(TypeError, match="suffix"):
        Graph("g").dump_to_file(suffix=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="format"):
        Graph("g").dump_to_file(format="readable")  # type: ignore[arg-type]
    assert Graph("g").dump_to_file(DumpFormat.kReadable)
