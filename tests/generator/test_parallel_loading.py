"""Loading in worker processes gives what one process gives (Note [Loading
in parallel] in gen_ops.pipeline): the same models and the same
diagnostics, over every spec of the repository, the golden specs and every
diagnostic case at once (so duplicate op types across chunks are E801 in
both)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import ROOT
from test_diagnostics import CASES

from gen_ops import pipeline
from gen_ops.diagnostics import Sink


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("many")
    shutil.copytree(ROOT / "specs", root / "specs")
    shutil.copytree(ROOT / "tests/golden/specs", root / "golden")
    for n, case in enumerate(CASES):
        for name, body in case.files.items():
            if not name.endswith(".yaml") or case.vanish:
                continue
            path = root / "cases" / f"{n:04d}_{Path(name).name}"
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(body, bytes):
                path.write_bytes(body)
            else:
                path.write_text(body, encoding="utf-8")
    return root


def _run(root: Path, jobs: int) -> tuple[list[object], list[str]]:
    sink = Sink()
    files = pipeline.discover([root], sink)
    assert len(files) > 100
    models = pipeline.load_and_check(files, sink, jobs=jobs)
    return models, [d.format() for d in sink.sorted()]


def test_workers_give_what_one_process_gives(tree: Path) -> None:
    serial = _run(tree, 1)
    parallel = _run(tree, 3)
    assert parallel[1] == serial[1]
    assert parallel[0] == serial[0]
    assert any("[E801]" in line for line in serial[1])


def test_many_files_and_cpus_choose_workers() -> None:
    assert pipeline._workers(10, None) == 1
    assert pipeline._workers(pipeline.PARALLEL_FROM - 1, None) == 1
    assert pipeline._workers(5, 8) == 5
