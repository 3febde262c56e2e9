"""The generator's rooms import one another in layers, never upward and
never in a cycle, as docs/design.md draws them (The generator's rooms).
Read from the source with ``ast``, as tests/runtime/test_layers.py reads the
runtime: every import counts, at module level, inside a function or under
TYPE_CHECKING (an import moved into a function only defers a cycle)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = ROOT / "generator"

# docs/design.md, The generator's rooms: a room imports only rooms of lower
# layers. A subpackage of gen_ops is a room; so is a module of gen_ops
# itself (the run, the package build and the entry point).
LAYERS: dict[str, int] = {
    "gen_ops": 0,  # gen_ops/__init__.py: the version
    "gen_ops.base": 1,  # diagnostics, charset, untrusted files, resources
    "gen_ops.spec": 2,  # spec files to models: discovery, source, schema
    "gen_ops.emit": 3,  # rendering and the transactional writer
    "gen_ops.lowering": 4,  # models to views, one lowering per family
    "gen_ops.semantics": 5,  # meaning checks; asks the lowerings (E304)
    "gen_ops.pipeline": 6,  # a run: load, check, render in memory
    "gen_ops.history": 7,  # releases, compat, changelog
    "gen_ops.render_cache": 7,  # which specs a render loads again
    "gen_ops.scaffold": 7,  # author modules and starter specs, written once
    "gen_ops.importer": 8,  # REG_OP headers to specs
    "gen_ops.render_options": 8,  # a render's options (reads history.past)
    "gen_ops.render_run": 9,  # a whole render: fast path, cache, lock, state
    "gen_ops.package_build": 9,  # an op library's wheel and sdist
    "gen_ops.ttk": 8,  # gen-ops test's cases as the CANN test kit's tables
    "gen_ops.optest_jobs": 8,  # gen-ops test --jobs: ops over child processes
    "gen_ops.optest": 9,  # gen-ops test: cases drawn and checked
    "gen_ops.commands": 10,  # one module per command, the registry, runner
    "gen_ops.cli": 11,  # the console entry point
    "gen_ops.__main__": 12,
}

# Imports allowed to run back up (or round a cycle), each with its reason:
# (importing module, imported module). None since the command layer has a
# room of its own (gen_ops/commands).
EXCEPTIONS: dict[tuple[str, str], str] = {}

# Inside the lowering room: the lowerings import leaves only, never one
# another; ``targets`` is the one module that knows every lowering; the
# leaves import no lowering; ``facts`` is data.
LOWERINGS = frozenset(
    f"gen_ops.lowering.{name}"
    for name in ("lower_python", "lower_cpp", "lower_impl", "lower_docs")
) | {"gen_ops.lowering.lower_history", "gen_ops.lowering.lower_es"}
TARGETS = "gen_ops.lowering.targets"
FACTS = "gen_ops.lowering.facts"


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    is_package: bool
    tree: ast.Module

    @property
    def room(self) -> str:
        return room_of(self.name)

    def imported(self) -> Iterator[tuple[str, int, bool]]:
        """(dotted name, line, inside a function) of every import."""
        yield from self._walk(self.tree, False)

    def _walk(
        self, node: ast.AST, in_function: bool
    ) -> Iterator[tuple[str, int, bool]]:
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
            )
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield alias.name, child.lineno, inside
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    parts = self.name.split(".")
                    keep = len(parts) - child.level + (1 if self.is_package else 0)
                    base = ".".join(parts[:keep] + ([base] if base else []))
                for alias in child.names:
                    yield f"{base}.{alias.name}", child.lineno, inside
            yield from self._walk(child, inside)


@lru_cache(maxsize=1)
def modules() -> dict[str, Module]:
    found = {}
    for path in sorted((GENERATOR / "gen_ops").rglob("*.py")):
        parts = list(path.relative_to(GENERATOR).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        found[".".join(parts)] = Module(".".join(parts), path, is_package, tree)
    return found


def room_of(module: str) -> str:
    """``gen_ops.<room>`` for a module of a subpackage or of gen_ops itself;
    ``gen_ops`` for gen_ops/__init__.py."""
    parts = module.split(".")
    return ".".join(parts[:2])


def resolve(dotted: str) -> str | None:
    """The gen_ops module a dotted import name lands in, if any."""
    known = modules()
    while dotted and dotted not in known:
        dotted = dotted.rpartition(".")[0]
    return dotted or None


Edges = dict[str, dict[str, list[str]]]  # module -> module -> where


@lru_cache(maxsize=1)
def module_edges() -> Edges:
    edges: Edges = {name: {} for name in modules()}
    for module in modules().values():
        for dotted, line, _ in module.imported():
            target = resolve(dotted)
            if target is not None and target != module.name:
                where = f"{module.path.relative_to(ROOT)}:{line}"
                edges[module.name].setdefault(target, []).append(where)
    return edges


def find_cycle(edges: Edges) -> list[str] | None:
    """Some cycle (its first node repeated at the end), if any."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(edges.get(node, {})):
            if state.get(target) == 1:
                return path[path.index(target) :] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle is not None:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state:
            cycle = visit(node)
            if cycle is not None:
                return cycle
    return None


def _without_exceptions(edges: Edges) -> Edges:
    return {
        source: {t: w for t, w in targets.items() if (source, t) not in EXCEPTIONS}
        for source, targets in edges.items()
    }


def test_every_module_is_in_a_room_of_the_table() -> None:
    rooms = {m.room for m in modules().values()}
    assert rooms == set(LAYERS), "a room to place in LAYERS and docs/design.md"


def test_no_module_imports_round_a_cycle() -> None:
    edges = _without_exceptions(module_edges())
    cycle = find_cycle(edges)
    if cycle is not None:
        lines = [
            f"{a} -> {b}: " + "; ".join(edges[a][b]) for a, b in zip(cycle, cycle[1:])
        ]
        raise AssertionError(
            "import cycle " + " -> ".join(cycle) + "\n" + "\n".join(lines)
        )


def test_rooms_import_only_lower_layers() -> None:
    upward = [
        f"{source} ({LAYERS[room_of(source)]}) imports {target} "
        f"({LAYERS[room_of(target)]}): {sites[0]}"
        for source, targets in sorted(_without_exceptions(module_edges()).items())
        for target, sites in sorted(targets.items())
        if room_of(source) != room_of(target)
        and LAYERS[room_of(target)] >= LAYERS[room_of(source)]
    ]
    assert not upward, "\n".join(upward)


def test_every_exception_is_still_needed() -> None:
    edges = module_edges()
    stale = [pair for pair in EXCEPTIONS if pair[1] not in edges.get(pair[0], {})]
    assert not stale, f"exceptions no import needs any more: {stale}"


def test_lowerings_import_leaves_only() -> None:
    """Note: a lowering never imports another lowering or ``targets``; a
    leaf imports neither; ``facts`` imports nothing of gen_ops but base."""
    edges = module_edges()
    lowering = {m for m in modules() if room_of(m) == "gen_ops.lowering"}
    assert LOWERINGS | {TARGETS, FACTS} <= lowering
    wrong = []
    for source in sorted(lowering - {TARGETS}):
        for target, sites in sorted(edges[source].items()):
            if target in LOWERINGS | {TARGETS}:
                wrong.append(f"{source} imports {target}: {sites[0]}")
    for target, sites in sorted(edges[FACTS].items()):
        if room_of(target) != "gen_ops.base":
            wrong.append(f"{FACTS} (data only) imports {target}: {sites[0]}")
    assert not wrong, "\n".join(wrong)


def test_a_cycle_is_found_and_named() -> None:
    """The check itself: an import inside a function closes a cycle too."""
    edges: Edges = {
        "gen_ops.lowering.facts": {"gen_ops.lowering.lower_docs": ["facts.py:71"]},
        "gen_ops.lowering.lower_docs": {"gen_ops.lowering.facts": ["lower_docs.py:20"]},
    }
    assert find_cycle(edges) == [
        "gen_ops.lowering.facts",
        "gen_ops.lowering.lower_docs",
        "gen_ops.lowering.facts",
    ]
    assert find_cycle({"a": {"b": ["x"]}}) is None


def test_function_level_imports_are_read() -> None:
    """Imports inside functions reach the graph (cli imports the command
    runner inside main, for one)."""
    cli = modules()["gen_ops.cli"]
    inside = {
        resolve(dotted) for dotted, _, in_function in cli.imported() if in_function
    }
    assert "gen_ops.commands.runner" in inside
