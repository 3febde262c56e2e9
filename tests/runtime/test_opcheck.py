"""gen-ops test and ge.custom_op.opcheck (docs/opcheck.md): the command's
exit codes, report and replay; the comparison rules; the TTK export read
back; opcheck's undeclared-dtype and error-case properties."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ge.graph import DataType
from ge.opcheck import DEFAULT_TOLERANCE, compare, tolerance_of

ROOT = Path(__file__).resolve().parents[2]
GEN_OPS = Path(sys.executable).parent / "gen-ops"
SCALE = ROOT / "ops" / "custom" / "scale_custom.py"


def gen_ops(
    *args: str, opp: Path = SCALE, cwd: Path = ROOT
) -> subprocess.CompletedProcess:
    env = dict(os.environ, ASCEND_CUSTOM_OPP_PATH=str(opp), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run(
        [str(GEN_OPS), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_compare_rules() -> None:
    f = np.float32
    assert compare(f([1, np.nan, np.inf]), f([1, np.nan, np.inf]), 1e-5, 1e-6)[0]
    assert not compare(f([np.nan]), f([1.0]), 1e-5, 1e-6)[0]
    assert not compare(f([np.inf]), f([-np.inf]), 1e-5, 1e-6)[0]
    assert compare(f([1.0 + 1e-6]), f([1.0]), 1e-5, 1e-6)[0]
    ok, worst, where = compare(f([1.1]), f([1.0]), 1e-5, 1e-6)
    assert not ok and worst == pytest.approx(0.1, rel=1e-3) and "element 0" in where
    i = np.int32
    assert not compare(i([1, 2]), i([1, 3]), 0.0, 0.0)[0]  # integers: bit-exact
    assert compare(np.bool_([True]), np.bool_([True]), 0.0, 0.0)[0]
    assert compare(i(5).reshape(()), i(5).reshape(()), 0.0, 0.0)[0]


def test_default_tolerances() -> None:
    assert tolerance_of(DataType.DT_INT32) == (0.0, 0.0)
    assert tolerance_of(DataType.DT_BOOL) == (0.0, 0.0)
    assert tolerance_of(DataType.DT_FLOAT16) == DEFAULT_TOLERANCE[DataType.DT_FLOAT16]
    mine = {DataType.DT_FLOAT: (1.0, 0.5)}
    assert tolerance_of(DataType.DT_FLOAT, mine) == (1.0, 0.5)


def test_gen_ops_test_passes_and_reports_json() -> None:
    done = gen_ops("test", "--ops", "ScaleCustom", "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    (result,) = report["ops"]
    assert report["status"] == "ok" and result["status"] == "ok"
    checked = result["checked"]
    assert checked["reference"] == result["cases"] > 0
    assert (
        checked["memory"]
        == checked["paths"]
        == checked["infer_meta"]
        == result["cases"]
    )
    assert checked["undeclared"] == 1 and checked["errors"] == 2


def _wrong_spec(tmp_path: Path) -> Path:
    specs = tmp_path / "specs"
    specs.mkdir()
    text = (ROOT / "specs" / "scale_custom.yaml").read_text()
    text = text.replace(
        "reference: x * np.float32(alpha)", "reference: x * np.float32(alpha) * 1.01"
    )
    (specs / "scale_custom.yaml").write_text(text)
    return specs


def test_failure_names_property_case_and_replays(tmp_path: Path) -> None:
    specs = _wrong_spec(tmp_path)
    done = gen_ops("test", "--specs", str(specs), "--seed", "7", "--format", "json")
    assert done.returncode == 1, done.stderr
    (result,) = json.loads(done.stdout)["ops"]
    failure = result["failure"]
    assert failure["property"] == "reference"
    case = failure["case"]
    assert case["seed"] is not None and case["dtypes"] == {"T": "float32"}
    assert case["inputs"]["x"]["shape"] and "alpha" in case["attrs"]
    # Shrunk: every letter as small as the failure allows (k = 1: 64 elements).
    assert int(np.prod(case["inputs"]["x"]["shape"])) == 64
    assert failure["worst"] > 0
    replay = shlex.split(failure["replay"])
    assert (
        replay[:2] == ["gen-ops", "test"] and "--seed" in replay and "--case" in replay
    )
    again = gen_ops(*replay[1:], "--format", "json")
    assert again.returncode == 1
    (replayed,) = json.loads(again.stdout)["ops"]
    assert replayed["cases"] == 1
    assert replayed["failure"]["case"]["index"] == case["index"]
    text = gen_ops("test", "--specs", str(specs), "--seed", "7")
    assert text.returncode == 1
    assert "FAIL  ScaleCustom: property reference" in text.stdout
    assert "replay: gen-ops test" in text.stdout


def test_unloadable_implementation_is_an_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad_op.py"
    bad.write_text("raise RuntimeError('no')\n")
    done = gen_ops("test", "--ops", "ScaleCustom", opp=bad)
    assert done.returncode == 2
    assert "cannot load the implementations" in done.stderr


# The columns of a TTK Kernel case table, in the order of the kit's example
# tables (examples/case_store/kernel/*.csv in hicann/ops-test-kit), then the
# one column GEIR adds (docs/Operator_Test_Guides/GEIR_Case_Writing.md).
TTK_GEIR_COLUMNS = (
    "testcase_name,network_name,op_name,input_shapes,input_dtypes,input_formats,"
    "output_shapes,output_dtypes,output_formats,input_ori_shapes,input_ori_formats,"
    "output_ori_shapes,output_ori_formats,attributes,input_data_ranges,"
    "precision_tolerances,absolute_precision,output_inplace_indexes,"
    "output_shape_unknown_indexes,is_enabled,remark,soc_series,priority,"
    "dump_file_prefix,manual_input_binaries,manual_golden_binaries,dyn_input_shapes"
).split(",")


def test_ttk_export_has_the_kits_columns_and_reads_back_to_the_cases(
    tmp_path: Path,
) -> None:
    from gen_ops import optest, pipeline, ttk
    from gen_ops.base.diagnostics import Sink
    from gen_ops.spec import discovery

    out = tmp_path / "ttk"
    opp = os.pathsep.join(
        [str(SCALE), str(ROOT / "ops" / "custom" / "sum_n_custom.py")]
    )
    done = gen_ops(
        "test",
        "--ops",
        "ScaleCustom,SumNCustom",
        "--export-ttk",
        str(out),
        "--format",
        "json",
        opp=opp,
    )
    assert done.returncode == 0, done.stderr
    results = {r["op"]: r for r in json.loads(done.stdout)["ops"]}
    for stem, op_type, op_name in [
        ("scale_custom", "ScaleCustom", "scale_custom"),
        ("sum_n_custom", "SumNCustom", "sum_n_custom"),
    ]:
        header = (out / f"{stem}.csv").read_text().splitlines()[0].split(",")
        assert header == TTK_GEIR_COLUMNS
        rows = ttk.read(out / f"{stem}.csv")
        assert len(rows) == results[op_type]["cases"]
        sink = Sink()
        (op,) = pipeline.load_and_check(
            discovery.discover([ROOT / "specs" / f"{stem}.yaml"], sink), sink
        )
        drawn = list(optest.enumerate_cases(op, 0))
        for row, one in zip(rows, drawn):  # every case passed: the same order
            case = optest.build_case(op, one)
            assert row["op_name"] == op_name
            assert row["remark"] == f"gen-ops test seed {case.seed}"
            shapes, dtypes = [], []
            for _, value in case.inputs:
                if value is None:  # an absent optional input
                    shapes.append(None)
                    dtypes.append(None)
                elif isinstance(value, list):  # a dynamic input: a TensorList
                    shapes.append(tuple(v.shape for v in value))
                    dtypes.append(tuple(str(v.dtype) for v in value))
                else:
                    shapes.append(value.shape)
                    dtypes.append(str(value.dtype))
            assert row["input_shapes"] == tuple(shapes)
            assert row["dyn_input_shapes"] == row["input_shapes"]
            assert row["input_dtypes"] == tuple(dtypes)
            assert row["attributes"] == dict(case.attrs)
            assert row["output_dtypes"] == ("float32",)
            assert row["precision_tolerances"] == ((1.3e-06, 1e-05),)
            assert row["is_enabled"] is True and row["output_inplace_indexes"] == ()
    scale = ttk.read(out / "scale_custom.csv")
    assert any(r["input_shapes"][1] is None for r in scale)  # bias absent
    assert all(r["output_shapes"] == (r["input_shapes"][0],) for r in scale)
    sums = ttk.read(out / "sum_n_custom.csv")
    assert all(isinstance(r["input_shapes"][0][0], tuple) for r in sums)


def test_opcheck_undeclared_and_error_cases() -> None:
    script = f"""
import numpy as np
from ge.custom_op import bootstrap
from ge.opcheck import ErrorExpectation, OpCase, opcheck
bootstrap.load_custom_op_plugins({str(SCALE)!r})
ok = OpCase((("x", np.ones(64, np.float32)), ("bias", None)), (("alpha", 2.0),))
wrong = OpCase((("x", np.ones(64, np.float64)), ("bias", None)))
short = OpCase((("x", np.ones(3, np.float32)), ("bias", None)))
ref = lambda x, bias, alpha: x * np.float32(alpha)
r = opcheck("ScaleCustom", [ok], reference=ref, undeclared=[wrong],
            errors=[ErrorExpectation(short, "ValueError", "multiple of 64")])
assert r.ok, r.as_dict()
r = opcheck("ScaleCustom", [], reference=ref,
            errors=[ErrorExpectation(short, "TypeError")],
            undeclared=[ok])
props = sorted(f.property for f in r.failures)
assert props == ["errors", "undeclared"], r.as_dict()
print("fine")
"""
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.stdout.strip() == "fine", done.stderr


# An op over the types the runtime holds only as bytes (docs/opcheck.md,
# "Dtypes"): negation by the bits (the sign bit of a float8; each int4
# nibble in two's complement), its input and output read and written as
# bytes. opcheck passes ml_dtypes arrays as those bytes and compares the
# outputs as numbers; a wrong reference must fail for each type.
_RAW_OP = """
import ctypes
import numpy as np
import ml_dtypes
import ge.es._op_api as api
from ge.custom_op import DtypeRules, get_execute_ctx, register_op, register_op_impl
from ge.graph import DataType
from ge.opcheck import OpCase, opcheck
from ge.runtime import TensorDesc

OP = "OpcheckRawNeg"
T = ("float8_e4m3fn", "float8_e5m2", "int4")
DEF = api.OpDef(OP, type_vars={"T": T}, inputs=(api.Input("x", "T"),),
                outputs=(api.Output("y", "T"),))

@register_op(op_type=OP, output_names=("y",), dtype_rules=DtypeRules.from_table(
    type_vars={"T": T}, inputs={"x": "T"}, outputs={"y": "T"}))
def infer(x: TensorDesc) -> TensorDesc:
    return TensorDesc(x.shape, x.data_type)

@register_op_impl(op_type=OP)
class RawNeg:
    def execute(self, x) -> None:
        ctx = get_execute_ctx()
        y = ctx.malloc_output_tensor(0, x.shape, x.format, x.data_type)
        data = np.frombuffer(ctypes.string_at(x.addr, x.size), np.uint8)
        if x.data_type == DataType.DT_INT4:
            low, high = (-(data & 0x0F)) & 0x0F, (-(data >> 4)) & 0x0F
            out = (low | (high << 4)).astype(np.uint8)
        else:
            out = data ^ np.uint8(0x80)
        ctypes.memmove(y.addr, out.tobytes(), x.size)

def neg(x):
    if x.dtype.name == "int4":
        return ((-x.astype(np.int8) + 8) % 16 - 8).astype(x.dtype)
    return -x

rng = np.random.default_rng(5)
cases = []
for name in T:
    dtype = np.dtype(getattr(ml_dtypes, name))
    if name == "int4":
        x = rng.integers(-8, 8, size=(3, 7)).astype(dtype)  # odd: a half byte
    else:
        x = rng.uniform(-8, 8, size=(3, 7)).astype(dtype)
        x.reshape(-1)[:2] = np.array([np.nan, 0.0]).astype(dtype)
    cases.append(OpCase((("x", x),)))
build = lambda x: DEF.build(inputs={"x": x})
r = opcheck(OP, cases, reference=neg, builder=build)
assert r.ok and r.cases == 3, r.as_dict()
assert r.checked["reference"] == r.checked["memory"] == r.checked["paths"] == 3
for case in cases:
    wrong = opcheck(OP, [case], reference=lambda x: x, builder=build,
                    properties=("reference",))
    assert [f.property for f in wrong.failures] == ["reference"], wrong.as_dict()
print("fine")
"""


def test_opcheck_draws_types_held_only_as_bytes() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _RAW_OP],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.stdout.strip() == "fine", done.stderr


def test_an_op_without_implementation_is_reported_as_such() -> None:
    done = gen_ops("test", "--ops", "AttrZooCustom", "--format", "json")
    assert done.returncode == 0, done.stderr
    (result,) = json.loads(done.stdout)["ops"]
    assert result["status"] == "skipped"
    assert result["note"].startswith("no implementation"), result
    text = gen_ops("test", "--ops", "AttrZooCustom")
    assert "skip  AttrZooCustom: no implementation" in text.stdout


def _by_op(stdout: str) -> dict[str, dict[str, object]]:
    report = json.loads(stdout)
    return {
        entry["op"]: {k: v for k, v in entry.items() if k != "seconds"}
        for entry in report["ops"]
    }


def _plain_gen_ops(*args: str) -> subprocess.CompletedProcess:
    """gen-ops as a user runs it in the repository: implementations found
    from the specs' author modules, no op path set."""
    env = {k: v for k, v in os.environ.items() if k != "ASCEND_CUSTOM_OPP_PATH"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run(
        [str(GEN_OPS), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_jobs_give_the_report_of_one_process() -> None:
    """--jobs 2 splits the ops over two processes; every op's result (status,
    cases, checks, notes) is the one a single process gives, in op order."""
    ops = "Abs,AddCustom,Relu,ScaleCustom"
    args = ("test", "--ops", ops, "--format", "json", "--seed", "5")
    one = _plain_gen_ops(*args)
    two = _plain_gen_ops(*args, "--jobs", "2")
    assert one.returncode == 0 and two.returncode == 0, two.stderr
    assert list(_by_op(two.stdout)) == sorted(ops.split(","))
    assert {e["status"] for e in _by_op(one.stdout).values()} == {"ok"}
    assert _by_op(two.stdout) == _by_op(one.stdout)
    text = _plain_gen_ops("test", "--ops", ops, "--jobs", "3")
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines()[0].startswith("ok    Abs: ")
    assert "4 ok, 0 failed, 0 skipped" in text.stdout


def test_jobs_is_refused_with_case_or_export(tmp_path: Path) -> None:
    for extra in (["--case", "0"], ["--export-ttk", str(tmp_path)]):
        done = _plain_gen_ops("test", "--ops", "Abs,Relu", "--jobs", "2", *extra)
        assert done.returncode == 2, done.stdout
        assert "--jobs runs with neither --case nor --export-ttk" in done.stderr
        assert "Traceback" not in done.stderr
    zero = _plain_gen_ops("test", "--jobs", "0")
    assert zero.returncode == 2 and "must be 1 or more" in zero.stderr


def test_an_op_that_cannot_be_tested_is_exit_2() -> None:
    """docs/cli.md: 2 when an op cannot be tested. With the op path naming
    only ScaleCustom's module, Abs has no implementation to load."""
    done = gen_ops("test", "--ops", "Abs,ScaleCustom")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "ERROR  Abs: " in done.stdout and "ok    ScaleCustom: " in done.stdout


def test_a_jobs_child_that_dies_is_an_error_line(tmp_path: Path) -> None:
    """A --jobs child that writes no report (here: the op module both
    children load ends the process) gives an ERROR line for each of its
    ops with the child's exit, and the exit status is 2; no traceback."""
    module = tmp_path / "dies.py"
    module.write_text("import os\n\nos._exit(7)\n")
    done = gen_ops("test", "--ops", "Abs,ScaleCustom", "--jobs", "2", opp=module)
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[:2] for line in lines[:2]] == [
        ["ERROR", "Abs:"],
        ["ERROR", "ScaleCustom:"],
    ]
    assert "its test process wrote no report: exit 7" in done.stdout
    assert "Traceback" not in done.stderr
