"""What the history tests share: a project in a temporary directory, specs
written into it, registry files written as GE's protocol lays them out, and
gen-ops run in-process."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gen_ops.cli import main


@dataclass(frozen=True)
class Run:
    status: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        """Diagnostic lines of standard error (hints and summaries left out)."""
        return [
            line
            for line in self.err.splitlines()
            if not line.startswith(("  hint: ", "gen-ops"))
        ]

    @property
    def hints(self) -> list[str]:
        return [
            line.removeprefix("  hint: ")
            for line in self.err.splitlines()
            if line.startswith("  hint: ")
        ]


class Project:
    """A directory with ``specs/`` and a registry ``reg/``; gen-ops runs in it."""

    def __init__(self, root: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.root = root
        self.capsys = capsys

    def spec(self, name: str, text: str) -> Path:
        path = self.root / "specs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def drop(self, name: str) -> None:
        (self.root / "specs" / name).unlink()

    def json(self, relative: str, data: Any, *, raw: str | None = None) -> Path:
        """A registry file: ``data`` as GE's writer lays it out (indent 2,
        keys sorted as its JSON library sorts them), or ``raw`` text."""
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        text = raw if raw is not None else json.dumps(data, indent=2, sort_keys=True)
        path.write_text(text, encoding="utf-8")
        return path

    def read(self, relative: str) -> Any:
        return json.loads((self.root / relative).read_text(encoding="utf-8"))

    def gen(self, *args: str) -> Run:
        self.capsys.readouterr()
        status = main(list(args))
        captured = self.capsys.readouterr()
        return Run(status, captured.out, captured.err)

    def release(self, version: str, date: str, *extra: str) -> Run:
        run = self.gen("release", version, "--date", date, "--registry", "reg", *extra)
        assert run.status == 0, run.err
        return run

    def compat(self, *extra: str) -> Run:
        return self.gen("compat", "--registry", "reg", *extra)


@pytest.fixture
def project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Project:
    monkeypatch.chdir(tmp_path)
    return Project(tmp_path, capsys)
