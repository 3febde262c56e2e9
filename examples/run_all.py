"""`make demo`: run every example and print its results.

Each example runs in its own process (as a user would run it), from the
repository root; the demo fails if any of them fails.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = [
    ("add_custom", "examples/add_custom/run.py"),
    ("annotated_args_refresh", "examples/annotated_args_refresh/run.py"),
    ("offline_two_round", "examples/offline_two_round/run.py"),
    ("mlp", "examples/mlp/run.py"),
    ("import_legacy", "examples/import_legacy/run.py"),
    ("tilelang_eager", "examples/tilelang_eager/run.py"),
    ("tilelang_online", "examples/tilelang_online/run.py"),
    ("tilelang_offline", "examples/tilelang_offline/run.py"),
    ("release_history", "examples/release_history/run.py"),
    ("es_cpp", "examples/es_cpp/run.py"),
    ("constant_folding", "examples/constant_folding/run.py"),
    ("fusion_pass", "examples/fusion_pass/run.py"),
    ("host_kernel", "examples/host_kernel/run.py"),
    ("data_dependent_shape", "examples/data_dependent_shape/run.py"),
]


def main() -> int:
    failed = []
    for name, script in EXAMPLES:
        if not (ROOT / script).exists():
            continue
        print(f"=== {name} ({script}) ===", flush=True)
        started = time.perf_counter()
        result = subprocess.run([sys.executable, script], cwd=ROOT, check=False)
        print(
            f"=== {name}: {'ok' if result.returncode == 0 else 'FAILED'} "
            f"({time.perf_counter() - started:.1f} s) ===\n",
            flush=True,
        )
        if result.returncode != 0:
            failed.append(name)
    if failed:
        print("demo FAILED: " + ", ".join(failed))
        return 1
    print("demo: every example passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
