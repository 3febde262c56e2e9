"""compile_external: a failing or hanging compiler gives a clear error,
leaves no temporary files and leaves the session usable; results are
cached per key per process."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from libraries import ROOT

from ge.custom_op import (
    ExternalCompileError,
    bootstrap,
    compile_external,
    get_registered_op_impl,
)
from ge.engine.errors import CompileError
from ge.es import GraphBuilder
from ge.ge_global import GeApi, is_initialized
from ge.graph import DataType, Tensor
from ge.session import Session

ONLINE_OPS = ROOT / "examples" / "tilelang_online" / "add_custom_op.py"
FAILING = "import sys\nprint('parsing kernel'); print('error: bad tile', file=sys.stderr)\nsys.exit(3)\n"
HANGING = "import time\nprint('compiling', flush=True)\ntime.sleep(60)\n"


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """tempfile's directory, so the test sees what compile_external leaves."""
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root


def script(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_failing_compiler_is_quoted(tmp_path: Path, private_tmp: Path) -> None:
    failing = script(tmp_path, "bad.py", FAILING)
    with pytest.raises(ExternalCompileError) as info:
        compile_external([sys.executable, str(failing), "{output}"], key="fail-1")
    message = str(info.value)
    assert "exited with status 3" in message and str(failing) in message
    assert "parsing kernel" in message and "error: bad tile" in message
    assert list(private_tmp.iterdir()) == []  # the temporary directory is gone


def test_a_hanging_compiler_is_killed(tmp_path: Path, private_tmp: Path) -> None:
    hanging = script(tmp_path, "hang.py", HANGING)
    with pytest.raises(ExternalCompileError, match=r"timed out after 1 s"):
        compile_external([sys.executable, str(hanging)], timeout=1)
    assert list(private_tmp.iterdir()) == []


def test_missing_output_and_missing_compiler(tmp_path: Path) -> None:
    quiet = script(tmp_path, "quiet.py", "print('done')\n")
    with pytest.raises(ExternalCompileError, match="wrote no output.so"):
        compile_external([sys.executable, str(quiet)])
    with pytest.raises(ExternalCompileError, match="cannot run the compiler"):
        compile_external([str(tmp_path / "no-such-compiler")])
    with pytest.raises(TypeError, match="list of arguments"):
        compile_external("gcc -o {output}")  # type: ignore[arg-type]


def test_results_are_cached_per_key(tmp_path: Path) -> None:
    counter = tmp_path / "runs"
    writer = script(
        tmp_path,
        "writer.py",
        "import sys, pathlib\n"
        f"c = pathlib.Path({str(counter)!r}); c.write_text(c.read_text() + 'x' if c.exists() else 'x')\n"
        "pathlib.Path(sys.argv[1]).write_bytes(b'lib')\n",
    )
    command = [sys.executable, str(writer), "{output}"]
    assert compile_external(command, key=("cache", tmp_path)) == b"lib"
    assert compile_external(command, key=("cache", tmp_path)) == b"lib"
    assert counter.read_text() == "x"  # one run for the key
    compile_external(command)  # no key: no cache
    assert counter.read_text() == "xx"


@pytest.fixture
def online_module() -> Iterator[object]:
    if get_registered_op_impl("AddCustomOnline") is None:
        bootstrap.load_custom_op_plugins(str(ONLINE_OPS))
    descriptor = get_registered_op_impl("AddCustomOnline")
    assert descriptor is not None
    yield sys.modules[descriptor.cls.__module__]


def online_session(n: int) -> Session:
    from ge.es.tilelang import AddCustomOnline

    if not is_initialized():
        GeApi().ge_initialize({"ge.exec.deviceId": "0", "ge.graphRunMode": "1"})
    builder = GraphBuilder(f"online_{n}")
    x = builder.create_input(0, name="x", data_type=DataType.DT_FLOAT, shape=[n])
    y = builder.create_input(1, name="y", data_type=DataType.DT_FLOAT, shape=[n])
    builder.set_graph_output(AddCustomOnline(x, y), 0)
    session = Session({})
    session.add_graph(1, builder.build_and_reset())
    return session


@pytest.mark.parametrize(
    "n, text, expected",
    [
        (2048, FAILING, "exited with status 3"),
        (3072, HANGING, "timed out after 1 s"),
    ],
)
def test_compile_failure_leaves_the_session_usable(
    tmp_path: Path,
    online_module: object,
    monkeypatch: pytest.MonkeyPatch,
    n: int,
    text: str,
    expected: str,
) -> None:
    real = online_module.KERNEL_SCRIPT  # type: ignore[attr-defined]
    monkeypatch.setattr(online_module, "KERNEL_SCRIPT", script(tmp_path, "c.py", text))
    monkeypatch.setattr(online_module, "COMPILE_TIMEOUT", 1.0)
    session = online_session(n)
    with pytest.raises(CompileError) as info:
        session.compile_graph(1)
    assert "AddCustomOnline" in str(info.value) and expected in str(info.value)
    monkeypatch.setattr(online_module, "KERNEL_SCRIPT", real)
    monkeypatch.setattr(online_module, "COMPILE_TIMEOUT", 120.0)
    session.compile_graph(1)  # the same session compiles once the compiler works
    x = np.arange(n, dtype=np.float32)
    (z,) = session.run_graph(1, [Tensor(x), Tensor(x)])
    np.testing.assert_array_equal(z.numpy(), 2 * x)
