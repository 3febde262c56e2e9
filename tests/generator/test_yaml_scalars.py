"""Plain YAML scalars read as the YAML 1.2 core schema reads them; the
loader matches only scalars that can start a number, a boolean or null
against the schema's patterns, and that shortcut never changes a tag."""

from __future__ import annotations

import math
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from gen_ops.base.diagnostics import Sink
from gen_ops.spec import source


def _by_patterns(text: str) -> str:
    """The tag by the patterns alone, every scalar matched."""
    match = source._PLAIN.fullmatch(text)
    return source._PLAIN_TAGS[match.lastgroup] if match else source._STR


def _resolve(text: str, plain: bool = True) -> str:
    loader = source._Loader("")
    try:
        return str(loader.resolve(yaml.ScalarNode, text, (plain, not plain)))
    finally:
        loader.dispose()


@given(st.text())
def test_the_first_character_shortcut_changes_no_tag(text: str) -> None:
    assert _resolve(text) == _by_patterns(text)


@pytest.mark.parametrize("tag, pattern, starts", source._IMPLICIT)
def test_each_pattern_starts_with_a_listed_character(
    tag: str, pattern: str, starts: str
) -> None:
    @given(st.from_regex(pattern, fullmatch=True))
    def starts_as_listed(text: str) -> None:
        assert text == "" or text[0] in starts, (tag, text)

    starts_as_listed()


def test_quoted_scalars_and_collections_are_not_matched() -> None:
    assert _resolve("1", plain=False) == source._STR
    loader = source._Loader("")
    try:
        assert loader.resolve(yaml.SequenceNode, None, True) == source._SEQ
        assert loader.resolve(yaml.MappingNode, None, True) == source._MAP
    finally:
        loader.dispose()


# fmt: off
VALUES: list[tuple[str, Any]] = [
    ("~", None), ("null", None), ("NULL", None), ("", None), ("nil", "nil"),
    ("true", True), ("False", False), ("yes", "yes"), ("on", "on"), ("n", "n"),
    ("0x1F", 31), ("0o17", 15), ("-12", -12), ("+5", 5), ("012", 12),
    ("1e-8", 1e-8), ("-.5", -0.5), ("2.", 2.0), ("-.inf", -math.inf),
    (".Inf", math.inf), ("T", "T"), ("float32", "float32"), ("name", "name"),
    ("1.2.3", "1.2.3"), ("0x", "0x"), ("-x", "-x"), (".", "."), ("+", "+"),
    ("truely", "truely"), ("Null value", "Null value"),
]
# fmt: on


@pytest.mark.parametrize("text, value", VALUES, ids=[v[0] or "empty" for v in VALUES])
def test_plain_scalars_read_as_the_core_schema_says(text: str, value: Any) -> None:
    loaded = source.load_spec_text(f"v: {text}\n".encode(), "t.yaml", Sink())
    assert loaded is not None
    got = loaded.data["v"]
    assert type(got) is type(value) and got == value


def test_nan_is_a_float() -> None:
    loaded = source.load_spec_text(b"v: .nan\n", "t.yaml", Sink())
    assert loaded is not None and math.isnan(loaded.data["v"])


@pytest.mark.parametrize("text, value", VALUES, ids=[v[0] or "empty" for v in VALUES])
def test_reads_as_string_says_what_the_loader_reads(text: str, value: Any) -> None:
    assert source.reads_as_string(text) == isinstance(value, str)


@pytest.mark.parametrize("text", ["0E0", "0e0", "1_000", "-.5", "null", "<<", "="])
def test_the_importer_quotes_what_would_not_read_back_as_the_string(
    text: str,
) -> None:
    from gen_ops.importer.yaml_writer import plain_ok, scalar

    loaded = source.load_spec_text(f"v: [{scalar(text)}]\n".encode(), "t.yaml", Sink())
    assert loaded is not None and loaded.data["v"] == [text]
    assert plain_ok(text, flow=False) == (text == "1_000")
