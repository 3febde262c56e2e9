"""The three TileLang samples end to end, and the offline sample's model
run where no compiler and no op module can be reached; model files that
carry foreign libraries, checked when loaded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from libraries import ROOT

from ge._container import FileFormatError, Section, read, write
from ge.offline import model_file
from ge.offline.model import load_model_bytes

SAMPLES = ROOT / "examples"


def run(
    *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "ASCEND_CUSTOM_OPP_PATH"}


@pytest.mark.parametrize(
    "sample, markers",
    [
        (
            "tilelang_eager",
            [
                "[INFO] Step 1/4: compile TileLang kernel",
                "[INFO] kernel .so installed in OPP package.",
                "[INFO] Step 4/4: run session test",
                "Precision check passed, max_error=0",
                "[INFO] Sample pipeline finished.",
            ],
        ),
        (
            "tilelang_online",
            [
                "CompileGraph (triggers TileLang online compilation)...",
                "TileLang kernel compiled and loaded, key=4096, so=",
                "Precision check passed, max_error=0",
                "[INFO] Step 3/3: sample pipeline finished.",
            ],
        ),
        (
            "tilelang_offline",
            [
                "[INFO] Step 3/4: compile AIR to OM via ATC (triggers Compile + Serialize)",
                "TileLang kernel compiled and loaded, key=4096, so_size=",
                "Serialized 1 kernel(s), total buffer size=",
                "Deserialized 1 kernel(s)",
                "Precision check passed, max_error=0",
                "[INFO] Sample pipeline finished.",
            ],
        ),
    ],
)
def test_the_tilelang_samples(sample: str, markers: list[str]) -> None:
    result = run(f"examples/{sample}/run.py", env=clean_env())
    assert result.returncode == 0, result.stdout + result.stderr
    for marker in markers:
        assert marker in result.stdout, (marker, result.stdout)
    assert result.stdout.count("Precision check passed, max_error=0") == 2


# Loads and runs the model with imports of the op's Python refused and
# watched, and PATH holding no compiler.
RUNNER = r"""
import sys, runpy
seen = []
class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.startswith("ge_impl") or "add_custom_op" in name:
            seen.append(name)
            raise ImportError(f"{name} must not be imported here")
        return None
sys.meta_path.insert(0, Refuse())
sys.argv = sys.argv[1:]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
except SystemExit as exc:
    code = exc.code
else:
    code = 0
print("IMPORTED=" + ",".join(seen))
sys.exit(code)
"""


@pytest.fixture(scope="module")
def offline_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tilelang_offline")
    result = run("examples/tilelang_offline/build_model.py", str(out), env=clean_env())
    assert result.returncode == 0, result.stdout + result.stderr
    return out / "tilelang_add_offline.om"


def test_the_model_runs_without_compiler_or_op_module(
    offline_model: Path, tmp_path: Path
) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {k: v for k, v in clean_env().items() if k not in ("CC", "PATH")}
    env["PATH"] = str(empty)
    result = run(
        "-c",
        RUNNER,
        str(SAMPLES / "tilelang_offline" / "model_exec.py"),
        str(offline_model),
        env=env,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert "Deserialized 1 kernel(s)" in lines
    assert lines.count("Precision check passed, max_error=0") == 2
    assert "IMPORTED=" in lines  # nothing of the op was even looked for


def parts(data: bytes) -> tuple[int, dict[int, bytes]]:
    return read(data, model_file.MAGIC, model_file.VERSION, model_file.WHAT)


def rebuilt(data: bytes, edit_plan=None, **sections: bytes) -> bytes:  # type: ignore[no-untyped-def]
    version, found = parts(data)
    if edit_plan is not None:
        plan = json.loads(found[model_file.PLAN])
        edit_plan(plan)
        found[model_file.PLAN] = json.dumps(plan).encode()
    for name, body in sections.items():
        found[getattr(model_file, name.upper())] = body
    return write(
        model_file.MAGIC, version, [Section(k, found[k]) for k in sorted(found)]
    )


def test_the_model_file_carries_the_payload(offline_model: Path) -> None:
    data = offline_model.read_bytes()
    version, found = parts(data)
    assert version == 2 and model_file.PORTABLE in found
    decoded = model_file.decode(data)
    assert decoded.portable_ops == ("AddCustomOffline",)
    assert decoded.payloads[0][:4] == bytes.fromhex("4e4b504f")
    ((slot, payload, key, function),) = decoded.foreign
    assert (payload, key, function) == (0, "4096", "call")
    assert decoded.slots[slot] == 0  # no address of the compiling process


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda p: p.update(foreign=[]), "has no library to call"),
        (
            lambda p: p["foreign"][0].__setitem__(0, 2),
            "names slot 2, no foreign call",
        ),
        (lambda p: p["foreign"][0].__setitem__(1, 5), "payload 5"),
        (lambda p: p["foreign"][0].__setitem__(2, "8192"), "no entry '8192'"),
        (lambda p: p["foreign"][0].__setitem__(3, "no such"), "not a C identifier"),
        (lambda p: p["foreign"][0].__setitem__(3, "launch"), "exports no function"),
        (
            lambda p: p.update(portable_sha256=["0" * 64]),
            "does not match its recorded digest",
        ),
        (lambda p: p.update(portable_ops=[]), "differ in length"),
    ],
)
def test_damaged_foreign_records_are_refused(offline_model: Path, edit, message: str) -> None:  # type: ignore[no-untyped-def]
    data = rebuilt(offline_model.read_bytes(), edit)
    with pytest.raises(FileFormatError, match=message):
        load_model_bytes(data)


def test_a_damaged_payload_in_the_file_is_refused(offline_model: Path) -> None:
    data = offline_model.read_bytes()
    decoded = model_file.decode(data)
    payload = decoded.payloads[0] + b"\0"  # a trailing byte, digest made right
    import hashlib

    data = rebuilt(
        data,
        lambda p: p.update(portable_sha256=[hashlib.sha256(payload).hexdigest()]),
        portable=len(payload).to_bytes(8, "little") + payload,
    )
    with pytest.raises(FileFormatError, match="portable payload 0: 1 trailing byte"):
        load_model_bytes(data)
    # Without the section, the adapter's task has nothing to call.
    version, found = parts(offline_model.read_bytes())
    del found[model_file.PORTABLE]
    stripped = write(
        model_file.MAGIC, version, [Section(k, found[k]) for k in sorted(found)]
    )
    with pytest.raises(FileFormatError, match="has no library to call"):
        load_model_bytes(stripped)


def test_the_stand_in_optimises_as_the_kernel_toolchain() -> None:
    """The TileLang stand-in's library and ge's kernels are built with the
    same optimisation flags, so the foreign/annotated bench compares the
    same code (docs/performance.md)."""
    import importlib.util

    from ge.device.toolchain import BASE_FLAGS, OPT_FLAGS

    path = SAMPLES / "tilelang_kernel" / "add_custom_kernel.py"
    spec = importlib.util.spec_from_file_location("add_custom_kernel", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert tuple(module.OPT_FLAGS) == OPT_FLAGS
    assert set(OPT_FLAGS) <= set(BASE_FLAGS)
