"""Opening a model runs no code from it (issue 21, finding 3): ``load_model``
and every query only parse and check (digests, payloads, the libraries'
ELF structure); a foreign library is mapped, and its constructors run, at
the model's first ``execute``, and they run first in a forked probe process
(Note [Constructor probe] in ge.device.foreign), so a constructor that
faults, aborts or ends the process is a load error of its op and the
process survives. The models are the TileLang offline sample's with its
library replaced, digests recomputed, as a crafted file would be; anything
that could kill the interpreter runs in a subprocess."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from libraries import ROOT, N, gcc_library
from test_tilelang_samples import offline_model, rebuilt  # noqa: F401

from ge.device import foreign, portable
from ge.device.memory import DeviceBuffer
from ge.offline import load_model, model_file

# The sample's add, with a constructor that leaves a marker file (and sets
# the scale: without its constructor the library computes zeros).
MARKER = """#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
static volatile float scale;
__attribute__((constructor)) static void leave_marker(void) {
  int fd = open(MARKER_PATH, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd >= 0) { (void)write(fd, "x", 1); close(fd); }
  scale = 1.0f;
}
void call(uint8_t *x, uint8_t *y, uint8_t *z, void *stream) {
  (void)stream;
  const float *a = (const float *)x, *b = (const float *)y;
  float *c = (float *)z;
  for (unsigned i = 0; i < COUNT; ++i) c[i] = (a[i] + b[i]) * scale + (float)(TAG - TAG);
}
"""

# Constructors that would take the process down.
ENDINGS = {
    "segv": "*nowhere = 1;",
    "abort": "abort();",
    "exit": "_exit(0);",
    "hang": "for (;;) sleep(1);",
}
ENDING = """#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
static int *volatile nowhere;  /* 0, and gcc cannot know it */
__attribute__((constructor)) static void end_it(void) { BODY }
void call(uint8_t *x, uint8_t *y, uint8_t *z, void *stream) {
  (void)x; (void)y; (void)z; (void)stream;
}
"""


def crafted(model: Path, library: bytes) -> bytes:
    """The sample's model with its library replaced (digests recomputed)."""
    data = model.read_bytes()
    key = model_file.decode(data).foreign[0][2]
    payload = portable.encode({key: library})
    digest = hashlib.sha256(payload).hexdigest()
    return rebuilt(
        data,
        lambda plan: plan.update(portable_sha256=[digest]),
        portable=len(payload).to_bytes(8, "little") + payload,
    )


def marker_model(model: Path, tmp_path: Path, tag: int) -> tuple[Path, Path]:
    marker = tmp_path / "constructor-ran"
    source = MARKER.replace("MARKER_PATH", f'"{marker}"')
    library = gcc_library(tmp_path, source, tag=tag, name=f"marker{tag}")
    path = tmp_path / "marker.om"
    path.write_bytes(crafted(model, library))
    return path, marker


def query_everything(model: object) -> None:
    """Every inspection a Model offers."""
    for name in (
        "name",
        "restored_libraries",
    ):
        getattr(model, name)
    for name in ("get_num_inputs", "get_num_outputs"):
        getattr(model, name)()
    for name in (
        "get_input_size_by_index",
        "get_input_dims",
        "get_input_data_type",
        "get_input_name_by_index",
        "get_output_size_by_index",
        "get_output_dims",
        "get_output_data_type",
        "get_output_name_by_index",
    ):
        getattr(model, name)(0)


def test_loading_and_inspecting_a_model_runs_no_constructor(
    offline_model: Path, tmp_path: Path
) -> None:
    path, marker = marker_model(offline_model, tmp_path, 301)
    before = foreign.loaded_digests()
    model_file.decode(path.read_bytes())
    model = load_model(path)
    query_everything(model)
    assert model.restored_libraries == 1  # decoded and checked, not mapped
    assert not marker.exists(), "opening the model ran its library's constructor"
    assert foreign.loaded_digests() == before  # nothing mapped or registered


def test_the_first_execute_maps_the_library_and_runs_its_constructors(
    offline_model: Path, tmp_path: Path
) -> None:
    path, marker = marker_model(offline_model, tmp_path, 302)
    model = load_model(path)
    assert not marker.exists()
    rng = np.random.default_rng(302)
    for _ in range(2):
        x, y = (rng.standard_normal(N).astype(np.float32) for _ in range(2))
        buffers = [DeviceBuffer(N * 4) for _ in range(3)]
        buffers[0].array[:] = x.view(np.uint8)
        buffers[1].array[:] = y.view(np.uint8)
        model.execute(buffers[:2], buffers[2:])
        z = np.frombuffer(bytes(buffers[2].array), np.float32)
        np.testing.assert_array_equal(z, x + y)  # the constructor ran here
    # Once in the probe process, once in this one; never again.
    assert marker.read_text() == "xx"


SCRIPT = r"""
import sys
from ge._container import FileFormatError
from ge.device.memory import DeviceBuffer
from ge.device import foreign
from ge.offline import load_model, model_file

path = sys.argv[1]
foreign.CONSTRUCTOR_SECONDS = 2.0  # the hanging constructor's probe
model_file.decode(open(path, "rb").read())
model = load_model(path)
model.get_num_inputs(), model.get_input_dims(0), model.restored_libraries
print("loaded", flush=True)
buffers = [DeviceBuffer(4096 * 4) for _ in range(3)]
for attempt in range(2):
    try:
        model.execute(buffers[:2], buffers[2:])
    except FileFormatError as exc:
        print("refused:", exc, flush=True)
print("alive", flush=True)
"""


@pytest.mark.parametrize("ending", sorted(ENDINGS))
def test_a_constructor_that_ends_the_process_is_a_load_error_of_its_op(
    offline_model: Path, tmp_path: Path, ending: str
) -> None:
    source = ENDING.replace("BODY", ENDINGS[ending])
    library = gcc_library(tmp_path, source, name=f"end_{ending}")
    path = tmp_path / f"{ending}.om"
    path.write_bytes(crafted(offline_model, library))
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = result.stdout.splitlines()
    assert result.returncode == 0, (result.returncode, result.stdout, result.stderr)
    assert lines[0] == "loaded"  # opening ran nothing
    refusals = [line for line in lines if line.startswith("refused:")]
    assert len(refusals) == 2, lines  # every execute says so, none crashes
    assert refusals[0] == refusals[1]
    assert "op AddCustomOffline" in refusals[0]
    assert "portable payload 0: entry '4096'" in refusals[0]
    assert "constructor" in refusals[0]
    want = {
        "segv": "killed by SIGSEGV",
        "abort": "killed by SIGABRT",
        "exit": "ended the process (exit status 0)",
        "hang": "did not finish within 2 s",
    }
    assert want[ending] in refusals[0], refusals[0]
    assert lines[-1] == "alive"


ONLINE = r"""
import sys
from ge.device import foreign
from ge.device.elf import BadKernelBinary
data = open(sys.argv[1], "rb").read()
before = foreign.loaded_digests()
try:
    foreign.load_library(data)
except BadKernelBinary as exc:
    print("refused:", exc, flush=True)
assert foreign.loaded_digests() == before
print("alive", flush=True)
"""


def test_a_faulting_constructor_is_contained_online_too(tmp_path: Path) -> None:
    """The probe is the foreign loader's: a library a Session or an eager
    op loads is probed the same way."""
    source = ENDING.replace("BODY", ENDINGS["segv"])
    library = tmp_path / "segv.so"
    library.write_bytes(gcc_library(tmp_path, source, name="online_segv"))
    result = subprocess.run(
        [sys.executable, "-c", ONLINE, str(library)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, (result.returncode, result.stdout, result.stderr)
    assert result.stdout.splitlines() == [
        "refused: a constructor was killed by SIGSEGV in a probe process; the "
        "library was not loaded",
        "alive",
    ]
