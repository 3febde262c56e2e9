"""Three releases of a small op library, checked and recorded in a history
registry, and calls written against the first release run against the
builders of the last (docs/releases.md).

- 1.0.0 (v1/): Blend(x, y, parts_num, *, alpha) and Clip(x, *, lo, hi).
- 1.1.0 (v2/): compatible changes to Blend: a new optional input w (after
  the *, since parts_num follows the inputs), alpha renamed to weight (the
  old keyword kept as an alias), y deprecated, a new optional attr bias.
- 2.0.0 (v3/): a breaking change, marked as intended: Clip gets a required
  attr mode.

Each step runs gen-ops compat against the registry (its output printed),
then records the release; the changelog follows. Finally the specs of v3
are rendered with --registry and calls of release 1.0.0 run against them on
a graph builder. Run from the repository root:

    python examples/release_history/run.py
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from types import ModuleType

from ge.es import GraphBuilder

HERE = Path(__file__).resolve().parent
RELEASES = [("v1", "1.0.0", "2026-01-10"), ("v2", "1.1.0", "2026-03-02"),
            ("v3", "2.0.0", "2026-06-01")]  # fmt: skip


def gen_ops(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gen_ops", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


def show(title: str, result: subprocess.CompletedProcess[str]) -> None:
    print(f"--- {title} (exit status {result.returncode})")
    for text in (result.stdout, result.stderr):
        if text.strip():
            print(text.rstrip())


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_demo_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def record_releases(work: Path) -> bool:
    previous = None
    for directory, version, date in RELEASES:
        specs = directory
        if previous is not None:  # the window ends at the release before
            check = gen_ops("compat", "--registry", "registry", "--specs", specs,
                            "--release-version", previous, cwd=work)  # fmt: skip
            show(f"gen-ops compat: {directory}/ before release {version}", check)
            if check.returncode != 0:
                return False
        release = gen_ops("release", version, "--date", date, "--registry",
                          "registry", "--specs", specs, "-q", cwd=work)  # fmt: skip
        show(f"gen-ops release {version}", release)
        if release.returncode != 0:
            return False
        previous = version
    log = gen_ops("changelog", "--registry", "registry", "--specs", "v3", cwd=work)
    show("gen-ops changelog", log)
    return log.returncode == 0


def old_calls(out: Path) -> bool:
    """Calls written against release 1.0.0, run against the builders of v3
    rendered with the registry."""
    blend = load(out / "python/ge/es/mixing/blend.py").Blend
    clip = load(out / "python/ge/es/mixing/clip.py").Clip
    builder = GraphBuilder("old_calls")
    x, y = builder.create_input(0), builder.create_input(1)
    print("--- calls of release 1.0.0 against the builders of 2.0.0")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        parts = blend(x, y, 2, alpha=0.5)  # 1.0.0: positional y, then parts_num
        for _ in range(3):  # one call site: warned once, not three times
            blend(x, None, 3, alpha=1.0)
    for warning in caught:
        print(f"warning at line {warning.lineno}: {warning.message}")
    graph = builder.build_and_reset()
    first = next(n for n in graph.nodes if n.type == "Blend")
    # bias, left at its default, is not written on the node (GE's forward
    # compatibility): whoever runs the graph takes it from the prototype.
    bias = (
        first.attrs["bias"][1] if "bias" in first.attrs else "default, not on the node"
    )
    print(f"Blend(x, y, 2, alpha=0.5) -> node {first.name}: "
          f"weight={first.attrs['weight'][1]}, bias={bias}, "
          f"{len(parts)} parts")  # fmt: skip
    builder = GraphBuilder("clip")
    try:
        clip(builder.create_input(0), lo=0.0, hi=2.0)
    except TypeError as exc:
        print(f"Clip(x, lo=0.0, hi=2.0) -> TypeError: {exc} (the break 2.0.0 marks)")
    else:
        print("Clip(x, lo=0.0, hi=2.0) unexpectedly worked")
        return False
    return first.attrs["weight"][1] == 0.5 and len(parts) == 2


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="release_history_") as tmp:
        work = Path(tmp)
        for directory, _, _ in RELEASES:  # so that diagnostics name v1/..., v2/...
            shutil.copytree(HERE / directory, work / directory)
        if not record_releases(work):
            return 1
        render = gen_ops("--specs", "v3", "--registry", "registry",
                         "--out", "out", "--no-scaffold", "--only", "python,docs",
                         "-q", cwd=work)  # fmt: skip
        show("gen-ops --registry registry (the specs of 2.0.0)", render)
        if render.returncode != 0:
            return 1
        signature = (work / "out/docs/ops/Blend.md").read_text().split("```python\n")
        print("--- Blend's signature in 2.0.0: " + signature[1].split("\n")[0])
        return 0 if old_calls(work / "out") else 1


if __name__ == "__main__":
    sys.exit(main())
