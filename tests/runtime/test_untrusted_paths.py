"""Paths a user hands the runtime that are not regular files: a FIFO must
not hang the reader and a device must not exhaust memory (Note [Untrusted
container files] in ge._container)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ge._container import FileFormatError
from ge.graph import DataType, Tensor
from ge.graph.air import load_graph


@pytest.fixture()
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_load_graph_refuses_what_is_not_a_regular_file(kind: str, fifo: Path) -> None:
    path = fifo if kind == "fifo" else Path("/dev/zero")
    with pytest.raises(FileFormatError, match="not a regular file"):
        load_graph(path)


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_tensor_from_file_refuses_what_is_not_a_regular_file(
    kind: str, fifo: Path
) -> None:
    path = fifo if kind == "fifo" else Path("/dev/zero")
    with pytest.raises(FileFormatError, match="tensor file .*not a regular file"):
        Tensor(file_path=str(path), data_type=DataType.DT_UINT8, shape=[1])


def test_tensor_from_a_regular_file_reads_its_bytes(tmp_path: Path) -> None:
    path = tmp_path / "raw.bin"
    path.write_bytes(bytes(range(8)))
    tensor = Tensor(file_path=str(path), data_type=DataType.DT_UINT8, shape=[8])
    assert list(tensor.numpy()) == list(range(8))
