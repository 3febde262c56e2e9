"""Foreign kernel libraries the tests build with plain gcc, as another
team's toolchain would: ``gcc -shared -fPIC -O2``, no ge headers."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
N = 4096

# The constructor sets the scale: a library whose initializers did not run
# computes zeros.
ADD = """#include <stdint.h>
static volatile float scale;
static volatile unsigned tag = TAG;
__attribute__((constructor)) static void setup(void) { scale = 1.0f; }
void FUNCTION(uint8_t *x, uint8_t *y, uint8_t *z, void *stream) {
  (void)stream;
  const float *a = (const float *)x, *b = (const float *)y;
  float *c = (float *)z;
  for (unsigned i = 0; i < COUNT; ++i) c[i] = (a[i] + b[i]) * scale + (float)(tag - tag);
}
"""

# Imports a function no library defines: checked fine, fails when mapped.
UNRESOLVED = """#include <stdint.h>
extern void ge_test_no_such_function(void);
void call(uint8_t *x, uint8_t *y, uint8_t *z, void *stream) {
  (void)x; (void)y; (void)z; (void)stream;
  ge_test_no_such_function();
}
"""


def gcc_library(
    tmp: Path,
    source: str = ADD,
    *,
    function: str = "call",
    tag: int = 0,
    count: int = N,
    name: str = "lib",
) -> bytes:
    """A library built with plain gcc -shared -fPIC -O2 (initializers kept)."""
    path = tmp / f"{name}.c"
    path.write_text(source, encoding="utf-8")
    out = tmp / f"{name}.so"
    cc = shutil.which(os.environ.get("CC", "gcc")) or "gcc"
    subprocess.run(
        [
            cc,
            "-shared",
            "-fPIC",
            "-O2",
            f"-DFUNCTION={function}",
            f"-DTAG={tag}u",
            f"-DCOUNT={count}u",
            str(path),
            "-o",
            str(out),
        ],
        check=True,
    )
    return out.read_bytes()


def other_machine(data: bytes) -> bytes:
    """The same library claiming another architecture (e_machine)."""
    machine = int.from_bytes(data[18:20], "little")
    other = 183 if machine == 62 else 62
    return data[:18] + other.to_bytes(2, "little") + data[20:]
