"""The objects a team-written pass sees (``ge.passes``, docs/compiler.md,
"Writing passes"): stages, the pass context, patterns and match results,
and the pass base classes with their hook conventions.

Note [Pass hooks]: as in GE, a ``PatternFusionPass`` declares its patterns
either with ``patterns(self)`` (Pattern or Graph objects) or with
``@pattern`` methods ``method(self, inputs)`` written as ES expressions
(``inputs[i]`` creates pattern input i on first use); the two styles do not
mix. ``meet_requirements(self, match_result[, context])`` filters a match;
``replacement`` either builds a graph from the match (``replacement(self,
match_result[, context])``) or is an expression over the pattern's inputs
(``replacement(self, inputs[, match_result][, context])``: its second
parameter is named ``inputs``; a third named ``context`` is the context).
A ``DecomposePass`` gets the node: ``meet_requirements(self, node[,
context])``, ``replacement(self, node[, context])``. Overriding ``run`` on
either is a TypeError at class creation (the engine never calls it).
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ge.es.graph_builder import GraphBuilder
from ge.es.tensor_holder import TensorHolder
from ge.graph.graph import Graph, Node

_PATTERN_MARK = "__ge_pattern_method__"


class PassStage(str, enum.Enum):  # noqa: UP042 - GE's class; str() as GE prints it
    """When a pass runs (docs/compiler.md, "Stages"); GE's names and values."""

    BEFORE_INFER_SHAPE = "BeforeInferShape"
    AFTER_INFER_SHAPE = "AfterInferShape"
    AFTER_BUILTIN_FUSION_PASS = "AfterBuiltinFusionPass"
    AFTER_ORIGIN_GRAPH_OPTIMIZE = "AfterOriginGraphOptimize"


class PassContext:
    """What a pass may ask of the compile: its name, the compile options,
    and an error message to report when it fails."""

    def __init__(self, pass_name: str, options: Mapping[str, str]) -> None:
        self._name = pass_name
        self._options = dict(options)
        self._error = ""
        self.reports: list[tuple[list[Node], list[Node]]] = []

    def get_pass_name(self) -> str:
        return self._name

    def set_pass_name(self, name: str) -> None:
        self._name = str(name)

    def get_error_message(self) -> str:
        return self._error

    def set_error_message(self, message: str) -> None:
        self._error = str(message)

    def get_option_value(self, key: str) -> str:
        """The compile option ``key``; RuntimeError when it is not set."""
        if key not in self._options:
            raise RuntimeError(f"compile option {key!r} is not set")
        return self._options[key]


@dataclass(frozen=True)
class NodeIo:
    """One output of a node: ``node`` and output ``index``."""

    node: Node
    index: int = 0


class PatternMatcherConfig:
    """Stricter matching: Const values, IR attrs (both off by default)."""

    def __init__(self, const_value: bool = False, ir_attr: bool = False) -> None:
        self._const_value = const_value
        self._ir_attr = ir_attr

    def is_enable_const_value_match(self) -> bool:
        return self._const_value

    def is_enable_ir_attr_match(self) -> bool:
        return self._ir_attr


class PatternMatcherConfigBuilder:
    def __init__(self) -> None:
        self._const_value = False
        self._ir_attr = False

    def enable_const_value_match(self) -> PatternMatcherConfigBuilder:
        self._const_value = True
        return self

    def enable_ir_attr_match(self) -> PatternMatcherConfigBuilder:
        self._ir_attr = True
        return self

    def build(self) -> PatternMatcherConfig:
        return PatternMatcherConfig(self._const_value, self._ir_attr)


class Pattern:
    """A pattern graph (built with ge.es builders) and the tensors it
    captures, in capture order."""

    def __init__(self, graph: Graph) -> None:
        if not isinstance(graph, Graph):
            raise TypeError(
                f"a pattern is a ge.graph.Graph, got {type(graph).__name__}"
            )
        if not graph.outputs:
            raise ValueError(f"pattern graph '{graph.name}' has no outputs")
        self.graph = graph
        self._captured: list[NodeIo] = []

    def capture_tensor(
        self, source: TensorHolder | Node | NodeIo, index: int | None = None
    ) -> Pattern:
        if isinstance(source, TensorHolder):
            io = NodeIo(source.node, source.index if index is None else index)
        elif isinstance(source, Node):
            io = NodeIo(source, 0 if index is None else index)
        elif isinstance(source, NodeIo):
            io = source
        else:
            raise TypeError(
                "capture_tensor takes a TensorHolder, Node or NodeIo, got "
                f"{type(source).__name__}"
            )
        if not any(n is io.node for n in self.graph.nodes):
            raise ValueError(f"'{io.node.name}' is not a node of the pattern graph")
        self._captured.append(io)
        return self

    def get_captured_tensors(self) -> list[NodeIo]:
        return list(self._captured)


def create_pattern(graph: Graph) -> Pattern:
    return Pattern(graph)


def create_replacement(graph: Graph) -> Graph:
    if not isinstance(graph, Graph):
        raise TypeError("replacement graph must be a ge.graph.Graph")
    return graph


class MatchResult:
    """One match of a pattern in the graph being compiled."""

    def __init__(
        self,
        pattern: Pattern,
        nodes: list[Node],
        captured: list[NodeIo],
        boundary_inputs: list[NodeIo],
    ) -> None:
        self._pattern = pattern
        self._nodes = nodes
        self._captured = captured
        self.boundary_inputs = boundary_inputs  # pattern input i -> graph tensor

    def get_matched_nodes(self) -> list[Node]:
        """The graph's nodes matched, in the pattern graph's node order."""
        return list(self._nodes)

    def get_captured_tensor(self, capture_index: int) -> NodeIo:
        if not 0 <= capture_index < len(self._captured):
            raise RuntimeError(
                f"captured tensor {capture_index} does not exist; the pattern "
                f"captures {len(self._captured)}"
            )
        return self._captured[capture_index]

    def get_pattern_graph_name(self) -> str:
        return self._pattern.graph.name

    def __str__(self) -> str:
        names = ", ".join(n.name for n in self._nodes)
        return f"MatchResult({self.get_pattern_graph_name()}: {names})"


class PatternInputs:
    """``inputs`` of an expression-style hook: ``inputs[i]`` is pattern
    input i, made on first use; ``inputs[:n]`` the first n. Not iterable
    (the count is not known)."""

    def __init__(self, builder: GraphBuilder) -> None:
        self._builder = builder
        self._made: dict[int, TensorHolder] = {}

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            if index.stop is None or index.step not in (None, 1):
                raise ValueError("use inputs[:n] (a stop, step 1)")
            return [self[i] for i in range(index.start or 0, index.stop)]
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise TypeError("pattern inputs are indexed by an int >= 0")
        for i in range(len(self._made), index + 1):
            self._made[i] = self._builder.create_input(i)
        return self._made[index]

    def __iter__(self) -> Any:
        raise TypeError("pattern inputs cannot be iterated; use inputs[:n]")

    def created(self) -> list[TensorHolder]:
        return [self._made[i] for i in sorted(self._made)]


def pattern(method: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a PatternFusionPass method ``method(self, inputs)`` as one
    pattern, written as an ES expression (Note [Pass hooks])."""
    setattr(method, _PATTERN_MARK, True)
    return method


def _outputs(result: object, hook: str) -> list[TensorHolder]:
    if isinstance(result, TensorHolder):
        return [result]
    if (
        isinstance(result, (list, tuple))
        and result
        and all(isinstance(r, TensorHolder) for r in result)
    ):
        return list(result)
    raise TypeError(
        f"{hook} must return a TensorHolder or a non-empty list of them, got "
        f"{type(result).__name__}"
    )


def _positional(method: Callable[..., Any]) -> list[inspect.Parameter]:
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p for p in inspect.signature(method).parameters.values() if p.kind in kinds]


def call_hook(method: Callable[..., Any], value: object, context: PassContext) -> Any:
    """The bound hook ``method(value[, context])``, as its signature asks."""
    if len(_positional(method)) >= 2:
        return method(value, context)
    return method(value)


class FusionBasePass:
    """A pass that edits the graph itself in ``run(graph, context)``
    (returning False, or a nonzero int, fails the compile)."""

    def run(self, graph: Graph, context: PassContext) -> bool | int | None:
        raise NotImplementedError("FusionBasePass.run must be implemented")


class PatternFusionPass(FusionBasePass):
    """Patterns, a filter and a replacement (Note [Pass hooks])."""

    def __init__(self, matcher_config: PatternMatcherConfig | None = None) -> None:
        self._matcher_config = matcher_config

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "run" in cls.__dict__:
            raise TypeError(
                f"{cls.__name__} overrides run(), which the engine never calls for "
                "a PatternFusionPass; implement patterns()/replacement()"
            )
        marked = [m for m in cls.__dict__.values() if getattr(m, _PATTERN_MARK, False)]
        if marked and "patterns" in cls.__dict__:
            raise TypeError(
                f"{cls.__name__} cannot combine @pattern methods with patterns()"
            )
        if marked:
            cls._pattern_methods = marked  # type: ignore[attr-defined]

    @property
    def matcher_config(self) -> PatternMatcherConfig | None:
        return getattr(self, "_matcher_config", None)

    def patterns(self) -> Iterable[Pattern | Graph]:
        methods = getattr(type(self), "_pattern_methods", None)
        if not methods:
            raise NotImplementedError("PatternFusionPass.patterns must be implemented")
        found = []
        for method in methods:
            builder = GraphBuilder(f"{type(self).__name__}_{method.__name__}_pattern")
            inputs = PatternInputs(builder)
            outputs = _outputs(method(self, inputs), "a @pattern method")
            built = Pattern(builder.build_and_reset(outputs))
            for holder in inputs.created() + outputs:
                built.capture_tensor(holder)
            found.append(built)
        return found

    def meet_requirements(self, match_result: MatchResult) -> bool:
        return True

    def replacement(self, match_result: MatchResult) -> Graph:
        raise NotImplementedError("PatternFusionPass.replacement must be implemented")

    def build_replacement(self, match: MatchResult, context: PassContext) -> Graph:
        """The replacement graph of ``match`` (either hook style)."""
        hook = self.replacement
        params = _positional(hook)  # bound: self is not listed
        if not params or params[0].name != "inputs":
            graph = call_hook(hook, match, context)
        else:
            builder = GraphBuilder(f"{type(self).__name__}_replacement")
            inputs = PatternInputs(builder)
            args: list[Any] = [inputs]
            for p in params[1:]:
                args.append(context if p.name == "context" else match)
            result = hook(*args)
            if isinstance(result, Graph):
                graph = result
            else:
                graph = builder.build_and_reset(_outputs(result, "replacement"))
        if not isinstance(graph, Graph):
            raise TypeError(
                f"replacement must return a Graph, got {type(graph).__name__}"
            )
        return graph


class DecomposePass(FusionBasePass):
    """One node of ``op_types`` replaced by a graph (Note [Pass hooks])."""

    op_types: list[str] | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "run" in cls.__dict__:
            raise TypeError(
                f"{cls.__name__} overrides run(), which the engine never calls for "
                "a DecomposePass; implement meet_requirements()/replacement()"
            )

    def meet_requirements(self, node: Node) -> bool:
        return True

    def replacement(self, node: Node) -> Graph:
        raise NotImplementedError("DecomposePass.replacement must be implemented")
