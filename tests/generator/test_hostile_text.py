"""Hostile text in specs (quotes, comment closers, backslashes, newlines,
Jinja markup, preprocessor lines, non-ASCII) lands as exactly that text in
valid Python and valid C++, and never as code."""

from __future__ import annotations

import inspect
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from helpers import ROOT, import_file, load_ops

from gen_ops.emit.literals import cpp_comment_lines, cpp_str, py_docstring_body, py_str

GOLDEN = ROOT / "tests/golden"
SPEC = yaml.safe_load((GOLDEN / "specs/hostile_text.yaml").read_text(encoding="utf-8"))
GXX = shutil.which("g++")


def _doc(text: str) -> str:
    """The doc as gen-ops keeps it: trailing spaces dropped, outer blank lines
    removed (semantics.doc)."""
    return "\n".join(line.rstrip() for line in text.split("\n")).strip()


def test_python_docstring_and_defaults_say_exactly_the_spec_text() -> None:
    module = import_file(GOLDEN / "expected/python/ge/es/golden/hostile_text_op.py")
    function = module.HostileTextOp
    doc = inspect.getdoc(function)
    assert doc is not None
    assert doc.startswith(_doc(SPEC["doc"]) + "\n\nArgs:")
    assert "x: " + SPEC["inputs"][0]["doc"] + " Dtype float32." in doc
    parameters = inspect.signature(function).parameters
    assert parameters["label"].default == SPEC["attrs"][0]["default"]
    assert parameters["names"].default == tuple(SPEC["attrs"][1]["default"])
    # Nothing from the text became code: the module defines only what it should.
    assert sorted(n for n in vars(module) if not n.startswith("__")) == [
        "HostileTextOp",
        "Sequence",
        "TensorHolder",
        "TensorLike",
        "_OP",
        "_api",
        "annotations",
    ]


def _comment_text(header: str) -> str:
    """The text of the doc comment above REG_OP, as a reader sees it."""
    block = header.split("namespace ge {\n", 1)[1].split("REG_OP(", 1)[0]
    lines: list[str] = []
    pending: str | None = None
    for line in block.splitlines():
        if pending is not None:  # the line after a block comment's backslash
            assert line == "*/"
            lines.append(pending)
            pending = None
        elif line.startswith("/*"):
            pieces = re.findall(r"/\*(.*?)\*/", line + "*/", flags=re.S)
            text = "".join(pieces)
            if line.endswith("\\") or line.endswith("??/"):
                pending = text
            else:
                lines.append(text)
        elif line == "//":
            continue  # swallowed by a splice
        else:
            assert line.startswith("///")
            lines.append(line[4:])
    return "\n".join(lines)


def test_cpp_comment_says_exactly_the_spec_text() -> None:
    header = (GOLDEN / "expected/include/golden/hostile_text_op.h").read_text(
        encoding="utf-8"
    )
    comment = _comment_text(header)
    assert _doc(SPEC["doc"]) in comment
    assert "x (required, float32): " + SPEC["inputs"][0]["doc"] in comment
    # The preprocessor line is inside a comment, not a directive.
    assert "\n#endif" not in header.split("#endif  //")[0].replace("/// #endif", "")


@pytest.mark.parametrize(
    "line",
    [
        "plain",
        "ends with a backslash \\",
        "*/ then backslash \\",
        "/* opens \\",
        "trigraph ??/",
        "a/**/b\\",
        "//\\",
        "*/",
        "\\\\",
    ],
)
def test_comment_lines_round_trip(line: str) -> None:
    text = f"before\n{line}\nafter"
    header = "namespace ge {\n" + "\n".join(cpp_comment_lines(text)) + "\nREG_OP("
    assert _comment_text(header) == text


@pytest.mark.skipif(GXX is None, reason="g++ is not installed")
def test_cpp_defaults_and_comments_compile_and_run(tmp_path: Path) -> None:
    """Compile the header into a program that prints the attr defaults, with
    every warning an error: the comments hide nothing and break nothing."""
    (tmp_path / "main.cc").write_text(
        '#include <cstdio>\n#include "golden/hostile_text_op.h"\n'
        "int main() {\n"
        "  ge::op::HostileTextOp op;\n"
        "  std::string label = op.get_attr_label();\n"
        "  std::fwrite(label.data(), 1, label.size(), stdout);\n"
        "  for (const auto &s : op.get_attr_names()) {\n"
        "    std::fputc(0, stdout); std::fwrite(s.data(), 1, s.size(), stdout);\n"
        "  }\n"
        "  return 0;\n"
        "}\n"
    )
    build = subprocess.run(
        [
            GXX,
            "-std=c++17",
            "-Wall",
            "-Wextra",
            "-Werror",
            f"-I{ROOT / 'tests/cpp'}",
            f"-I{GOLDEN / 'expected/include'}",
            "main.cc",
            "-o",
            "main",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert build.returncode == 0, build.stderr
    run = subprocess.run(
        [str(tmp_path / "main")], capture_output=True, timeout=30, check=True
    )
    label, *names = run.stdout.decode("utf-8").split("\0")
    assert label == SPEC["attrs"][0]["default"]
    assert names == SPEC["attrs"][1]["default"]


@pytest.mark.parametrize(
    "text",
    [
        '"""',
        "'''",
        'end"',
        '"start',
        "back\\slash",
        "tab\there",
        "new\nline",
        "ünï 😀",
        "\x00\x1f\x7f",
        "{{ x }}",
        "??/",
        "*/",
    ],
)
def test_python_literals_evaluate_to_the_text(text: str) -> None:
    assert eval(py_str(text)) == text
    if re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text):
        return  # docs may not hold control characters (E303)
    body = py_docstring_body(text)
    assert eval('"""' + body + ' """')[:-1] == text


@pytest.mark.parametrize("text", ['a"b', "c\\d", "new\nline", "??=", "ünï", "\x01"])
def test_cpp_string_literals_hold_the_text(text: str) -> None:
    literal = cpp_str(text)
    assert literal.startswith('"') and literal.endswith('"')
    assert "\n" not in literal and "??" not in literal


def test_every_golden_spec_is_valid() -> None:
    ops, sink = load_ops(GOLDEN / "specs")
    assert not sink.has_errors
    assert len(ops) == len(list((GOLDEN / "specs").glob("*.yaml"))) == 13


def _unsafe(text: str) -> list[str]:
    """Characters a reader cannot see for what they are: controls other than
    newline and tab, line and paragraph separators, bidi formatting."""
    return [
        f"U+{ord(ch):04X}"
        for ch in text
        if ch not in "\n\t" and not ch.isprintable() and ch != "\ufeff"
    ]


def test_no_generated_file_holds_invisible_or_bidi_characters() -> None:
    """Text from specs reaches every output (Python, C++, Markdown, JSON); the
    hostile strings in its defaults are escaped in each, never written raw."""
    expected = GOLDEN / "expected"
    for path in sorted(p for p in expected.rglob("*") if p.is_file()):
        text = path.read_text(encoding="utf-8")
        assert not _unsafe(text), (path.relative_to(expected), _unsafe(text))
        assert "\ufeff" not in text, path


def test_history_export_keeps_the_hostile_defaults_exactly() -> None:
    import json

    data = json.loads(
        (GOLDEN / "expected/history/golden/operators.json").read_text(encoding="utf-8")
    )
    (op,) = [o for o in data["operators"] if o["op_type"] == "HostileTextOp"]
    names = next(a for a in op["attrs"] if a["name"] == "names")
    assert json.loads(names["default_value"]) == SPEC["attrs"][1]["default"]
