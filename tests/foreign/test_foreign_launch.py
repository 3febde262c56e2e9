"""Foreign kernel libraries through the task table: a plain gcc library
(initializers included) launched natively with address refresh, and the
libraries the runtime refuses, with the reason."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from libraries import ROOT, UNRESOLVED, N, gcc_library, other_machine

from ge.custom_op import bootstrap, get_registered_op_impl
from ge.device import foreign
from ge.device.elf import BadKernelBinary
from ge.engine.errors import CompileError
from ge.es import GraphBuilder
from ge.ge_global import GeApi, is_initialized
from ge.graph import DataType, Tensor
from ge.session import Session

EAGER_OPS = ROOT / "examples" / "tilelang_eager" / "add_custom_op.py"


@pytest.fixture
def eager_op() -> Iterator[type]:
    """The eager sample's op, registered from its author module."""
    if get_registered_op_impl("AddCustomTileLang") is None:
        bootstrap.load_custom_op_plugins(str(EAGER_OPS))
    descriptor = get_registered_op_impl("AddCustomTileLang")
    assert descriptor is not None
    yield descriptor.cls


def compiled_session(library: Path, monkeypatch: pytest.MonkeyPatch) -> Session:
    from ge.es.tilelang import AddCustomTileLang

    monkeypatch.setenv("TILELANG_ADD_KERNEL", str(library))
    if not is_initialized():
        GeApi().ge_initialize({"ge.exec.deviceId": "0", "ge.graphRunMode": "1"})
    builder = GraphBuilder("foreign_add")
    x = builder.create_input(0, name="x", data_type=DataType.DT_FLOAT, shape=[N])
    y = builder.create_input(1, name="y", data_type=DataType.DT_FLOAT, shape=[N])
    builder.set_graph_output(AddCustomTileLang(x, y), 0)
    session = Session({})
    session.add_graph(1, builder.build_and_reset())
    session.compile_graph(1)
    return session


def write(tmp_path: Path, data: bytes, name: str = "add_kernel.so") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_a_plain_gcc_library_runs_through_the_task_table_with_refresh(
    tmp_path: Path, eager_op: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = gcc_library(tmp_path, tag=101)
    assert b"\x7fELF" == data[:4]
    session = compiled_session(write(tmp_path, data), monkeypatch)
    # From here no Python of the op runs: make every method of it fail.
    for name in ("compile", "library_key", "declare_launch_args", "library"):
        monkeypatch.setattr(eager_op, name, _fail)
    rng = np.random.default_rng(13)
    kept = []
    for _ in range(3):  # fresh buffers every run: the addresses are refreshed
        x = rng.standard_normal(N).astype(np.float32)
        y = rng.standard_normal(N).astype(np.float32)
        (z,) = session.run_graph(1, [Tensor(x), Tensor(y)])
        np.testing.assert_array_equal(z.numpy(), x + y)  # the constructor ran
        kept.append((x, y, z))


def _fail(*args: object, **kwargs: object) -> None:
    raise AssertionError("the op's Python ran during a run")


def test_a_library_without_call_is_refused_naming_it(
    tmp_path: Path, eager_op: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    library = write(tmp_path, gcc_library(tmp_path, function="launch", tag=102))
    with pytest.raises(CompileError) as info:
        compiled_session(library, monkeypatch)
    message = str(info.value)
    assert "AddCustomTileLang" in message
    assert "exports no function 'call'" in message


def test_a_library_for_another_machine_is_refused(
    tmp_path: Path, eager_op: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = other_machine(gcc_library(tmp_path, tag=103))
    with pytest.raises(BadKernelBinary, match="built for machine"):
        foreign.load_library(data)
    with pytest.raises(CompileError, match="built for machine .*, this is"):
        compiled_session(write(tmp_path, data), monkeypatch)


@pytest.mark.parametrize(
    "damage, reason",
    [
        (lambda d: b"not an elf" + d[10:], "not an ELF file"),
        (lambda d: d[:4] + b"\x01" + d[5:], "not a 64-bit little-endian"),
        (lambda d: d[:64], "out of bounds"),
    ],
)
def test_damaged_libraries_are_refused(tmp_path: Path, damage, reason: str) -> None:  # type: ignore[no-untyped-def]
    data = gcc_library(tmp_path, tag=104)
    with pytest.raises(BadKernelBinary, match=reason):
        foreign.check_library(damage(data))


def test_an_unresolvable_import_is_refused_and_not_registered(tmp_path: Path) -> None:
    data = gcc_library(tmp_path, UNRESOLVED, name="unresolved")
    foreign.check_library(data)  # structurally sound
    before = foreign.loaded_digests()
    with pytest.raises(BadKernelBinary, match="ge_test_no_such_function"):
        foreign.load_library(data)
    assert foreign.loaded_digests() == before


def test_initializers_run_once_per_process(tmp_path: Path) -> None:
    data = gcc_library(tmp_path, tag=105)
    first = foreign.load_library(data)
    assert foreign.load_library(data) is first
    assert first.function("call") != 0
    with pytest.raises(LookupError, match="no function 'missing'"):
        first.function("missing")


def test_kernel_binaries_still_refuse_initializers(tmp_path: Path) -> None:
    """The trust is the foreign library's alone: the kernel loader refuses
    the same file."""
    from ge.device.kernels import load_binary

    with pytest.raises(BadKernelBinary, match="initializer"):
        load_binary(gcc_library(tmp_path, tag=106))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__]))
