"""The offline path end to end: ge-atc compiles a graph file with the op
modules of ASCEND_CUSTOM_OPP_PATH; a process that never imports them loads
the model and runs it with fresh buffers each time; graphs with Python
execute nodes are refused naming the nodes; the model's queries and
argument checks; the offline sample prints what GE's does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from models import ADD_OPS, ROOT, N, add_graph, load_op_modules, model_bytes

from ge.device.memory import DeviceBuffer
from ge.es import GraphBuilder
from ge.graph import DataType, Tensor
from ge.offline import OfflineError, compile_model
from ge.offline.compile import main as ge_atc
from ge.offline.model import load_model_bytes


@pytest.fixture(autouse=True)
def _unfused(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests count the sample ops' own launches, workspaces and
    execute nodes; the sample adds and ScaleCustom declare elementwise:, so
    element-wise fusion (docs/compiler.md) is off here."""
    monkeypatch.setenv("GE_CPU_FUSION", "0")


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "ASCEND_CUSTOM_OPP_PATH"}
    env.update(extra)
    return env


# Runs a model twice with fresh buffers, then reports which modules of the
# operator were imported: watched by an import audit hook from the start and
# by a final look at sys.modules. With "control" it loads the op module first,
# to show the watch sees an import when there is one.
RUNNER = r"""
import json, os, sys
from pathlib import Path

op_file = Path(sys.argv[2]).resolve()
seen = []
def watch(event, args):
    if event == "import":
        seen.append(args[0])
    elif event == "open" and isinstance(args[0], str) and Path(args[0]).name == op_file.name:
        seen.append("open:" + args[0])
sys.addaudithook(watch)

if sys.argv[3] == "control":
    from ge.custom_op import bootstrap
    bootstrap.load_custom_op_plugins(str(op_file))

import numpy as np
from ge.device.memory import DeviceBuffer
from ge.offline import load_model

model = load_model(sys.argv[1])
rounds = []
keep = []
for a, b in ((1.0, 2.0), (4.0, 5.0)):
    n = model.get_input_dims(0)[0]
    x, y, z = (DeviceBuffer(4 * n) for _ in range(3))
    x.array[:] = np.frombuffer(np.full(n, a, np.float32).tobytes(), np.uint8)
    y.array[:] = np.frombuffer(np.full(n, b, np.float32).tobytes(), np.uint8)
    model.execute([x, y], [z])
    got = np.frombuffer(bytes(z.array), np.float32)
    rounds.append({"first": float(got[0]), "all": bool((got == a + b).all()),
                   "addrs": [x.addr, y.addr, z.addr]})
    keep.append((x, y, z))
stem = op_file.stem
imported = sorted(
    name for name, m in sys.modules.items()
    if stem in name or name.startswith("ge_impl") or name == "ge.es.custom"
    or Path(str(getattr(m, "__file__", "") or "/")).resolve() == op_file
)
watched = sorted({s for s in seen if stem in s or s.startswith("ge_impl")})
print(json.dumps({"rounds": rounds, "imported": imported, "watched": watched}))
"""


def run_model_process(model: Path, mode: str, env: dict[str, str]) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", RUNNER, str(model), str(ADD_OPS), mode],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample's graph saved, then compiled by the ge-atc command in its
    own process with the op module on ASCEND_CUSTOM_OPP_PATH."""
    out = tmp_path_factory.mktemp("atc")
    add_graph().save_to_air(out / "add.air")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "ge.offline.compile",
            "--model",
            str(out / "add.air"),
            "--output",
            str(out / "add"),
        ],
        cwd=ROOT,
        env=clean_env(ASCEND_CUSTOM_OPP_PATH=str(ADD_OPS)),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"ge-atc: wrote {out / 'add.om'} (")
    return out / "add.om"


def test_the_model_runs_where_the_op_module_is_never_imported(compiled: Path) -> None:
    report = run_model_process(compiled, "run", clean_env())
    assert report["imported"] == [] and report["watched"] == []
    first, second = report["rounds"]
    assert (first["first"], second["first"]) == (3.0, 9.0)
    assert first["all"] and second["all"]
    assert not set(first["addrs"]) & set(second["addrs"])


def test_loading_ignores_ascend_custom_opp_path(compiled: Path) -> None:
    """Even with the op module on the path, loading a model never loads it."""
    report = run_model_process(
        compiled, "run", clean_env(ASCEND_CUSTOM_OPP_PATH=str(ADD_OPS))
    )
    assert report["imported"] == [] and report["watched"] == []


def test_the_watch_sees_an_import_when_there_is_one(compiled: Path) -> None:
    report = run_model_process(compiled, "control", clean_env())
    assert report["imported"] and report["watched"]


def test_the_model_file_is_the_in_process_compile(compiled: Path) -> None:
    assert compiled.read_bytes() == model_bytes("add")


def execute_graph() -> object:
    from ge.es.custom import AddCustom, AnnotatedAddCustom, NoRefreshAddCustom

    builder = GraphBuilder("mixed")
    x = builder.create_input(0, shape=[N])
    y = AnnotatedAddCustom(x, x, name="fast")
    z = NoRefreshAddCustom(y, x, name="slow")
    return builder.build_and_reset([AddCustom(z, y, name="eager")])


def test_graphs_with_execute_nodes_are_refused_naming_them() -> None:
    load_op_modules()
    from ge.custom_op import bootstrap

    bootstrap.load_custom_op_plugins(str(ROOT / "examples/add_custom/add_custom_op.py"))
    with pytest.raises(OfflineError) as info:
        compile_model(execute_graph())
    message = str(info.value)
    assert message == (
        "graph 'mixed' cannot run offline: node(s) 'slow' (NoRefreshAddCustom), "
        "'eager' (AddCustom) run through a Python execute callback; an offline "
        "model holds only annotated-args nodes (declare_launch_args)"
    )


def test_ge_atc_errors_are_one_line_without_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ASCEND_CUSTOM_OPP_PATH", raising=False)
    out = str(tmp_path / "m")
    assert ge_atc(["--model", str(tmp_path / "missing.air"), "--output", out]) == 1
    assert "No such file" in capsys.readouterr().err
    (tmp_path / "junk.air").write_bytes(b"junk")
    assert ge_atc(["--model", str(tmp_path / "junk.air"), "--output", out]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"ge-atc: graph file {tmp_path / 'junk.air'}: too short")
    assert "Traceback" not in err
    load_op_modules()
    execute_graph_path = tmp_path / "mixed.air"
    from ge.custom_op import bootstrap

    bootstrap.load_custom_op_plugins(str(ROOT / "examples/add_custom/add_custom_op.py"))
    execute_graph().save_to_air(execute_graph_path)  # type: ignore[attr-defined]
    assert ge_atc(["--model", str(execute_graph_path), "--output", out]) == 1
    assert "cannot run offline: node(s) 'slow'" in capsys.readouterr().err
    assert not (tmp_path / "m.om").exists()
    with pytest.raises(SystemExit) as info:  # argparse: a usage error
        ge_atc(["--model", "x.air", "--output", out, "--framework", "0"])
    assert info.value.code == 2
    assert "invalid choice: '0'" in capsys.readouterr().err


def test_ge_atc_without_the_op_module_names_the_missing_prototype(
    tmp_path: Path,
) -> None:
    add_graph().save_to_air(tmp_path / "add.air")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "ge.offline.compile",
            "--model",
            "add.air",
            "--output",
            "add",
        ],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 1
    assert "no prototype is registered for AnnotatedAddCustom" in result.stderr
    assert "Traceback" not in result.stderr


def test_model_queries() -> None:
    model = load_model_bytes(model_bytes("add"))
    assert model.name == "offline_add"
    assert (model.get_num_inputs(), model.get_num_outputs()) == (2, 1)
    assert [model.get_input_name_by_index(i) for i in range(2)] == ["data_x", "data_y"]
    assert model.get_output_name_by_index(0) == "output_0"
    assert model.get_input_dims(1) == [N] and model.get_output_dims(0) == [N]
    assert model.get_input_size_by_index(0) == 4 * N
    assert model.get_output_size_by_index(0) == 4 * N
    assert model.get_input_data_type(0) is DataType.DT_FLOAT
    assert model.get_output_data_type(0) is DataType.DT_FLOAT
    with pytest.raises(IndexError, match=r"model has 2 input\(s\), not 2"):
        model.get_input_dims(2)
    with pytest.raises(IndexError, match=r"model has 1 output\(s\), not -1"):
        model.get_output_size_by_index(-1)


def test_execute_checks_its_buffers() -> None:
    model = load_model_bytes(model_bytes("add"))
    ok = Tensor(np.ones(N, np.float32))
    with pytest.raises(
        ValueError, match=r"takes 2 input\(s\) and 1 output\(s\), got 1 and 1"
    ):
        model.execute([ok], [ok])
    with pytest.raises(
        ValueError, match="output 0 needs 32768 bytes, the buffer has 4"
    ):
        model.execute([ok, ok], [DeviceBuffer(4)])
    with pytest.raises(
        ValueError, match=r"input 1 must be float32\[8192\], got float32\[3\]"
    ):
        model.execute([ok, Tensor([1.0, 2.0, 3.0])], [DeviceBuffer(4 * N)])
    with pytest.raises(
        TypeError, match="input 0 must be a ge.graph.Tensor or a DeviceBuffer"
    ):
        model.execute([np.ones(N, np.float32), ok], [DeviceBuffer(4 * N)])  # type: ignore[list-item]
    out = Tensor(np.zeros(N, np.float32))
    model.execute([ok, Tensor(np.full(N, 2.0, np.float32))], [out])
    assert (out.numpy() == 3.0).all()


def test_the_offline_sample(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "examples/offline_two_round/run.py", str(tmp_path)],
        cwd=ROOT,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("ROUND_1_FIRST=3 ") for line in lines)
    assert any(line.startswith("ROUND_2_FIRST=9 ") for line in lines)
    assert "[Check] operator modules imported: none" in lines
    assert lines[-1] == "OFFLINE_TWO_ROUND=PASS"
    assert (tmp_path / "add_custom.air").exists() and (
        tmp_path / "add_custom.om"
    ).exists()
