"""Model files whose kernel binary was tampered with, its digest and
checksums made right again: loading refuses the file or loads a kernel that
runs no code at load; it never crashes and never runs a constructor
(Note [Our own loader] in ge/device/elf.py)."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from elf_mutants import edit_init_array_beyond_segment, edit_zero_size_first
from models import ROOT, model_bytes
from test_model_file import sections, with_kernel

from ge._container import FileFormatError
from ge.device.kernels import build_kernel
from ge.offline import model_file
from ge.offline.model import load_model, load_model_bytes

CONSTRUCTOR = """#include <fcntl.h>
#include <unistd.h>
#include "ge_kernel.h"

__attribute__((constructor)) static void model_ctor(void) {
  int fd = creat(MARKER, 0600);
  if (fd >= 0) close(fd);
}

GE_KERNEL(add_custom, GE_IN(float, GE_COUNT_OF(3)), GE_IN(float, GE_COUNT_OF(3)),
          GE_OUT(float, GE_COUNT_OF(3)), GE_SCALAR()) {
  (void)args;
}
"""


def kernel_of(model: bytes) -> bytes:
    section = sections(model)[model_file.KERNELS]
    (length,) = struct.unpack_from("<Q", section, 0)
    return section[8 : 8 + length]


@pytest.mark.parametrize("edit", [edit_zero_size_first, edit_init_array_beyond_segment])
def test_load_model_runs_no_constructor_of_an_edited_kernel(
    edit: Callable[[bytes], bytes], tmp_path: Path
) -> None:
    marker = tmp_path / "constructor-ran"
    binary = build_kernel(
        CONSTRUCTOR, defines={"MARKER": f'"{marker}"'}, name="model_ctor"
    )
    path = tmp_path / "edited.om"
    path.write_bytes(with_kernel(model_bytes("add"), edit(binary)))
    with pytest.raises(FileFormatError, match="^model file: kernel binary 0: "):
        load_model(path)
    assert not marker.exists()


FLIPS = r"""
import json, random, sys
sys.path[:0] = ["tests", "tests/offline"]
from ge._container import FileFormatError
from ge.offline.model import load_model_bytes
from test_model_file import with_kernel

model = open(sys.argv[1], "rb").read()
kernel = open(sys.argv[2], "rb").read()
rng = random.Random(int(sys.argv[3]))
outcomes = {"refused": 0, "loaded": 0}
for _ in range(int(sys.argv[4])):
    data = bytearray(kernel)
    for _ in range(rng.randint(1, 8)):
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    try:
        load_model_bytes(with_kernel(model, bytes(data)))
        outcomes["loaded"] += 1
    except FileFormatError:
        outcomes["refused"] += 1
print(json.dumps(outcomes))
"""


def test_bit_flips_in_a_kernel_behind_a_recomputed_digest_never_crash_loading(
    tmp_path: Path,
) -> None:
    """The issue's reproduction was 300 such files; this loads 2,000, each
    with 1 to 8 flipped bits, in a subprocess so that a crash shows."""
    model = model_bytes("add")
    (tmp_path / "add.om").write_bytes(model)
    (tmp_path / "kernel.so").write_bytes(kernel_of(model))
    count = 2000
    result = subprocess.run(
        [sys.executable, "-c", FLIPS]
        + [str(tmp_path / "add.om"), str(tmp_path / "kernel.so"), "8", str(count)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    outcomes = json.loads(result.stdout)
    assert outcomes["refused"] + outcomes["loaded"] == count
    assert outcomes["refused"] > 0 and outcomes["loaded"] > 0
    # The untouched kernel behind the same machinery loads.
    assert load_model_bytes(with_kernel(model, kernel_of(model))).get_num_inputs() == 2


def test_a_kernel_declaring_an_unknown_argument_kind_is_a_format_error() -> None:
    """Was `KeyError: 33` from load_model."""
    source = (
        '#include "ge_kernel.h"\n'
        "GE_EXPORT const ge_arg_decl add_custom_ge_args[] = {{33, 4, 0, 0, 0}};\n"
        "GE_EXPORT const uint32_t add_custom_ge_nargs = 1;\n"
        "GE_EXPORT void add_custom(uint32_t b, uint32_t n, const uint64_t *a) "
        "{ (void)b; (void)n; (void)a; }\n"
    )
    data = with_kernel(model_bytes("add"), build_kernel(source, name="kind33"))
    with pytest.raises(
        FileFormatError,
        match="^model file: kernel binary 0: kernel 'add_custom' argument 0: "
        "unknown argument kind 33",
    ):
        load_model_bytes(data)
