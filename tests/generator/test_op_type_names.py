"""Which op types gen-ops refuses (E304), each refusal proven by the failure
it prevents, and the names it no longer refuses proven to work.

C++ (Note [Names REG_OP refers to] in gen_ops/lowering/reg_op.py): an op class named
like a GE name REG_OP's expansion refers to hides it, in its own header and
in every header after it in the translation unit; g++ against GE's external
headers (tests/cpp/ge_external, whose REG_OP expands as GE's does) shows
the failure, and a control that only renames the op compiles against them
and against the project's stand-in (tests/cpp/graph/operator_reg.h), which
every generated header is compiled with too. Python: an op named like a
name its builder module or author module imports hides that name from the
module's annotations, which then no longer resolve to what they say.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from helpers import ROOT, load_ops, write_tree

from ge_ir.attrs import AttrType
from ge_ir.types import DataType
from gen_ops import pipeline
from gen_ops.emit.outputs import Target
from gen_ops.lowering import layout
from gen_ops.lowering.reg_op import GE_NAMES, UNDECLARABLE_ATTR_TYPES, ge_names_of

GXX = shutil.which("g++")
needs_gxx = pytest.mark.skipif(GXX is None, reason="g++ is not on PATH")
# The include directories: GE's external headers, where each refusal is
# proven, and the project's stand-in, where the controls compile as well.
GE_EXTERNAL = ROOT / "tests/cpp/ge_external"
STAND_IN = ROOT / "tests/cpp"

# A second op that uses every element, so its expansion refers to every
# GE name REG_OP can, and code that uses its accessors as GE documents them
# (each returns GE's own type: a hidden name changes what it returns). No
# named_attrs attr: none compiles against GE's headers, and gen-ops leaves
# them out of REG_OP (Note [NamedAttrs in REG_OP]).
EVERY_ELEMENT = """REG_OP(Second)
    .INPUT(x, "T")
    .OPTIONAL_INPUT(b, TensorType({DT_FLOAT}))
    .DYNAMIC_INPUT(xs, "L")
    .OUTPUT(y, "P")
    .DYNAMIC_OUTPUT(ys, "L")
    .ATTR(t, Tensor, Tensor())
    .ATTR(dt, Type, %s)
    .REQUIRED_ATTR(n, Int)
    .GRAPH(g)
    .DYNAMIC_GRAPH(gs)
    .DATATYPE(T, TensorType({DT_FLOAT, DT_INT32}))
    .DATATYPE(U, TensorType::ALL())
    .DATATYPE(L, ListTensorType(TensorType::BasicType()))
    .DATATYPE(P, Promote({"T", "U"}))
    .OP_END_FACTORY_REG(Second);

inline void UseSecond() {
  op::Second second("node");
  TensorDesc input = second.get_input_desc_x();
  TensorDesc instance = second.get_dynamic_input_desc_xs(0);
  TensorDesc output = second.get_output_desc_y();
  Graph graph = second.get_subgraph_g();
  SubgraphBuilder builder = second.get_subgraph_builder_g();
  Tensor tensor = second.get_attr_t();
  DataType dtype = second.get_attr_dt();
  int64_t n = second.get_attr_n();
  (void)input; (void)instance; (void)output; (void)graph; (void)builder;
  (void)tensor; (void)dtype; (void)n;
}"""


def unit(first: str, dtype_default: str = "DT_FLOAT") -> str:
    """Op ``first`` (one input, one output), then Second and its use, in
    one translation unit, as a module's proto .cc includes its headers."""
    return (
        '#include "graph/operator_reg.h"\n\nnamespace ge {\n'
        f"REG_OP({first})\n"
        "    .INPUT(x, TensorType({DT_FLOAT}))\n"
        "    .OUTPUT(y, TensorType({DT_FLOAT}))\n"
        f"    .OP_END_FACTORY_REG({first});\n\n"
        + EVERY_ELEMENT % dtype_default
        + "\n}  // namespace ge\n"
    )


def gxx(
    tmp_path: Path, units: dict[str, str], include: Path = GE_EXTERNAL
) -> dict[str, str]:
    """Syntax-check each unit against the headers of ``include``, a g++ per
    unit, side by side; the errors of each ("" when it compiles)."""
    assert GXX is not None
    tmp_path.mkdir(parents=True, exist_ok=True)

    def check(name: str) -> str:
        path = tmp_path / f"{name}.cc"
        path.write_text(units[name], encoding="utf-8")
        result = subprocess.run(
            [GXX, "-std=c++17", "-fsyntax-only", "-Wall", "-Werror"]
            + ["-I", str(include), "-x", "c++", str(path)],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "LC_ALL": "C"},
        )
        return result.stderr if result.returncode else ""

    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip(units, pool.map(check, units)))


def units_of(ops: list[str], default: str = "DT_FLOAT") -> str:
    """Ops ``ops`` (one input, one output each), then Second and its use, in
    one translation unit, as a module's proto .cc includes its headers."""
    text = '#include "graph/operator_reg.h"\n\nnamespace ge {\n'
    for name in ops:
        text += (
            f"REG_OP({name})\n"
            "    .INPUT(x, TensorType({DT_FLOAT}))\n"
            "    .OUTPUT(y, TensorType({DT_FLOAT}))\n"
            f"    .OP_END_FACTORY_REG({name});\n\n"
        )
    return text + EVERY_ELEMENT % default + "\n}  // namespace ge\n"


# Every DataType enumerator is refused by one rule (a default may spell
# any); the proof takes the first, a renamed one and the marker.
ENUMERATORS = ["DT_FLOAT", "DT_BF16", "DT_UNDEFINED"]
PROVEN = sorted(n for n in GE_NAMES if not n.startswith("DT_")) + ENUMERATORS


@needs_gxx
def test_every_refused_ge_name_breaks_the_translation_unit(tmp_path: Path) -> None:
    """Op ``N`` followed by an op using every element (and its default
    spelling ``N`` where N is an enumerator) fails; the same with the op
    renamed compiles."""
    controls = units_of([n + "X" for n in PROVEN], "DT_BF16")
    for include in (GE_EXTERNAL, STAND_IN):
        assert gxx(tmp_path / "control", {"all": controls}, include) == {"all": ""}
    broken = {
        name: unit(name, name if name.startswith("DT_") else "DT_INT8")
        for name in PROVEN
    }
    compiled = sorted(n for n, e in gxx(tmp_path / "broken", broken).items() if not e)
    assert compiled == [], "these compile as op types: drop them from GE_NAMES"
    assert {dt.name for dt in DataType} <= GE_NAMES


# Names gen-ops refused before and no longer does: REG_OP never refers to
# them (GE itself declares REG_OP(Shape); NamedAttrs only a NamedAttrs attr
# would, and REG_OP declares none).
DROPPED = [
    "Shape",
    "NamedAttrs",
    "DataType",
    "Format",
    "InferShapeFuncRegister",
    "VerifyFuncRegister",
    "InferFormatFuncRegister",
    "InferValueRangeFuncRegister",
    "OpAscendString",
    "OpListAscendString",
    "OpListAcendString",
    "OpInt",
]


@needs_gxx
def test_names_refused_no_more_compile(tmp_path: Path) -> None:
    assert not set(DROPPED) & GE_NAMES
    for include in (GE_EXTERNAL, STAND_IN):
        assert gxx(tmp_path, {"all": units_of(DROPPED)}, include) == {"all": ""}


ACCESSED = {  # an attr of each type, and a value of GE's type to read it into
    AttrType.INT: "int64_t",
    AttrType.FLOAT: "float",
    AttrType.BOOL: "bool",
    AttrType.STR: "std::string",
    AttrType.DTYPE: "DataType",
    AttrType.TENSOR: "Tensor",
    AttrType.NAMED_ATTRS: "NamedAttrs",
    AttrType.BYTES: "std::vector<uint8_t>",
    AttrType.LIST_INT: "std::vector<int64_t>",
    AttrType.LIST_FLOAT: "std::vector<float>",
    AttrType.LIST_BOOL: "std::vector<bool>",
    AttrType.LIST_STR: "std::vector<std::string>",
    AttrType.LIST_DTYPE: "std::vector<DataType>",
    AttrType.LIST_LIST_INT: "std::vector<std::vector<int64_t>>",
    AttrType.LIST_TENSOR: "std::vector<Tensor>",
    AttrType.LIST_NAMED_ATTRS: "std::vector<NamedAttrs>",
}


def own_attr_unit(name: str, kind: AttrType, with_attr: bool) -> str:
    attr = f"    .REQUIRED_ATTR(a, {kind.ir_name})\n" if with_attr else ""
    use = (
        f'inline void Use{name}() {{ {ACCESSED[kind]} a = op::{name}("n").get_attr_a(); '
        "(void)a; }\n"
        if with_attr
        else ""
    )
    return (
        '#include "graph/operator_reg.h"\n\nnamespace ge {\n'
        f"REG_OP({name})\n    .OUTPUT(y, TensorType({{DT_FLOAT}}))\n{attr}"
        f"    .OP_END_FACTORY_REG({name});\n{use}}}  // namespace ge\n"
    )


# The rule is one for every attr type; the proof takes a scalar, a list and
# a class type.
OWN_ATTR_KINDS = [AttrType.INT, AttrType.LIST_INT, AttrType.TENSOR]
# The attr types REG_OP declares (Note [NamedAttrs in REG_OP]).
DECLARED_KINDS = [k for k in AttrType if k not in UNDECLARABLE_ATTR_TYPES]


@needs_gxx
def test_op_type_of_its_own_attr_breaks_only_with_that_attr(tmp_path: Path) -> None:
    """Op<Type> is a member of Operator, which the op's class finds in its
    base: only an op of that name with an attr of that type hides it, and
    its get_attr_ accessor then returns the op (ge_names_of)."""
    names = {kind: f"Op{kind.ir_name}" for kind in DECLARED_KINDS}
    controls = "".join(own_attr_unit(n + "X", k, True) for k, n in names.items())
    alone = "".join(own_attr_unit(n, k, False) for k, n in names.items())
    combined = {"controls": _one_unit(controls), "alone": _one_unit(alone)}
    for include in (GE_EXTERNAL, STAND_IN):
        ok = gxx(tmp_path / "ok", combined, include)
        assert ok == {"controls": "", "alone": ""}
    broken = {names[k]: own_attr_unit(names[k], k, True) for k in OWN_ATTR_KINDS}
    errors = gxx(tmp_path / "broken", broken)
    assert sorted(n for n, e in errors.items() if not e) == []


@needs_gxx
def test_op_types_of_undeclared_attrs_compile(tmp_path: Path) -> None:
    """Ops named NamedAttrs, OpNamedAttrs and OpListNamedAttrs, the last two
    with an attr of their type, as gen-ops renders them (the attr left out,
    W905: no such attr compiles against GE's headers, test_cpp_headers'
    INVALID), then Second in the same translation unit: they compile, so
    gen-ops accepts them (no E304)."""
    texts = {
        "NamedAttrs": "",
        "OpNamedAttrs": "attrs:\n  - {name: a, type: named_attrs}\n",
        "OpListNamedAttrs": "attrs:\n  - {name: a, type: list_named_attrs}\n",
    }
    headers = []
    for op_type, attrs in texts.items():
        spec = tmp_path / f"{op_type}.yaml"
        spec.write_text(
            f"op: {op_type}\ninputs:\n  - {{name: x, dtype: float32}}\n"
            f"outputs:\n  - {{name: y, dtype: float32}}\n{attrs}"
        )
        ops, sink = load_ops(spec)
        assert [d.code for d in sink.items] == ["W905"] * bool(attrs)
        assert op_type not in ge_names_of(ops[0])
        (header,) = [
            f
            for f in pipeline.render(ops, frozenset({Target.CPP}))
            if f.path.endswith(f"/{layout.file_stem(op_type)}.h")
        ]
        headers.append(header.content)
    unit = "".join(headers) + (
        "\nnamespace ge {\n" + EVERY_ELEMENT % "DT_FLOAT" + "\n}  // namespace ge\n"
    )
    for include in (GE_EXTERNAL, STAND_IN):
        assert gxx(tmp_path / include.name, {"all": unit}, include) == {"all": ""}


def _one_unit(units: str) -> str:
    """Several own_attr_unit texts as one translation unit."""
    head = '#include "graph/operator_reg.h"\n\n'
    return head + units.replace(head, "")


def test_op_type_rule_takes_the_ops_own_attrs(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("op: OpInt\noutputs:\n  - {name: y, dtype: float32}\n")
    ops, sink = load_ops(spec)
    assert not sink.has_errors and ops[0].op_type not in ge_names_of(ops[0])
    spec.write_text(spec.read_text() + "attrs:\n  - {name: n, type: int}\n")
    _, sink = load_ops(spec)
    assert [d.code for d in sink.items] == ["E304"]


def test_shape_and_other_ge_op_names_are_accepted(tmp_path: Path) -> None:
    for name in ("Shape", "DataType", "Format"):
        spec = tmp_path / f"{name}.yaml"
        spec.write_text(f"op: {name}\ninputs:\n  - {{name: x, dtype: float32}}\n")
        _, sink = load_ops(spec)
        assert not sink.has_errors, [d.format() for d in sink.items]


# -- Python: a name the op's own module imports ---------------------------------

BUILDER_SPEC = """
op: Probe
outputs:
  - {name: y, dtype: float32}
graphs:
  - {name: g}
"""

AUTHOR_SPEC = """
op: Probe
inputs:
  - {name: x, dtype: float32}
outputs:
  - {name: y, dtype: float32}
impl:
  capabilities: [declare_launch_args]
  kernel: probe
  launch_args: [{input: x}, {output: y}]
"""

RESOLVE = """
import importlib.util, sys, typing
sys.path.insert(0, sys.argv[2])
spec = importlib.util.spec_from_file_location("m", sys.argv[1])
m = importlib.util.module_from_spec(spec)
sys.modules["m"] = m
spec.loader.exec_module(m)
holder = getattr(m, sys.argv[3])
fn = getattr(holder, sys.argv[4]) if len(sys.argv) > 4 else holder
try:
    hints = typing.get_type_hints(fn)
except TypeError as exc:  # an annotation that no longer means a type
    print("fails:", exc)
else:
    print(sorted(k for k, v in hints.items() if v is holder))
"""


def _op(tmp_path: Path, text: str, op_type: str) -> object:
    spec = tmp_path / "spec.yaml"
    spec.write_text(text)
    ops, sink = load_ops(spec)
    assert not sink.has_errors, [d.format() for d in sink.items]
    spec.write_text(text.replace("op: Probe", f"op: {op_type}"))
    _, sink = load_ops(spec)
    assert [d.code for d in sink.items] == ["E304"], "gen-ops must refuse it"
    return dataclasses.replace(ops[0], op_type=op_type)


def _resolve(tmp_path: Path, module: Path, *names: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", RESOLVE, str(module), str(tmp_path / "out/python")]
        + list(names),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.parametrize("name", ["GraphBuilder", "TensorLike"])
def test_a_builder_named_like_its_import_hides_it(tmp_path: Path, name: str) -> None:
    """The builder function takes the imported name: its own annotations
    then name the function, not the class."""
    text = BUILDER_SPEC if name == "GraphBuilder" else AUTHOR_SPEC
    op = _op(tmp_path, text, name)
    files = pipeline.render([op], frozenset({Target.PYTHON}))  # type: ignore[list-item]
    write_tree({f.path: f.content for f in files}, tmp_path / "out")
    module = next(
        tmp_path / "out" / f.path for f in files if not f.path.endswith("__init__.py")
    )
    assert _resolve(tmp_path, module, name) != "[]"


def test_an_author_class_named_like_its_import_hides_it(tmp_path: Path) -> None:
    """The author's class named LaunchConfig: its launch_config returns the
    class itself, not ge.custom_op's LaunchConfig."""
    from gen_ops.scaffold import author_module

    op = _op(tmp_path, AUTHOR_SPEC, "LaunchConfig")
    files = pipeline.render([op], frozenset({Target.IMPL}))  # type: ignore[list-item]
    write_tree({f.path: f.content for f in files}, tmp_path / "out")
    author = tmp_path / "author.py"
    author.write_text(author_module(op))  # type: ignore[arg-type]
    assert _resolve(tmp_path, author, "LaunchConfig", "launch_config") == "['return']"
