"""What every benchmark's JSON starts with, and writing it; the environment
its gen-ops processes run in."""

from __future__ import annotations

import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

# gen-ops runs as a user's does: with bytecode files (a machine that sets
# PYTHONDONTWRITEBYTECODE, as some CI images do, would otherwise compile
# every module of gen-ops in every process it times).
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def header(benchmark: str) -> dict[str, Any]:
    """The benchmark's name, the command that ran it and the machine."""
    return {
        "benchmark": benchmark,
        "command": f"python bench/{benchmark}.py " + " ".join(sys.argv[1:]),
        "machine": {
            "cpus": os.cpu_count(),
            "processor": platform.processor(),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
    }


def write(path: Path, result: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {path}")
