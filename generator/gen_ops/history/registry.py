"""Reading a history registry, ours or one GE wrote, as GE's reader reads
it (docs/ge-compat.md, "History registry"; docs/releases.md, "Reading a
registry").

The layout: ``<root>/index.json`` lists the releases, and each release has
``<root>/registry/<version>/metadata.json`` and ``operators.json``. An index
that cannot be read at all is an error (H101); every other defect skips
what it spoils, with a warning that names the file and the JSON path: an
index entry with a field missing (H102), a bad date (H103) or a version
listed before (H104); a release whose metadata cannot be read (H105) or
names another release (H106). A release's ops are read by ``operators``
(H107, H108).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gen_ops.base.diagnostics import Sink, Span
from gen_ops.history import dates, jsonfile
from gen_ops.history.dates import ReleaseDate
from gen_ops.history.jsonfile import JsonFile, JsonPath
from gen_ops.spec.discovery import display

INDEX = "index.json"
RELEASES_DIR = "registry"
METADATA = "metadata.json"
OPERATORS = "operators.json"
INDEX_VERSION = "1.0.0"  # the registry format version this code writes

# A version names a directory: never empty, "." or "..", and no separator.
_UNSAFE = ("/", "\\", "\x00")


@dataclass(frozen=True)
class Release:
    """A release the index lists. ``entry`` is its place in ``releases``."""

    version: str
    date: ReleaseDate
    entry: int
    branch: str | None = None


@dataclass(frozen=True)
class Index:
    """index.json: the format ``version`` and the entries GE's reader
    keeps, ordered by date as GE orders them (entries of one date keep the
    index's order)."""

    root: Path
    version: str
    releases: tuple[Release, ...]
    file: JsonFile | None = None  # None: a registry not made yet

    @property
    def listed(self) -> int:
        """How many entries the file lists, those skipped included."""
        return 0 if self.file is None else len(self.file.data["releases"])

    def span(self, path: JsonPath) -> Span:
        """Where the value at ``path`` of index.json stands."""
        if self.file is None:
            return Span(display(self.root / INDEX), 1, 1)
        return self.file.span(path)

    def find(self, version: str) -> Release | None:
        return next((r for r in self.releases if r.version == version), None)


def release_dir(root: Path, version: str) -> Path:
    return root / RELEASES_DIR / version


def version_problem(version: str) -> str | None:
    """Why ``version`` cannot name a release directory, or None."""
    if version in ("", ".", ".."):
        return "it is not a directory name"
    if any(ch in version for ch in _UNSAFE):
        return "it holds a path separator"
    return None


def read_index(root: Path, sink: Sink) -> Index | None:
    """The index with the entries GE's reader keeps (H102 to H104 for the
    others), or None after H101."""
    shown = display(root / INDEX)
    try:
        file = jsonfile.load(root / INDEX, shown)
    except jsonfile.Unreadable as exc:
        sink.emit(
            "H101",
            exc.span,
            f"the registry's index cannot be read: {exc.reason}",
            "name a registry directory, one that gen-ops release or GE wrote "
            "(it holds index.json)",
        )
        return None
    data = file.data
    problem = _index_problem(data)
    if problem is not None:
        path, reason = problem
        sink.emit(
            "H101",
            file.span(path),
            f"{jsonfile.describe(path)}: {reason}",
            'index.json is {"version": "1.0.0", "releases": [...]}; restore it '
            "from version control",
        )
        return None
    kept: list[Release] = []
    seen: dict[str, int] = {}
    for i, entry in enumerate(data["releases"]):
        release = _entry(file, entry, i, seen, sink)
        if release is not None:
            seen[release.version] = i
            kept.append(release)
    kept.sort(key=lambda r: r.date)  # stable: one date keeps the index's order
    return Index(root, data["version"], tuple(kept), file)


def _index_problem(data: Any) -> tuple[JsonPath, str] | None:
    if not isinstance(data, dict):
        return (), "the index must be an object"
    if not isinstance(data.get("version"), str):
        return ("version",) if "version" in data else (), "there is no version string"
    if not isinstance(data.get("releases"), list):
        return ("releases",) if "releases" in data else (), "there is no releases list"
    return None


def _entry(
    file: JsonFile, entry: Any, i: int, seen: dict[str, int], sink: Sink
) -> Release | None:
    """One entry of ``releases``, or None after a warning."""
    where: JsonPath = ("releases", i)
    if not isinstance(entry, dict):
        _skip(sink, "H102", file, where, "is not an object")
        return None
    for key in ("release_version", "release_date"):
        value = entry.get(key)
        if not isinstance(value, str) or not value:
            _skip(
                sink,
                "H102",
                file,
                where + ((key,) if key in entry else ()),
                (
                    f"has no {key} string"
                    if key not in entry
                    else f"{key} is not a non-empty string"
                ),
            )
            return None
    version, date_text = entry["release_version"], entry["release_date"]
    unsafe = version_problem(version)
    if unsafe is not None:
        _skip(
            sink,
            "H102",
            file,
            where + ("release_version",),
            f"{version!r} cannot be a release: {unsafe}",
        )
        return None
    why = dates.problem(date_text)
    if why is not None:
        _skip(
            sink,
            "H103",
            file,
            where + ("release_date",),
            f"{date_text!r} is not a date GE reads: {why}",
        )
        return None
    if version in seen:
        _skip(
            sink,
            "H104",
            file,
            where + ("release_version",),
            f"release {version} is listed before, at releases[{seen[version]}]",
        )
        return None
    return Release(version, ReleaseDate(date_text), i)


_HINTS = {
    "H102": "give the entry a release_version and a release_date (YYYY-MM-DD)",
    "H103": "write the date as YYYY-MM-DD: year 1900 to 9999, month 1 to 12, day 1 to 31",
    "H104": "list each release once; remove the later entry",
}


def _skip(sink: Sink, code: str, file: JsonFile, where: JsonPath, what: str) -> None:
    """Warn that the entry ``where`` leads into is skipped."""
    sink.emit(
        code,
        file.span(where),
        f"{jsonfile.describe(where)}: {what}; GE's reader skips "
        f"{jsonfile.describe(where[:2])}",
        _HINTS[code],
    )


def read(root: Path, sink: Sink) -> Index | None:
    """The index with the releases GE's reader keeps: those of valid entries
    whose metadata loads and names them (H105, H106 for the others)."""
    index = read_index(root, sink)
    if index is None:
        return None
    kept = []
    for release in index.releases:
        loaded, branch = _metadata(root, release, sink)
        if loaded:
            kept.append(Release(release.version, release.date, release.entry, branch))
    return Index(root, index.version, tuple(kept), index.file)


def _metadata(root: Path, release: Release, sink: Sink) -> tuple[bool, str | None]:
    """Whether the release's metadata loads and names it (False after a
    warning), and its branch name (None if it has none)."""
    path = release_dir(root, release.version) / METADATA
    hint = (
        f'write {display(path)} as {{"release_version": "{release.version}"}} '
        "(branch_name optional), or remove the release from index.json"
    )
    try:
        file = jsonfile.load(path, display(path))
    except jsonfile.Unreadable as exc:
        sink.emit(
            "H105",
            exc.span,
            f"release {release.version}: its metadata cannot be read: "
            f"{exc.reason}; GE's reader skips the release",
            hint,
        )
        return False, None
    data = file.data
    problem: tuple[JsonPath, str] | None = None
    if not isinstance(data, dict):
        problem = (), "the metadata must be an object"
    elif not isinstance(data.get("release_version"), str):
        problem = (("release_version",) if "release_version" in data else ()), (
            "there is no release_version string"
        )
    elif "branch_name" in data and not isinstance(data["branch_name"], str):
        problem = ("branch_name",), "branch_name is not a string"
    if problem is not None:
        sink.emit(
            "H105",
            file.span(problem[0]),
            f"release {release.version}: {jsonfile.describe(problem[0])}: "
            f"{problem[1]}; GE's reader skips the release",
            hint,
        )
        return False, None
    if data["release_version"] != release.version:
        sink.emit(
            "H106",
            file.span(("release_version",)),
            f"release_version: the metadata of release {release.version} "
            f"names release {data['release_version']!r}; GE's reader skips "
            "the release",
            hint,
        )
        return False, None
    branch = data.get("branch_name")
    return True, branch if isinstance(branch, str) else None
