"""Every field of a graph file, removed or given an odd value, then loaded and
compiled into a model (issue 8, finding 5's sibling audit): the result is a
model or one of compile_model's documented errors, FileFormatError naming
the place in the file or CompileError naming the graph or node; never
another exception, and never Python's own words for a bug (``NoneType``,
``has no attribute``, ``object is not subscriptable``)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from models import add_graph, load_op_modules, rich_graph

from ge._container import FileFormatError, Section, read, write
from ge.engine.errors import CompileError
from ge.graph import Graph
from ge.graph.air import MAGIC, VERSION, graph_bytes, graph_from_bytes
from ge.offline import compile_model

ODD_VALUES: list[Any] = [
    None,
    -1,
    0,
    2,
    1 << 40,
    1 << 70,
    -(1 << 70),
    "x",
    "",
    [],
    {},
    True,
    1.5,
    [0],
    [[0, 0]],
    [None],
    {"type": "int", "value": 0},
]
PYTHON_WORDS = ("NoneType", "has no attribute", "not subscriptable", "unhashable")

Path_ = tuple[Any, ...]


def _paths(value: Any, prefix: Path_ = ()) -> Iterator[Path_]:
    if prefix:
        yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, prefix + (index,))


def _parent(doc: Any, path: Path_) -> Any:
    for key in path[:-1]:
        doc = doc[key]
    return doc


def mutations(doc: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for path in list(_paths(doc)):
        removed = copy.deepcopy(doc)
        del _parent(removed, path)[path[-1]]
        yield f"remove {path}", removed
        for value in ODD_VALUES:
            changed = copy.deepcopy(doc)
            _parent(changed, path)[path[-1]] = value
            yield f"set {path} = {value!r}", changed


def document(graph: Graph) -> dict[str, Any]:
    _, sections = read(graph_bytes(graph), MAGIC, VERSION, "graph file")
    return json.loads(sections[1])


@pytest.mark.parametrize("make", [add_graph, rich_graph], ids=["add", "rich"])
def test_every_mutation_is_a_model_or_a_documented_error(make: Any) -> None:
    load_op_modules()
    failures: list[str] = []
    outcomes = {"compiled": 0, "file": 0, "compile": 0}
    for label, doc in mutations(document(make())):
        data = write(MAGIC, VERSION, [Section(1, json.dumps(doc).encode())])
        error: Exception | None = None
        try:
            compile_model(graph_from_bytes(data))
            outcomes["compiled"] += 1
        except FileFormatError as exc:
            outcomes["file"] += 1
            error = exc
            if not str(exc).startswith("graph file: graph"):
                failures.append(f"{label}: {exc}")
        except CompileError as exc:
            outcomes["compile"] += 1
            error = exc
            if not str(exc).startswith(("node '", "graph '", "Const node '")):
                failures.append(f"{label}: {exc}")
        except Exception as exc:  # reported below
            failures.append(f"{label}: {type(exc).__name__}: {exc}")
        if error is not None and any(word in str(error) for word in PYTHON_WORDS):
            failures.append(f"{label}: {type(error).__name__}: {error}")
    assert failures == []
    # The loop did reach the compiler, and some mutations are harmless.
    assert all(count > 10 for count in outcomes.values()), outcomes
