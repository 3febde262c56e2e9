"""Bring a legacy REG_OP header into gen-ops and run some of its ops.

legacy_ops.h declares ten ops the way REG_OP headers are written (doc
blocks, named sets, TensorType without braces, a bare DT_ name, Promote, a
ref pair, dynamic slots, names GE allows and Python does not take lightly)
with two dtype defects GE never notices. This script, the migration of
docs/importing.md in miniature:

1. imports the header with ``gen-ops import --fix-dtypes`` into a temporary
   directory (one spec per op; the warnings say what was normalised), and
   checks with ``gen-ops roundtrip`` that the header gen-ops renders from
   each spec means what the legacy one does;
2. adds to six specs what a header cannot say (additions.yaml: infer_meta,
   and that the op runs through an execute callback);
3. runs gen-ops on the specs: ge.es.legacy builders, REG_OP headers,
   prototypes and implementation bases;
4. runs build_and_run.py, which builds a graph with six of the builders,
   runs it on the CPU device with legacy_impl.py's numpy implementations
   and compares with numpy.

Nothing is written into the checkout:

    python examples/import_legacy/run.py [OUT_DIR]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
HEADER = HERE / "legacy_ops.h"
MODULE = "legacy"


def gen_ops(*args: str | Path) -> int:
    """Run gen-ops as a user would, with this interpreter."""
    command = [sys.executable, "-m", "gen_ops", *map(str, args)]
    return subprocess.run(command, check=False).returncode


def add_what_the_header_cannot_say(specs: Path) -> list[str]:
    """Append additions.yaml's entries to the imported specs of their ops."""
    additions = yaml.safe_load((HERE / "additions.yaml").read_text(encoding="utf-8"))
    done = []
    for path in sorted((specs / MODULE).glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        op = yaml.safe_load(text)["op"]
        if op in additions:
            extra = yaml.safe_dump(
                additions[op], sort_keys=False, default_flow_style=None
            )
            path.write_text(text + extra, encoding="utf-8")
            done.append(op)
    missing = sorted(set(additions) - set(done))
    if missing:
        raise SystemExit(f"import_legacy: no imported spec for {', '.join(missing)}")
    return done


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="import_legacy-") as tmp:
        out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tmp)
        specs, generated = out / "specs", out / "generated"
        print(f"[import_legacy] gen-ops import {HEADER.name} --fix-dtypes", flush=True)
        status = gen_ops(
            "import", HEADER, "--module", MODULE, "--out", specs, "--fix-dtypes"
        )
        if status != 0:
            print(f"[import_legacy] FAIL (gen-ops import exited {status})")
            return 1
        roundtrip = subprocess.run(
            [sys.executable, "-m", "gen_ops", "roundtrip", str(HEADER)]
            + ["--module", MODULE, "--fix-dtypes"],
            capture_output=True,
            text=True,
            check=False,
        )
        if roundtrip.returncode != 0:
            print(roundtrip.stdout + roundtrip.stderr, end="")
            print(
                f"[import_legacy] FAIL (gen-ops roundtrip exited {roundtrip.returncode})"
            )
            return 1
        print(roundtrip.stdout, end="", flush=True)  # its summary line
        count = len(list((specs / MODULE).glob("*.yaml")))
        done = add_what_the_header_cannot_say(specs)
        print(
            f"[import_legacy] {count} spec(s) in {specs / MODULE}; "
            f"infer_meta and impl added to {len(done)}: {', '.join(done)}",
            flush=True,
        )
        status = gen_ops("--specs", specs, "--out", generated, "--no-scaffold")
        if status != 0:
            print(f"[import_legacy] FAIL (gen-ops exited {status})")
            return 1
        env = dict(os.environ)
        python_path = [str(generated / "python"), env.get("PYTHONPATH", "")]
        env["PYTHONPATH"] = os.pathsep.join(p for p in python_path if p)
        env["ASCEND_CUSTOM_OPP_PATH"] = str(HERE / "legacy_impl.py")
        run = subprocess.run(
            [sys.executable, str(HERE / "build_and_run.py")], env=env, check=False
        )
        return run.returncode


if __name__ == "__main__":
    sys.exit(main())
