"""The window GE's reader compares with: anchored at a release's date or
today, ``--window-days`` long (365 by default), later releases left out,
oldest first; and release dates as GE reads them."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from history_helpers import Project, project  # noqa: F401

from gen_ops.base.diagnostics import Sink
from gen_ops.history import dates, registry, window
from gen_ops.history.dates import ReleaseDate


def index_of(project: Project, *releases: tuple[str, str]) -> registry.Index:
    """A registry whose index lists ``(version, date)`` in this order."""
    project.json(
        "reg/index.json",
        {
            "version": "1.0.0",
            "releases": [
                {"release_version": v, "release_date": d} for v, d in releases
            ],
        },
    )
    for version, _ in releases:
        project.json(
            f"reg/registry/{version}/metadata.json", {"release_version": version}
        )
        project.json(f"reg/registry/{version}/operators.json", {"operators": []})
    sink = Sink()
    index = registry.read(Path("reg"), sink)
    assert index is not None and not sink.items
    return index


def names(releases: tuple[registry.Release, ...]) -> list[str]:
    return [r.version for r in releases]


def test_the_index_is_ordered_by_date_and_one_date_keeps_its_order(
    project: Project,
) -> None:
    index = index_of(
        project, ("b", "2026-03-01"), ("a", "2026-01-01"), ("c", "2026-03-01")
    )
    assert names(index.releases) == ["a", "b", "c"]


def test_the_window_holds_365_days_up_to_the_anchor(project: Project) -> None:
    index = index_of(
        project,
        ("old", "2025-02-28"),  # 366 days before 2026-03-01
        ("edge", "2025-03-01"),  # 365 days
        ("mid", "2025-09-01"),
        ("anchor", "2026-03-01"),
        ("later", "2026-03-02"),
    )
    anchor = ReleaseDate("2026-03-01")
    assert names(window.select(index, anchor, 365).releases) == [
        "edge",
        "mid",
        "anchor",
    ]
    assert names(window.select(index, anchor, 0).releases) == ["anchor"]
    assert names(window.select(index, anchor, 366).releases)[0] == "old"


def test_the_anchor_is_a_release_or_today(project: Project) -> None:
    today = datetime.date.today()
    days = [today - datetime.timedelta(d) for d in (400, 100, 0, -1)]
    index = index_of(
        project,
        *[(f"v{i}", day.isoformat()) for i, day in enumerate(days)],
    )
    sink = Sink()
    chosen = window.anchored(index, None, 365, sink)
    assert chosen is not None and names(chosen.releases) == ["v1", "v2"]
    at_v1 = window.anchored(index, "v1", 365, sink)
    assert at_v1 is not None and names(at_v1.releases) == ["v0", "v1"]
    assert not sink.items


def test_an_anchor_the_index_lacks_is_an_error(project: Project) -> None:
    index_of(project, ("1.0.0", "2026-01-01"))
    project.spec("a.yaml", "op: A\n")
    run = project.compat("--release-version", "2.0.0")
    assert run.status == 2
    assert run.lines == [
        "reg/index.json:2:15: error[H109]: --release-version 2.0.0: the registry "
        "lists no such release (it lists: 1.0.0)"
    ]
    assert run.hints == ["name a release the index lists, or leave the option out"]
    assert run.err.endswith("gen-ops compat: nothing was compared\n")


def test_against_compares_with_one_release_in_or_out_of_the_window(
    project: Project,
) -> None:
    project.spec("a.yaml", "op: A\ninputs:\n  - {name: x, dtype: float32}\n")
    project.release("1.0.0", "2020-01-01")
    project.spec("a.yaml", "op: A\n")
    project.release("2.0.0", "2026-01-01")
    run = project.compat("--against", "1.0.0")
    assert run.lines == [
        "specs/a.yaml:1:5: error[H301]: A: input 'x' removed; breaks callers of "
        "release 1.0.0"
    ]
    assert project.compat("--against", "2.0.0").status == 0
    missing = project.compat("--against", "3.0.0")
    assert missing.status == 2 and "H109" in missing.lines[0]
    both = project.compat("--against", "1.0.0", "--release-version", "2.0.0")
    assert both.status == 2
    assert "--against and --release-version exclude each other" in both.err


def test_window_days_option(project: Project) -> None:
    project.spec("a.yaml", "op: A\ninputs:\n  - {name: x, dtype: float32}\n")
    project.release("1.0.0", "2025-01-01")
    project.spec("a.yaml", "op: A\n")
    project.release("2.0.0", "2026-01-01")
    assert project.compat("--release-version", "2.0.0").status == 1
    short = project.compat("--release-version", "2.0.0", "--window-days", "30")
    assert short.status == 0
    assert "compared with release 2.0.0:" in short.err
    bad = project.compat("--window-days", "-1")
    assert bad.status == 2 and "is not a number of days" in bad.err


def test_an_empty_window_compares_nothing(project: Project) -> None:
    project.spec("a.yaml", "op: A\n")
    project.release("1.0.0", "2000-01-01")
    run = project.compat()
    assert run.status == 0
    assert run.err.startswith(
        "gen-ops compat: no release of the registry is in the window; nothing to "
        "compare"
    )


@pytest.mark.parametrize(
    "text, why",
    [
        ("2026-01-31", None),
        ("1900-01-01", None),
        ("9999-12-31", None),
        ("2026-02-30", None),  # GE checks no more than day 1 to 31
        ("2026-1-31", "it is not YYYY-MM-DD"),
        ("20260131", "it is not YYYY-MM-DD"),
        ("2026-01-31 ", "it is not YYYY-MM-DD"),
        ("２０２６-01-31", "it is not YYYY-MM-DD"),  # full-width digits are not ASCII
        ("1899-12-31", "the year 1899 is not from 1900 to 9999"),
        ("2026-13-01", "the month 13 is not from 1 to 12"),
        ("2026-00-01", "the month 0 is not from 1 to 12"),
        ("2026-01-32", "the day 32 is not from 1 to 31"),
        ("2026-01-00", "the day 0 is not from 1 to 31"),
    ],
)
def test_release_dates_as_ge_reads_them(text: str, why: str | None) -> None:
    assert dates.problem(text) == why
    assert (dates.parse(text) is None) == (why is not None)


def test_a_date_the_calendar_lacks_counts_on_from_the_first_of_its_month() -> None:
    march_first = ReleaseDate("2026-03-01").day
    assert ReleaseDate("2026-02-29").day == march_first
    assert ReleaseDate("2026-02-30").day == march_first + 1
    assert ReleaseDate("2024-02-29").day == datetime.date(2024, 2, 29).toordinal()
