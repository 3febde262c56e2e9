"""A stand-in for TileLang: compiles the element-wise Add kernel for N
elements into a shared library exporting GE's TileLang calling convention,

    void call(uint8_t *A_handle, uint8_t *B_handle, uint8_t *C_handle, void *stream)

It writes the C a kernel compiler would emit (``main_kernel`` over blocks of
BLOCK_SIZE elements, wrapped by ``call``) and builds it with the system C
compiler (``$CC``, default gcc) as any team would: ``-shared -fPIC``, no ge
headers, initializers and all. It optimises exactly as ge's own kernel
toolchain does (OPT_FLAGS: ``-O3``, which vectorises the add loop, and
loops on 64-byte lines, ``-falign-loops=64``: left to ``-O2``, the add loop
straddles two fetch lines and runs at half speed on some machines), so a
foreign library and an annotated kernel of the same C loop are the same
code (docs/performance.md, "Foreign kernel libraries against annotated
ops").

    python add_custom_kernel.py N OUTPUT.so

N defaults to 4096 and must be a positive multiple of BLOCK_SIZE (1024).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

BLOCK_SIZE = 1024
# The optimisation flags of ge's kernel toolchain (OPT_FLAGS in
# ge/device/toolchain.py; a test keeps the two equal): -O3, and hot loops on
# a 64-byte line (Note [Loop alignment] there).
OPT_FLAGS = ["-O3", "-falign-loops=64"]

SOURCE = """#include <stdint.h>

#define N {n}u
#define BLOCK_SIZE {block}u

/* Set by the library's initializer: a foreign library's constructors run
 * when it is loaded (docs/runtime.md, "Foreign kernel libraries"). */
static volatile uint32_t blocks;

__attribute__((constructor)) static void setup(void) {{ blocks = N / BLOCK_SIZE; }}

static void main_kernel(uint32_t block, const float *a, const float *b, float *c) {{
  const float *x = a + (uint64_t)block * BLOCK_SIZE;
  const float *y = b + (uint64_t)block * BLOCK_SIZE;
  float *z = c + (uint64_t)block * BLOCK_SIZE;
  for (int i = 0; i < (int)BLOCK_SIZE; ++i) z[i] = x[i] + y[i];
}}

void call(uint8_t *A_handle, uint8_t *B_handle, uint8_t *C_handle, void *stream) {{
  (void)stream;
  for (uint32_t block = 0; block < blocks; ++block)
    main_kernel(block, (const float *)A_handle, (const float *)B_handle,
                (float *)C_handle);
}}
"""


def main(argv: list[str]) -> int:
    n = int(argv[1]) if len(argv) > 1 else 4096
    output = Path(argv[2] if len(argv) > 2 else "add_kernel.so")
    if n <= 0 or n % BLOCK_SIZE:
        print(f"N={n} must be a positive multiple of {BLOCK_SIZE}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="tilelang-") as tmp:
        source = Path(tmp) / "add_custom_kernel.c"
        source.write_text(SOURCE.format(n=n, block=BLOCK_SIZE), encoding="utf-8")
        compiler = os.environ.get("CC", "gcc")
        command = [compiler, "-shared", "-fPIC", *OPT_FLAGS]
        command += [str(source), "-o", str(output)]
        result = subprocess.run(command, check=False)
        if result.returncode != 0:
            return result.returncode
    print(f"Kernel .so saved to: {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
