"""``reuse_input:`` of an output (semantics/reuse.py): the forms a spec may
use reach the model, and each refusal says where, which op and parameter,
and what to do (docs/spec-reference.md, "reuse_input")."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest

from gen_ops import pipeline
from gen_ops.base.diagnostics import Sink
from gen_ops.spec.model import OpSpec

ROOT = Path(__file__).resolve().parents[2]


def check(tmp_path: Path, text: str) -> tuple[list[str], list[OpSpec]]:
    """The formatted diagnostics of one spec, and its model (if valid)."""
    path = tmp_path / "spec.yaml"
    path.write_text(dedent(text).lstrip("\n"), encoding="utf-8")
    sink = Sink()
    models = pipeline.load_and_check(pipeline.discover([path], sink), sink)
    return [d.format() for d in sink.sorted()], models


@pytest.fixture
def where(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)  # diagnostics name spec.yaml
    return tmp_path


def test_every_accepted_form_reaches_the_model(where: Path) -> None:
    """A shared type variable, a dtype rule naming the input, a fixed dtype
    rule the input alone allows, one fixed dtype on both, and an optional
    input."""
    found, models = check(
        where,
        """
        op: Many
        dtypes:
          T: [float32, float16]
        inputs:
          - {name: a, dtype: T}
          - {name: b, dtype: [float32, float16]}
          - {name: c, dtype: float32}
          - {name: d, dtype: int32}
          - {name: e, dtype: T, optional: true}
        outputs:
          - {name: ya, dtype: T, reuse_input: a}
          - {name: yb, dtype: [float32, float16], reuse_input: b}
          - {name: yc, dtype: [float32, int32], reuse_input: c}
          - {name: yd, dtype: int32, reuse_input: d}
          - {name: ye, dtype: T, reuse_input: e}
          - {name: plain, dtype: T}
        infer_meta:
          ya: {shape: same_as(a), dtype: a}
          yb: {shape: same_as(b), dtype: b}
          yc: {shape: same_as(c), dtype: float32}
          yd: {shape: same_as(d), dtype: d}
          ye: {shape: same_as(a), dtype: a}
          plain: {shape: same_as(a), dtype: a}
        """,
    )
    assert found == []
    (op,) = models
    assert [(o.name, o.reuse_input) for o in op.outputs] == [
        ("ya", "a"),
        ("yb", "b"),
        ("yc", "c"),
        ("yd", "d"),
        ("ye", "e"),
        ("plain", None),
    ]


NEGATIVE = [
    (
        """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs:
          - {name: y, dtype: float32, reuse_input: xx}
        infer_meta:
          y: {shape: same_as(x), dtype: x}
        """,
        "spec.yaml:5:44: error[E615]: A: output 'y' reuses input 'xx', which does "
        "not exist\n  hint: did you mean 'x'?",
    ),
    (
        """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs:
          - {name: y, dtype: float32, reuse_input: q}
        infer_meta:
          y: {shape: same_as(x), dtype: x}
        """,
        "spec.yaml:5:44: error[E615]: A: output 'y' reuses input 'q', which does "
        "not exist\n  hint: name an input of A: x",
    ),
    (
        """
        op: A
        dtypes:
          T: [float32, float16]
          U: [float32, float16]
        inputs:
          - {name: x, dtype: T}
          - {name: z, dtype: U}
        outputs:
          - {name: y, dtype: T, reuse_input: z}
        infer_meta:
          y: {shape: same_as(x), dtype: x}
        """,
        "spec.yaml:9:38: error[E616]: A: output 'y' (type variable T) reuses input "
        "'z' (type variable U), whose dtype can differ from the output's\n"
        "  hint: declare both with one type variable (dtypes: {T: [...]}), or give "
        "output 'y' the infer_meta rule dtype: z",
    ),
    (
        """
        op: A
        inputs:
          - {name: x, dtype: float32}
          - {name: i, dtype: int32}
        outputs:
          - {name: y, dtype: [float32, int32], reuse_input: i}
        infer_meta:
          y: {shape: same_as(x), dtype: x}
        """,
        "spec.yaml:6:53: error[E616]: A: output 'y' (float32, int32) reuses input "
        "'i' (int32), whose dtype can differ from the output's\n"
        "  hint: declare both with one type variable (dtypes: {T: [...]}), or give "
        "output 'y' the infer_meta rule dtype: i",
    ),
    (
        """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs:
          - {name: y, dtype: float32, dynamic: true, reuse_input: x}
        """,
        "spec.yaml:5:59: error[E617]: A: output 'y' cannot reuse input 'x': output "
        "'y' is dynamic (a list of tensors)\n"
        "  hint: remove reuse_input: a dynamic output has no one buffer to share",
    ),
    (
        """
        op: A
        inputs:
          - {name: xs, dtype: float32, dynamic: true}
        outputs:
          - {name: y, dtype: float32, reuse_input: xs}
        """,
        "spec.yaml:5:44: error[E617]: A: output 'y' cannot reuse input 'xs': input "
        "'xs' is dynamic (a list of tensors)\n"
        "  hint: name a required or optional input, or remove reuse_input",
    ),
    (
        """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs:
          - {name: x, dtype: float32, reuse_input: x}
        """,
        "spec.yaml:5:44: error[E617]: A: output 'x' cannot reuse input 'x': output "
        "'x' is named like input 'x', a ref pair that shares its memory already\n"
        "  hint: remove reuse_input (a ref output is written in place anyway), or "
        "rename the output",
    ),
    (
        """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs:
          - {name: y, dtype: float32, reuse_input: x}
          - {name: z, dtype: float32, reuse_input: x}
        infer_meta:
          y: {shape: same_as(x), dtype: x}
          z: {shape: same_as(x), dtype: x}
        """,
        "spec.yaml:6:44: error[E617]: A: output 'z' cannot reuse input 'x': output "
        "'y' reuses input 'x' already; one input's memory can hold one output\n"
        "  hint: remove reuse_input from output 'z' or from output 'y'",
    ),
    (
        """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs:
          - {name: y, dtype: float32, reuse_input: 1x}
        """,
        "spec.yaml:5:44: error[E204]: outputs[0].reuse_input: '1x' is not valid\n"
        "  hint: names start with a letter (after at most one _) and use "
        "letters, digits and _",
    ),
]


@pytest.mark.parametrize(("spec", "expected"), NEGATIVE)
def test_each_refusal_names_place_op_parameter_and_fix(
    where: Path, spec: str, expected: str
) -> None:
    found, models = check(where, spec)
    assert found == [expected]
    assert models == []


def test_without_a_generated_prototype_it_warns_and_keeps_the_key(
    where: Path,
) -> None:
    found, models = check(
        where,
        """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs:
          - {name: y, dtype: float32, reuse_input: x}
        """,
    )
    assert found == [
        "spec.yaml:5:44: warning[W906]: A: reuse_input reaches the runtime through "
        "the generated register_op prototype, and an op with neither infer_meta "
        "nor impl gets none\n  hint: add infer_meta (or impl), or pass "
        "reuse_inputs= to your own register_op"
    ]
    assert [o.reuse_input for o in models[0].outputs] == ["x"]


def test_the_golden_spec_renders_the_key_where_the_runtime_reads_it() -> None:
    expected = ROOT / "tests/golden/expected"
    proto = (expected / "python/ge_impl/golden/fused_axpy.py").read_text("utf-8")
    assert (
        '    reuse_inputs={\n        "y": "y0",\n        "residual": "residual_in",\n'
        "    },\n" in proto
    )
    header = (expected / "include/golden/fused_axpy.h").read_text("utf-8")
    assert "may reuse the memory of y0" in header
    assert '.OUTPUT(y, "T")' in header  # REG_OP itself has no such notion
    page = (expected / "docs/ops/FusedAxpy.md").read_text("utf-8")
    assert "| `y` | may reuse the memory of `y0` |" in page
