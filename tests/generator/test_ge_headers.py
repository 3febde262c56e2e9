"""tests/cpp/ge_external: our copy of the declarations of GE's external graph
headers agrees with the project's one table of GE's enums and sets.

A program built against the copy prints every DataType and Format value and
the members of every named TensorType set (GE defines TensorType's
constructors in its library; the program defines them, over the
TensorTypeImpl the header leaves opaque). They must be ge_ir.types' values
(docs/ge-compat.md, "DataType values", "Format values", "Named TensorType
sets"; the sets in the order that page gives), and the headers must
declare no enumerator ge_ir.types lacks. Each header also compiles on its
own. What the copy's REG_OP accepts and refuses is tested with the generated
headers in test_cpp_headers.py.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ge_ir.types import NAMED_TENSOR_TYPES, DataType, Format

ROOT = Path(__file__).resolve().parents[2]
GE_EXTERNAL = ROOT / "tests/cpp/ge_external"
GXX = shutil.which("g++")
FLAGS = ("-std=c++17", "-Wall", "-Wextra", "-Werror", f"-I{GE_EXTERNAL}")

pytestmark = pytest.mark.skipif(GXX is None, reason="g++ is not on PATH")

# The program's own definition of what GE's library defines.
LIBRARY_PART = """\
namespace ge {
class TensorTypeImpl {
 public:
  std::vector<DataType> types;
};
TensorType::TensorType(DataType dt) : tensor_type_impl_(std::make_shared<TensorTypeImpl>()) {
  tensor_type_impl_->types.push_back(dt);
}
TensorType::TensorType(const std::initializer_list<DataType> &types)
    : tensor_type_impl_(std::make_shared<TensorTypeImpl>()) {
  tensor_type_impl_->types = types;
}
}  // namespace ge
"""


def _run(tmp_path: Path, body: str) -> str:
    assert GXX is not None
    (tmp_path / "main.cc").write_text(
        '#include <cstdio>\n#include "graph/operator_reg.h"\n\n'
        + LIBRARY_PART
        + "\nint main() {\n"
        + body
        + "  return 0;\n}\n",
        encoding="utf-8",
    )
    build = subprocess.run(
        [GXX, *FLAGS, "main.cc", "-o", "main"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "LC_ALL": "C"},
    )
    assert build.returncode == 0, build.stderr
    run = subprocess.run(
        [str(tmp_path / "main")], capture_output=True, text=True, timeout=30, check=True
    )
    return run.stdout


def _enumerators(prefix: str) -> list[str]:
    """The enumerators ``prefix...`` that graph/types.h declares."""
    text = (GE_EXTERNAL / "graph/types.h").read_text(encoding="utf-8")
    return re.findall(rf"^\s*({prefix}\w+) = ::C_", text, flags=re.MULTILINE)


def test_datatype_and_format_values_are_ge_irs(tmp_path: Path) -> None:
    body = "".join(
        f'  std::printf("%s %d\\n", "{m.name}", static_cast<int>(ge::{m.name}));\n'
        for m in [*DataType, *Format]
    )
    printed = dict(line.split() for line in _run(tmp_path, body).splitlines())
    assert {k: int(v) for k, v in printed.items()} == {
        m.name: m.value for m in [*DataType, *Format]
    }
    assert sorted(_enumerators("DT_")) == sorted(m.name for m in DataType)
    assert sorted(_enumerators("FORMAT_")) == sorted(m.name for m in Format)


def test_named_sets_have_ge_irs_members(tmp_path: Path) -> None:
    body = "".join(
        f"  {{\n    ge::TensorType set = ge::TensorType::{name}();\n"
        f'    std::printf("{name}");\n'
        "    for (auto dt : set.tensor_type_impl_->types) "
        '{ std::printf(" %d", static_cast<int>(dt)); }\n'
        '    std::printf("\\n");\n  }\n'
        for name in NAMED_TENSOR_TYPES
    )
    printed: dict[str, list[int]] = {}
    for line in _run(tmp_path, body).splitlines():
        name, *words = line.split()
        printed[name] = [int(w) for w in words]
    for name, members in printed.items():
        assert len(members) == len(set(members)), f"{name} lists a dtype twice"
    assert {n: frozenset(DataType(m) for m in ms) for n, ms in printed.items()} == {
        n: t.types for n, t in NAMED_TENSOR_TYPES.items()
    }
    # ... and in GE's order, as docs/ge-compat.md lists them.
    table = dict(
        re.findall(
            r"^\| `(\w+)` \| ([A-Z0-9_, ]+) \|$",
            (ROOT / "docs/ge-compat.md").read_text(encoding="utf-8"),
            flags=re.MULTILINE,
        )
    )
    assert {
        n: [DataType(m).name.removeprefix("DT_") for m in ms]
        for n, ms in printed.items()
    } == {n: table[n].split(", ") for n in printed}
    declared = re.findall(
        r"static TensorType (\w+)\(\)",
        (GE_EXTERNAL / "graph/types.h").read_text(encoding="utf-8"),
    )
    assert sorted(declared) == sorted(NAMED_TENSOR_TYPES)


@pytest.mark.parametrize(
    "header", sorted(p.name for p in (GE_EXTERNAL / "graph").glob("*.h"))
)
def test_each_header_compiles_on_its_own(tmp_path: Path, header: str) -> None:
    assert GXX is not None
    source = tmp_path / "one.cc"
    source.write_text(f'#include "graph/{header}"\n#include "graph/{header}"\n')
    result = subprocess.run(
        [GXX, *FLAGS, "-fsyntax-only", str(source)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_named_attrs_is_declared_and_never_defined() -> None:
    """As in GE's external headers (Note [NamedAttrs in REG_OP] in
    gen_ops/lowering/reg_op.py relies on it)."""
    texts = "\n".join(
        p.read_text(encoding="utf-8") for p in (GE_EXTERNAL / "graph").glob("*.h")
    )
    assert re.search(r"^class NamedAttrs;", texts, flags=re.MULTILINE)
    assert not re.search(r"\b(class|struct) NamedAttrs\s*[{:]", texts)
