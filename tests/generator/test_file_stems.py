"""File stems are importable module names (Note [File stems] in
gen_ops/lowering/layout.py): ops GE names ``If``, ``While``, ``Assert`` or ``_If``
get modules ``if_``, ``while_``, ``assert_`` and ``_if``, and a whole
project of them renders, scaffolds its author modules, imports and
registers."""

from __future__ import annotations

import keyword
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gen_ops.cli import main
from gen_ops.lowering.layout import file_stem

OPS = ["If", "While", "For", "Assert", "Import", "_If", "_ParallelConcatStart"]


@pytest.mark.parametrize("op_type", OPS + list(map(str.title, keyword.kwlist)))
def test_every_stem_is_a_module_name(op_type: str) -> None:
    stem = file_stem(op_type)
    assert stem.isidentifier() and not keyword.iskeyword(stem), stem


def test_keywords_get_a_trailing_underscore() -> None:
    assert [file_stem(op) for op in OPS] == [
        "if_",
        "while_",
        "for_",
        "assert_",
        "import_",
        "_if",
        "_parallel_concat_start",
    ]


SPEC = """
op: {op}
module: {module}
inputs:
  - {{name: x, dtype: float32}}
outputs:
  - {{name: y, dtype: float32}}
infer_meta:
  y: {{shape: same_as(x), dtype: x}}
impl:
  capabilities: [execute]
"""

CHECK = """
import sys
from ge.custom_op import get_registered_op_proto_by_op_type
from ge.custom_op import bootstrap
import ge.es.{module} as package
for op in sys.argv[1:]:
    assert callable(getattr(package, op)), op
bootstrap.load_custom_op_plugins({authors!r})
for op in sys.argv[1:]:
    assert get_registered_op_proto_by_op_type(op) is not None, op
print("ok")
"""


def test_a_project_of_keyword_ops_renders_scaffolds_imports_and_registers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    specs = tmp_path / "specs"
    specs.mkdir()
    ops = ["If", "Assert", "_If"]
    for op in ops:
        text = SPEC.format(op=op, module="kw")
        (specs / f"{file_stem(op)}.yaml").write_text(text, encoding="utf-8")
    assert main(["--out", "out", "-q"]) == 0
    authors = sorted((tmp_path / "ops/kw").glob("*.py"))
    assert [p.name for p in authors] == ["_if.py", "assert_.py", "if_.py"]
    assert (tmp_path / "out/python/ge/es/kw/if_.py").is_file()
    assert (tmp_path / "out/python/ge_impl/kw/assert_.py").is_file()
    for author in authors:  # the scaffolds' stubs, made concrete
        text = author.read_text(encoding="utf-8")
        author.write_text(
            text.replace("raise NotImplementedError", "return None  # "),
            encoding="utf-8",
        )
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "out/python"))
    env.pop("ASCEND_CUSTOM_OPP_PATH", None)
    code = CHECK.format(module="kw", authors=os.pathsep.join(map(str, authors)))
    result = subprocess.run(
        [sys.executable, "-c", code, *ops],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
