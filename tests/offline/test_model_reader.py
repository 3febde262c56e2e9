"""The model file reader treats its file as one a user did not write (issue
21): ``load_model`` opens regular files only, without blocking, reads at
most ``MAX_FILE_BYTES``, and the PLAN's JSON has bounded nesting and bounded
integers; every refusal is a FileFormatError saying where and what, never a
hang, a crash or an exhausted memory. A FIFO is opened in a subprocess with
a timeout, so that a regression cannot hang pytest."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from models import ROOT, model_bytes
from test_model_file import rebuild, sections

from ge._container import FileFormatError
from ge.offline import load_model, model_file
from ge.offline.model import load_model_bytes

_LOAD = """import sys
from ge._container import FileFormatError
from ge.offline import load_model
try:
    load_model(sys.argv[1])
except FileFormatError as exc:
    print(exc)
"""


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def load_elsewhere(path: Path) -> str:
    """``load_model(path)``'s message, in a subprocess with a timeout and a
    memory limit, so that a reader that hangs or reads forever fails the
    test instead of hanging pytest or exhausting the machine."""
    try:
        result = subprocess.run(
            [sys.executable, "-c", _LOAD, str(path)],
            capture_output=True,
            text=True,
            timeout=30,
            cwd=ROOT,
            preexec_fn=_limit_memory,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"load_model({path}) did not return within 30 s")
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "model.om"
    os.mkfifo(fifo)
    message = load_elsewhere(fifo)
    assert f"model file {fifo}: it is a FIFO, not a regular file" in message


def test_a_symlink_to_dev_zero_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "model.om"
    link.symlink_to("/dev/zero")
    message = load_elsewhere(link)
    assert f"model file {link}: it is a device, not a regular file" in message


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileFormatError, match="it is a directory, not a regular"):
        load_model(tmp_path)


def test_an_oversized_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    big = tmp_path / "big.om"
    with open(big, "wb") as handle:
        handle.truncate(model_file.MAX_FILE_BYTES + 1)  # sparse: no disk used
    with pytest.raises(
        FileFormatError, match=f"{big}: .* more than a model file may hold"
    ):
        load_model(big)


def test_a_missing_file_is_still_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_model(tmp_path / "absent.om")


def test_a_sound_model_still_loads_from_a_path(tmp_path: Path) -> None:
    path = tmp_path / "add.om"
    path.write_bytes(model_bytes("add"))
    assert load_model(path).get_num_inputs() == 2


def _with_plan_text(text: bytes) -> bytes:
    return rebuild(model_bytes("add"), **{"PLAN": text})


def _plan_text(edit: str) -> bytes:
    plan = json.loads(sections(model_bytes("add"))[model_file.PLAN])
    text = json.dumps(plan)
    return text.replace('"tasks": ', edit, 1).encode()


@pytest.mark.parametrize("depth", [64, 100_000])
def test_deep_nesting_in_the_plan_is_refused(depth: int) -> None:
    deep = b"[" * depth + b"]" * depth
    data = _with_plan_text(_plan_text('"deep": ' + deep.decode() + ', "tasks": '))
    with pytest.raises(FileFormatError, match="PLAN: values nest deeper than"):
        load_model_bytes(data)


@pytest.mark.parametrize("digits", [21, 4_000, 5_000])
def test_huge_integers_in_the_plan_are_refused(digits: int) -> None:
    data = _with_plan_text(_plan_text('"tasks": ' + "9" * digits + ', "x": '))
    with pytest.raises(FileFormatError, match=f"PLAN: an integer of {digits} digits"):
        load_model_bytes(data)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_non_json_constants_in_the_plan_are_refused(constant: str) -> None:
    data = _with_plan_text(_plan_text('"tasks": ' + constant + ', "x": '))
    with pytest.raises(FileFormatError, match=f"PLAN: {constant} is not JSON"):
        load_model_bytes(data)


@pytest.mark.parametrize("tail", [b"", b"\\"])
def test_an_unterminated_string_full_of_escaped_quotes_is_refused_quickly(
    tail: bytes,
) -> None:
    """The nesting scan skips strings in one linear pass, even when no
    string ends (a quadratic scan would take hours here)."""
    import time

    text = b'{"name": "' + b'\\"' * 500_000 + tail
    start = time.monotonic()
    with pytest.raises(FileFormatError, match="PLAN: not JSON"):
        load_model_bytes(_with_plan_text(text))
    assert time.monotonic() - start < 10
