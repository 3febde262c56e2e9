"""Builders that keep the calls of earlier releases (docs/releases.md,
"Builders that keep old calls"): the golden HistoryBlend
(tests/golden/specs/history_blend.yaml, rendered with the registry
tests/golden/registry, whose release 1.0.0 had alpha for scale and neither
w nor k), imported and called against a recording graph builder."""

from __future__ import annotations

import warnings
from types import ModuleType

import pytest
from helpers import ROOT, import_file
from history_helpers import Project, project  # noqa: F401
from recording import RecordingBuilder

from ge.es import GraphBuilder

GOLDEN = ROOT / "tests/golden/expected/python/ge/es/golden/history_blend.py"


@pytest.fixture(scope="module")
def blend() -> ModuleType:
    return import_file(GOLDEN)


def _body() -> object:
    return GraphBuilder("body").build_and_reset()


def test_a_call_of_release_1_0_0_binds_as_it_did(blend: ModuleType) -> None:
    g = RecordingBuilder()
    x, y = g.create_input(0), g.create_input(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        blend.HistoryBlend(x, y, _body(), alpha=0.25)
    (call,) = g.calls
    assert call.op_type == "HistoryBlend"
    assert call.inputs == {"x": ("input_0", 0), "y": ("input_1", 0), "w": None}
    assert call.attrs == {"scale": 0.25}  # k at its default: off the node
    assert call.subgraphs == {"body": ("body",)}


def test_new_input_is_out_of_reach_of_positional_calls(blend: ModuleType) -> None:
    g = RecordingBuilder()
    x = g.create_input(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError, match="positional"):
            blend.HistoryBlend(x, None, _body(), x)
        blend.HistoryBlend(x, None, _body(), w=x, scale=2.0)
    assert g.calls[-1].inputs == {"x": ("input_0", 0), "y": None, "w": ("input_0", 0)}
    assert g.calls[-1].attrs == {"scale": 2.0}


def test_each_warning_names_the_release_and_the_callers_line(
    blend: ModuleType,
) -> None:
    g = RecordingBuilder()
    x, y = g.create_input(0), g.create_input(1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        blend.HistoryBlend(x, y, _body(), alpha=0.25)
        line = _line() - 1
    assert [str(w.message) for w in caught] == [
        "HistoryBlend is deprecated since release 1.2.0",
        "HistoryBlend: parameter 'alpha' was renamed to 'scale' in release 1.1.0; "
        "pass scale=",
        "HistoryBlend: parameter 'y' is deprecated since release 1.1.0",
    ]
    assert {w.category for w in caught} == {DeprecationWarning}
    assert {(w.filename, w.lineno) for w in caught} == {(__file__, line)}


def test_warnings_come_once_per_call_site(blend: ModuleType) -> None:
    g = RecordingBuilder()
    x = g.create_input(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for _ in range(3):
            blend.HistoryBlend(x, None, _body())
        for _ in range(2):
            blend.HistoryBlend(x, None, _body())
    assert len(g.calls) == 5
    assert [str(w.message) for w in caught] == [
        "HistoryBlend is deprecated since release 1.2.0"
    ] * 2
    assert caught[0].lineno != caught[1].lineno


def test_no_value_for_a_deprecated_input_is_no_warning(blend: ModuleType) -> None:
    g = RecordingBuilder()
    x = g.create_input(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        blend.HistoryBlend(x, None, _body(), scale=1.0)
        blend.HistoryBlend(x, y=None, body=_body())
    assert {str(w.message) for w in caught} == {
        "HistoryBlend is deprecated since release 1.2.0"
    }


def test_old_and_new_name_together_is_a_type_error(blend: ModuleType) -> None:
    g = RecordingBuilder()
    x = g.create_input(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError, match="'scale' twice: also as 'alpha'"):
            blend.HistoryBlend(x, None, _body(), alpha=1.0, scale=2.0)
    assert g.calls == []


def test_the_function_keeps_its_name_doc_and_signature(blend: ModuleType) -> None:
    import inspect

    fn = blend.HistoryBlend
    assert fn.__name__ == "HistoryBlend"
    assert fn.__doc__.startswith("Mixes x with y and w.")
    parameters = inspect.signature(fn).parameters
    assert list(parameters) == ["x", "y", "body", "w", "scale", "k", "name"]
    assert parameters["w"].kind is inspect.Parameter.KEYWORD_ONLY


def _line() -> int:
    import sys

    return sys._getframe(1).f_lineno


# --- gen-ops --registry on the command line ----------------------------------

V1 = """\
op: Pick
inputs:
  - {name: x, dtype: float32}
outputs:
  - {name: y, dtype: float32, dynamic: true}
"""
V2 = V1.replace(
    "  - {name: x, dtype: float32}\n",
    "  - {name: x, dtype: float32}\n  - {name: w, dtype: float32, optional: true}\n",
)


def _builder_text(project: Project) -> str:
    return (project.root / "out/python/ge/es/custom/pick.py").read_text()


def test_render_with_a_registry_keeps_the_release_shape(project: Project) -> None:
    project.spec("pick.yaml", V1)
    project.release("1.0.0", "2026-01-10")
    project.spec("pick.yaml", V2)
    plain = project.gen("--out", "out", "--no-scaffold", "--only", "python", "-q")
    assert plain.status == 0, plain.err
    assert "    w: TensorHolder | TensorLike | None,\n    y_num: int,\n" in (
        _builder_text(project)
    )
    kept = project.gen(
        "--out", "out", "--no-scaffold", "--only", "python", "--registry", "reg"
    )
    assert kept.status == 0, kept.err
    assert (
        "    y_num: int,\n    *,\n    w: TensorHolder | TensorLike | None = None,\n"
        in (_builder_text(project))
    )


def test_the_fast_path_sees_a_new_release(project: Project) -> None:
    project.spec("pick.yaml", V2)
    args = ("--out", "out", "--no-scaffold", "--only", "python", "--registry", "reg")
    project.json("reg/index.json", {"version": "1.0.0", "releases": []})
    assert project.gen(*args).status == 0
    assert "up to date" in project.gen(*args).out
    project.spec("pick.yaml", V1)
    project.release("1.0.0", "2026-01-10")
    project.spec("pick.yaml", V2)
    again = project.gen(*args)
    assert "up to date" not in again.out and again.status == 0
    assert "    *,\n    w: " in _builder_text(project)


def test_an_unreadable_registry_writes_nothing(project: Project) -> None:
    project.spec("pick.yaml", V1)
    run = project.gen("--out", "out", "--no-scaffold", "--registry", "missing")
    assert run.status == 2
    assert run.lines[0].startswith("missing/index.json:1:1: error[H101]: ")
    assert not (project.root / "out").exists()


def test_an_op_that_gains_inputs_keeps_owner_graph_builder(project: Project) -> None:
    v1 = "op: Gen\noutputs:\n  - {name: y, dtype: float32}\n"
    project.spec("gen.yaml", v1)
    project.release("1.0.0", "2026-01-10")
    project.spec(
        "gen.yaml",
        v1.replace("outputs:", "inputs:\n  - {name: seed, dtype: float32, "
                   "optional: true}\noutputs:"),
    )  # fmt: skip
    args = ("--out", "out", "--no-scaffold", "--only", "python", "--registry", "reg")
    assert project.gen(*args).status == 0
    gen = import_file(project.root / "out/python/ge/es/custom/gen.py").Gen
    g = RecordingBuilder()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        gen(g)  # 1.0.0's positional call
        gen(owner_graph_builder=g)  # and its keyword call
    assert [str(w.message) for w in caught] == [
        "Gen: parameter 'owner_graph_builder' was renamed to 'owner_builder' in the "
        "release after 1.0.0; pass owner_builder="
    ]
    assert [c.inputs for c in g.calls] == [{"seed": None}, {"seed": None}]
