"""The C++ overloads of ``es_<Op>.h`` for an op with a history (Note [C++
overloads] in gen_ops.lowering.es_overloads; docs/es-c-cpp.md, "Calls of
earlier releases"): one test per planner rule, on the header text, plus the
headers compiled with g++ against calls of each older release (and, where
the ES runtime library builds, run: tests/es_cpp/test_es_overloads_run.py).
Parity with gen_esb's own overload tests is bench/esb_parity.py's."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import ROOT, load_ops, spec_yaml

from gen_ops import pipeline
from gen_ops.emit.outputs import Target
from gen_ops.lowering import es_overloads
from gen_ops.spec.model import OpSpec, PastAttr, PastElement, PastOp

GXX = shutil.which("g++")
needs_gxx = pytest.mark.skipif(GXX is None, reason="g++ is not on PATH")

X = {"name": "x", "dtype": "float32"}
Y_OPT = {"name": "y", "dtype": "float32", "optional": True}
W_OPT = {"name": "w", "dtype": "float32", "optional": True}
Z = {"name": "z", "dtype": "float32"}


def _op(tmp_path: Path, **spec: object) -> OpSpec:
    data = {"op": "Probe", "module": "probe", "outputs": [Z], **spec}
    path = tmp_path / "specs" / "probe.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(spec_yaml(data), encoding="utf-8")
    ops, sink = load_ops(path.parent)
    assert not sink.has_errors, [d.format() for d in sink.items]
    return ops[0]


def release(
    version: str,
    inputs: list[tuple[str, str]],
    attrs: tuple[PastAttr, ...] = (),
    outputs: tuple[PastElement, ...] = (PastElement("z", "OUTPUT"),),
) -> PastOp:
    """The op as a registry release records it (what ``--registry``
    attaches)."""
    return PastOp(version, tuple(PastElement(n, t) for n, t in inputs), attrs, outputs)


def with_past(op: OpSpec, *past: PastOp) -> OpSpec:
    return dataclasses.replace(op, past=past)


def header(op: OpSpec) -> str:
    files = pipeline.render([op], frozenset({Target.ES}))
    return next(f.content for f in files if f.path.endswith(f"es_{op.op_type}.h"))


def functions(text: str) -> list[str]:
    """Each declared function, as ``inline ...(params)`` (deleted ones with
    ``= delete``), whitespace as printed."""
    return re.findall(
        r"^(?:\[\[deprecated\(.*?\)\]\] )?inline [^\n]*?\)(?: = delete)?", text, re.M
    )


def warnings(text: str) -> list[str]:
    return re.findall(r"@warning (.*)", text)


STR_ATTR = {"name": "mode", "type": "str", "default": "a"}
PAST_STR = PastAttr("mode", "String", False, '"a"')


# --- compatible changes ---------------------------------------------------------


def test_no_history_is_one_function_as_without_a_registry(tmp_path: Path) -> None:
    op = _op(tmp_path, inputs=[X, Y_OPT], attrs=[STR_ATTR])
    plain = header(op)
    same = header(
        with_past(
            op, release("1.0", [("x", "INPUT"), ("y", "OPTIONAL_INPUT")], (PAST_STR,))
        )
    )
    assert plain == same
    assert len(functions(plain)) == 1 and not warnings(plain)


def test_new_optional_attr_keeps_one_function(tmp_path: Path) -> None:
    op = _op(tmp_path, inputs=[X], attrs=[{"name": "k", "type": "int", "default": 0}])
    text = header(with_past(op, release("1.0", [("x", "INPUT")])))
    assert functions(text) == [
        "inline EsTensorHolder Probe(const EsTensorHolder &x, int64_t k=0)"
    ]
    assert not warnings(text)


def test_new_optional_input_without_older_attrs_merges(tmp_path: Path) -> None:
    """The older version had no attrs and a required input: the new input's
    nullptr default keeps its calls, one function."""
    op = _op(tmp_path, inputs=[X, Y_OPT])
    text = header(with_past(op, release("1.0", [("x", "INPUT")])))
    assert functions(text) == [
        "inline EsTensorHolder Probe(const EsTensorLike &x, const EsTensorLike &y=nullptr)"
    ]
    assert not warnings(text)


def test_new_optional_input_after_older_attrs_keeps_the_old_function(
    tmp_path: Path,
) -> None:
    """Try0: an older call Probe(x, 3) must not bind 3 to the new input, so
    the older function is kept beside the current one; a required attr
    keeps them apart (GE's scenario A)."""
    op = _op(
        tmp_path,
        inputs=[X, Y_OPT],
        attrs=[
            {"name": "n", "type": "int"},
            {"name": "t", "type": "dtype", "default": "float32"},
        ],
    )
    past = release(
        "1.0",
        [("x", "INPUT")],
        (PastAttr("n", "Int", True), PastAttr("t", "Type", False, '"DT_FLOAT"')),
    )
    text = header(with_past(op, past))
    assert functions(text) == [
        "inline EsTensorHolder Probe(const EsTensorLike &x, int64_t n, ge::DataType t=ge::DT_FLOAT)",
        "inline EsTensorHolder Probe(const EsTensorLike &x, const EsTensorLike &y, int64_t n, ge::DataType t=ge::DT_FLOAT)",
    ]
    assert (
        "EsProbe(x.ToTensorHolder(owner_graph_builder).GetCTensorHolder(), nullptr, n"
        in text
    )
    assert not warnings(text)


def test_a1_drops_the_new_inputs_default_and_guards_nullptr(tmp_path: Path) -> None:
    op = _op(tmp_path, inputs=[X, Y_OPT], attrs=[STR_ATTR])
    text = header(with_past(op, release("1.0", [("x", "INPUT")], (PAST_STR,))))
    assert functions(text) == [
        'inline EsTensorHolder Probe(const EsTensorLike &x, const char *mode="a")',
        'inline EsTensorHolder Probe(const EsTensorLike &x, const EsTensorLike &y, const char *mode="a")',
        '[[deprecated("New input y cannot use nullptr in this overload. Use the legacy '
        'overload when this input is disconnected.")]] inline EsTensorHolder '
        'Probe(const EsTensorLike &x, std::nullptr_t y, const char *mode="a") = delete',
    ]
    assert len(warnings(text)) == 1 and "(A1)" in warnings(text)[0]
    assert "op Probe, new optional inputs y" in warnings(text)[0]


def test_a2_takes_holders_when_all_older_inputs_were_optional(tmp_path: Path) -> None:
    """GE's multi-version A2: three versions, each adding an optional input
    to an op of optional inputs; equal neighbouring releases merge."""
    x, y, w = ({**v, "optional": True} for v in (X, Y_OPT, W_OPT))
    op = _op(tmp_path, inputs=[x, y, w])
    one = release("1.0", [("x", "OPTIONAL_INPUT")])
    two = release("1.1", [("x", "OPTIONAL_INPUT"), ("y", "OPTIONAL_INPUT")])
    plan = es_overloads.plan(
        with_past(op, one, dataclasses.replace(one, version="1.0.1"), two)
    )
    assert plan.versions == ("1.0", "1.1", "")
    text = header(with_past(op, one, two))
    assert functions(text) == [
        "inline EsTensorHolder Probe(const EsTensorLike &x=nullptr, const EsGraphBuilder *owner_builder=nullptr)",
        "inline EsTensorHolder Probe(const EsTensorLike &x, const EsTensorHolder &y)",
        "inline EsTensorHolder Probe(const EsTensorLike &x, const EsTensorHolder &y, const EsTensorHolder &w)",
        '[[deprecated("New input y uses TensorHolder for disambiguation. Use legacy overload '
        'when disconnected, or use CreateScalar/CreateVector/CreateConst for constants.")]] '
        "inline EsTensorHolder Probe(const EsTensorLike &x, std::nullptr_t y) = delete",
        '[[deprecated("New input w uses TensorHolder for disambiguation. Use legacy overload '
        'when disconnected, or use CreateScalar/CreateVector/CreateConst for constants.")]] '
        "inline EsTensorHolder Probe(const EsTensorLike &x, const EsTensorHolder &y, std::nullptr_t w) = delete",
    ]
    assert [w.rsplit("(", 1)[-1] for w in warnings(text)] == ["A1).", "A2)."]


def test_declared_rename_is_no_change_to_the_cpp_api(tmp_path: Path) -> None:
    """Ours: C++ passes by position, so an attr renamed with renamed_from
    keeps the release's function (GE would fall back to one function)."""
    attr = {
        **STR_ATTR,
        "name": "style",
        "renamed_from": [{"name": "mode", "release": "1.1"}],
    }
    op = _op(tmp_path, inputs=[X], attrs=[attr])
    text = header(with_past(op, release("1.0", [("x", "INPUT")], (PAST_STR,))))
    assert len(functions(text)) == 1 and not warnings(text)


# --- incompatible changes -----------------------------------------------------------


INCOMPATIBLE = {
    "input renamed": (
        [("v", "INPUT")],
        (),
        "from release 1.0 to the specs, input 0 was renamed or changed kind",
    ),
    "input removed": (
        [("x", "INPUT"), ("v", "INPUT")],
        (),
        "the inputs went from 2 to 1",
    ),
    "attr retyped": (
        [("x", "INPUT")],
        (PastAttr("k", "Float", False, "0.0"),),
        "attr 0 was renamed, retyped or changed its required flag",
    ),
    "attr removed": (
        [("x", "INPUT")],
        (PastAttr("k", "Int", False, "0"), PastAttr("old", "Int", False, "0")),
        "the attrs went from 2 to 1",
    ),
}


@pytest.mark.parametrize("case", sorted(INCOMPATIBLE))
def test_incompatible_change_keeps_the_current_function_and_warns(
    tmp_path: Path, case: str
) -> None:
    inputs, attrs, cause = INCOMPATIBLE[case]
    op = _op(tmp_path, inputs=[X], attrs=[{"name": "k", "type": "int", "default": 0}])
    text = header(with_past(op, release("1.0", inputs, attrs)))
    assert functions(text) == [
        "inline EsTensorHolder Probe(const EsTensorHolder &x, int64_t k=0)"
    ]
    (warning,) = warnings(text)
    assert warning.startswith("op Probe: incompatible change ") and cause in warning
    assert "only the current signature is declared" in warning


def test_new_required_attr_and_new_required_input_are_incompatible(
    tmp_path: Path,
) -> None:
    op = _op(
        tmp_path,
        inputs=[X, {**W_OPT, "optional": False}],
        attrs=[{"name": "n", "type": "int"}],
    )
    text = header(with_past(op, release("1.0", [("x", "INPUT")])))
    assert "the new input w is not optional" in warnings(text)[0]
    op = _op(tmp_path, inputs=[X], attrs=[{"name": "n", "type": "int"}])
    text = header(with_past(op, release("1.0", [("x", "INPUT")])))
    assert "the new attr n is required" in warnings(text)[0]


def test_changed_outputs_are_incompatible(tmp_path: Path) -> None:
    op = _op(tmp_path, inputs=[X])
    moved = release(
        "1.0", [("x", "INPUT")], outputs=(PastElement("z", "DYNAMIC_OUTPUT"),)
    )
    assert (
        "output 0 was renamed or changed kind"
        in warnings(header(with_past(op, moved)))[0]
    )
    more = release("1.0", [("x", "INPUT")], outputs=(PastElement("z", "OUTPUT"),) * 2)
    assert "the number of outputs changed" in warnings(header(with_past(op, more)))[0]


def test_unreadable_default_of_a_new_attr_is_incompatible() -> None:
    older = PastOp("1.0", (PastElement("x", "INPUT"),), ())
    for text, problem in (
        (None, "missing"),
        ("[1,", "not_json"),
        ('"1"', "mismatch"),
        ('"zeros"', "mismatch"),
    ):
        newer = dataclasses.replace(
            older, version="", attrs=(PastAttr("k", "Int", False, text),)
        )
        step = es_overloads._compare(older, newer)
        assert step.cause is not None and step.cause.problem == problem, text
    tensor = PastAttr("t", "Tensor", False, '"Tensor(1)"')
    step = es_overloads._compare(older, dataclasses.replace(older, attrs=(tensor,)))
    assert step.cause is not None and step.cause.problem == "tensor"
    fine = PastAttr("t", "ListListInt", False, "[[1,2],[3]]")
    assert (
        es_overloads._compare(older, dataclasses.replace(older, attrs=(fine,))).cause
        is None
    )


def test_ambiguity_after_a2_keeps_the_current_function_and_warns(
    tmp_path: Path,
) -> None:
    """y keeps its nullptr default, so no mode tells Probe(x) apart; the
    current function alone, with the warnings of every mode tried."""
    op = _op(tmp_path, inputs=[X, Y_OPT, W_OPT], attrs=[STR_ATTR])
    text = header(
        with_past(
            op, release("1.0", [("x", "INPUT"), ("y", "OPTIONAL_INPUT")], (PAST_STR,))
        )
    )
    assert functions(text) == [
        "inline EsTensorHolder Probe(const EsTensorLike &x, const EsTensorLike &y=nullptr, "
        'const EsTensorLike &w=nullptr, const char *mode="a")'
    ]
    codes = [w.rsplit(" ", 1)[-1] for w in warnings(text)]
    assert (
        codes[:2] == ["(A1).", "(A2)."] and "stay ambiguous in A2" in warnings(text)[2]
    )


# --- the ambiguity checker ---------------------------------------------------------------


def _sig(*kinds: tuple[es_overloads.Kind, bool]) -> es_overloads.Signature:
    return es_overloads.Signature(
        tuple(
            es_overloads.Param(es_overloads.Role.INPUT, f"p{n}", k, d)
            for n, (k, d) in enumerate(kinds)
        )
    )


def test_reachable_twice_needs_every_position_to_overlap() -> None:
    K = es_overloads.Kind
    like, holder, text = (K.LIKE, False), (K.HOLDER, False), (K.STR, True)
    assert es_overloads.reachable_twice(_sig(like), _sig(like, (K.LIKE, True)))
    assert not es_overloads.reachable_twice(_sig(like, like), _sig(like, holder, like))
    assert not es_overloads.reachable_twice(_sig(like, text), _sig(like, holder, text))
    assert es_overloads.reachable_twice(_sig(like, (K.INT, True)), _sig(like, like))
    assert not es_overloads.reachable_twice(
        _sig(like, (K.INT, True)), _sig(like, holder)
    )


# --- compiled --------------------------------------------------------------------------------

OLD_CALLS = r"""
#include "es_Probe.h"
using namespace ge::es;
void calls(EsTensorHolder x, EsTensorHolder y) {
  (void)Probe(x);                 // release 1.0
  (void)Probe(x, "b");            // release 1.0, attr given
  (void)Probe(x, y);              // the current release
  (void)Probe(x, y, "b");
}
"""


@needs_gxx
def test_older_calls_compile_and_nullptr_is_refused(tmp_path: Path) -> None:
    """Against GE's ES declarations (tests/cpp/ge_es): every release's calls
    compile; passing nullptr for the new input hits the deleted guard with
    its message."""
    op = _op(tmp_path, inputs=[X, Y_OPT], attrs=[STR_ATTR])
    op = with_past(op, release("1.0", [("x", "INPUT")], (PAST_STR,)))
    include = tmp_path / "include"
    include.mkdir()
    for f in pipeline.render([op], frozenset({Target.ES})):
        if "/include/" in f.path:
            (include / Path(f.path).name).write_text(f.content)

    def compile_(source: str) -> subprocess.CompletedProcess[str]:
        (tmp_path / "calls.cpp").write_text(source)
        assert GXX is not None
        return subprocess.run(
            [
                GXX,
                "-std=c++17",
                "-fsyntax-only",
                "-Wall",
                "-Werror",
                "-I",
                str(ROOT / "tests/cpp/ge_es"),
                "-I",
                str(ROOT / "tests/cpp/ge_external"),
                "-I",
                str(include),
                str(tmp_path / "calls.cpp"),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    done = compile_(OLD_CALLS)
    assert done.returncode == 0, done.stderr
    refused = compile_(
        OLD_CALLS.replace("(void)Probe(x, y);", "(void)Probe(x, nullptr);")
    )
    assert refused.returncode != 0
    assert "use of deleted function" in refused.stderr
    assert "New input y cannot use nullptr" in refused.stderr
