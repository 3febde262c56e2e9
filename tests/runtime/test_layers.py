"""The runtime's packages import one another without cycles, in the layers
docs/design.md draws (Layers). Read from the source with ``ast``: every
import counts, at module level, inside a function or under TYPE_CHECKING."""

from __future__ import annotations

from collections import defaultdict

from _source_graph import Module, modules, package_of, where

# docs/design.md, Layers: a package imports only packages of lower layers.
LAYERS: dict[str, int] = {
    "ge": 1,  # ge/__init__.py: the namespace path and ge_ir's version
    "ge_ir": 0,  # the vocabulary shared with gen-ops
    "ge._container": 0,  # the checksummed file container (graph and model files)
    "ge.ge_global": 0,
    "ge.device": 1,
    "ge.graph": 2,
    "ge.allocator": 2,  # GE's Allocator/MemBlock; RangeAllocator over rt.malloc
    "ge.runtime": 3,
    "ge.es": 3,
    "ge.custom_op": 4,
    "ge.engine": 5,
    "ge.offline": 6,
    "ge.session": 6,
    "ge.passes": 6,  # GE's names for the engine's custom-pass machinery
    "ge.opcheck_raw": 6,  # opcheck's arrays of the dtypes held only as bytes
    "ge.opcheck": 7,  # ops checked against their references (gen-ops test)
}

# Imports allowed to run back up, each with its reason: (package, package).
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("ge.custom_op", "ge.opcheck"): (
        "GE-style code calls ge.custom_op.opcheck; the package serves it from "
        "ge.opcheck on first use (Note [opcheck's home])"
    ),
}

Edges = dict[str, dict[str, list[str]]]  # package -> package -> where


def package_edges() -> Edges:
    edges: Edges = defaultdict(lambda: defaultdict(list))
    for module in modules():
        for imported in module.imports():
            target = package_of(imported.target)
            if target is None or target == module.package:
                continue
            if (module.package, target) not in EXCEPTIONS:
                edges[module.package][target].append(
                    f"{where(module, imported.line)} imports {imported.target}"
                )
    return edges


def find_cycle(edges: Edges) -> list[str] | None:
    """Some cycle of packages (first package repeated at the end), if any."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(package: str) -> list[str] | None:
        state[package] = 1
        path.append(package)
        for target in sorted(edges.get(package, {})):
            if state.get(target) == 1:
                return path[path.index(target) :] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle is not None:
                    return cycle
        path.pop()
        state[package] = 2
        return None

    for package in sorted(edges):
        if package not in state:
            cycle = visit(package)
            if cycle is not None:
                return cycle
    return None


def test_the_packages_import_one_another_without_cycles() -> None:
    edges = package_edges()
    cycle = find_cycle(edges)
    if cycle is not None:
        lines = [
            f"{a} -> {b}: " + "; ".join(edges[a][b]) for a, b in zip(cycle, cycle[1:])
        ]
        raise AssertionError(
            "import cycle " + " -> ".join(cycle) + "\n" + "\n".join(lines)
        )


def test_the_packages_import_only_lower_layers() -> None:
    edges = package_edges()
    packages = {m.package for m in modules()}
    assert packages == set(LAYERS), "a package to place in LAYERS and docs/design.md"
    upward = [
        f"{source} (layer {LAYERS[source]}) imports {target} (layer "
        f"{LAYERS[target]}): {sites[0]}"
        for source, targets in sorted(edges.items())
        for target, sites in sorted(targets.items())
        if LAYERS[target] >= LAYERS[source]
    ]
    assert not upward, "\n".join(upward)


def test_a_cycle_is_found_and_named() -> None:
    """The check itself: a function-level import back is a cycle too."""
    edges: Edges = {
        "ge.graph": {"ge.device": ["ge/graph/tensor.py:1 imports ge.device.memory"]},
        "ge.device": {"ge.graph": ["ge/device/args.py:9 imports ge.graph.types"]},
    }
    assert find_cycle(edges) == ["ge.device", "ge.graph", "ge.device"]
    assert find_cycle({"ge.graph": {"ge.device": ["x"]}}) is None


def test_function_level_imports_are_read() -> None:
    """Imports inside functions reach the graph (ge.graph.graph imports
    ge.graph.air inside Graph.save_to_air, for one)."""
    graph_module = next(m for m in modules() if m.name == "ge.graph.graph")
    assert any(i.target.startswith("ge.graph.air") for i in graph_module.imports())
    assert isinstance(graph_module, Module)


def test_every_exception_is_still_needed() -> None:
    """A named exception whose import is gone is taken out of the table."""
    found = {
        (module.package, package_of(imported.target))
        for module in modules()
        for imported in module.imports()
    }
    assert set(EXCEPTIONS) <= found, set(EXCEPTIONS) - found


def test_ge_custom_op_serves_opcheck_from_its_home() -> None:
    import ge.custom_op
    import ge.opcheck

    assert ge.custom_op.opcheck is ge.opcheck.opcheck
    assert ge.custom_op.OpcheckReport is ge.opcheck.OpcheckReport
