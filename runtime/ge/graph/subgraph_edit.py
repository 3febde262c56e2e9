"""GE's ``Graph.get_subgraph``, ``add_subgraph`` and ``remove_subgraph``
over this runtime's subgraphs, which belong to nodes (If/Case branches, a
loop's body: ``Node.subgraphs``). Note [Subgraph editing]."""

from __future__ import annotations

from collections.abc import Iterator

from ge.graph.graph import Graph, Node
from ge.graph.graph_edit import GraphEditError, is_vacant

__all__ = ["add_subgraph", "get_subgraph", "remove_subgraph", "vacancies"]


# Note [Subgraph editing]: in GE a root graph keeps a table of all its
# subgraphs, at every depth, by name (names are unique in it), and a node
# names its subgraphs by instance name. get_subgraph(name) looks the name up
# (None when absent); add_subgraph(g) adds g under its name, failing when the
# name is taken; remove_subgraph(name) drops the entry, and a node naming it
# is left pointing at nothing until a graph of that name is added again. So
# in GE, remove_subgraph then add_subgraph with the same name replaces a
# node's branch. Here a node holds its subgraphs itself, and we keep that
# replacement:
#
# - get_subgraph(name): the subgraph of that name under any node of this
#   graph, at any depth; None when there is none.
# - remove_subgraph(name): detaches it from its node, leaving the node's slot
#   vacant under that name (the dumps show it; save_to_air refuses a graph
#   with a vacant slot, naming it). Removing a name that is not there is an
#   error (GE ignores it, which hides a misspelt name).
# - add_subgraph(g): fills the vacant slot named g.name and makes g the
#   node's subgraph. A graph that would fill no slot is refused: GE keeps it
#   in the table, where no node uses it and nothing runs it. Also refused:
#   a name already used by a subgraph of this graph, a graph that is already
#   some node's subgraph, and this graph or a graph holding it (a loop).


class VacantSubgraph(Graph):
    """Stands in a node's subgraph slot after remove_subgraph(name), until
    add_subgraph fills it with a graph of that name."""

    vacant = True


def _walk(graph: Graph) -> Iterator[tuple[Node, str, int, Graph]]:
    """(node, IR name, position, subgraph) for every subgraph slot under
    ``graph``, vacant ones included, depth first."""
    for node in graph.nodes:
        for key, graphs in node.subgraphs.items():
            for position, sub in enumerate(graphs):
                yield node, key, position, sub
                if not is_vacant(sub):
                    yield from _walk(sub)


def vacancies(graph: Graph) -> list[tuple[Node, str, str]]:
    """(node, IR name, removed graph name) of every vacant slot."""
    return [(n, k, s.name) for n, k, _, s in _walk(graph) if is_vacant(s)]


def _check_name(name: object) -> str:
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    return name


def _find(graph: Graph, name: str) -> tuple[Node, str, int, Graph] | None:
    """The first (depth first) filled slot holding a subgraph named ``name``."""
    _check_name(name)
    for slot in _walk(graph):
        if slot[3].name == name and not is_vacant(slot[3]):
            return slot
    return None


def get_subgraph(graph: Graph, name: str) -> Graph | None:
    slot = _find(graph, name)
    return None if slot is None else slot[3]


def _names(graph: Graph) -> str:
    names = [s.name for _, _, _, s in _walk(graph) if not is_vacant(s)]
    return ", ".join(repr(n) for n in names) if names else "none"


def remove_subgraph(graph: Graph, name: str) -> None:
    slot = _find(graph, name)
    if slot is None:
        raise GraphEditError(
            f"graph '{graph.name}' has no subgraph named {name!r} (its subgraphs: "
            f"{_names(graph)}); graph.get_all_subgraphs() lists them"
        )
    node, key, position, sub = slot
    graphs = list(node.subgraphs[key])
    graphs[position] = VacantSubgraph(name)
    node.subgraphs[key] = tuple(graphs)
    sub._owner = None


def _holds(outer: Graph, inner: Graph) -> bool:
    return outer is inner or any(s is inner for _, _, _, s in _walk(outer))


def add_subgraph(graph: Graph, subgraph: Graph) -> None:
    if not isinstance(subgraph, Graph) or is_vacant(subgraph):
        raise TypeError(f"subgraph must be a Graph, got {type(subgraph).__name__}")
    name = subgraph.name
    if _holds(subgraph, graph):
        raise GraphEditError(
            f"graph {name!r} cannot be a subgraph of graph '{graph.name}': it is "
            "that graph or holds it, which would make a loop"
        )
    if subgraph.owner is not None:
        raise GraphEditError(
            f"graph {name!r} is already a subgraph of node "
            f"'{subgraph.owner.name}'; a graph belongs to one node: remove it "
            "there first (remove_subgraph) or build another graph"
        )
    slot = None
    for node, key, position, sub in _walk(graph):
        if sub.name != name:
            continue
        if not is_vacant(sub):
            raise GraphEditError(
                f"graph '{graph.name}' already has a subgraph named {name!r} "
                f"(under node '{node.name}'); subgraph names are unique in a "
                f"graph: remove_subgraph({name!r}) first to replace it, or "
                "rename the new graph"
            )
        slot = slot or (node, key, position)
    if slot is None:
        raise GraphEditError(
            f"no node of graph '{graph.name}' has a vacant subgraph slot named "
            f"{name!r}; a subgraph belongs to a node (an If or Case branch, a "
            f"body): remove_subgraph(<name>) frees a node's slot under that "
            f"name, and add_subgraph of a graph with that name fills it "
            f"(vacant slots: {_vacant_names(graph)})"
        )
    node, key, position = slot
    graphs = list(node.subgraphs[key])
    graphs[position] = subgraph
    node.subgraphs[key] = tuple(graphs)
    subgraph.set_owner(node)


def _vacant_names(graph: Graph) -> str:
    names = [repr(n) for _, _, n in vacancies(graph)]
    return ", ".join(names) if names else "none"
