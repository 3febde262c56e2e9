"""Registering team-written passes and running them at compile time
(docs/compiler.md, "Writing passes").

Note [Running custom passes]: ``register_fusion_pass`` and
``register_decompose_pass`` record a pass class under a unique name and a
stage; files and folders listed in ``ASCEND_GE_PY_PASS_PATH`` (colon
separated; a folder's ``*.py`` in name order) are imported once per
process before a compile runs its passes, so their decorators register
them. Every compile then runs, on a copy of the graph (the caller's is
never rewritten), the passes of each stage in registration order:
``BeforeInferShape``, then (after the graph's metas are inferred)
``AfterInferShape``, both before constant folding; ``AfterBuiltinFusionPass``
and ``AfterOriginGraphOptimize`` after it. A pass turned off in the fusion
switch file (its name, or ``ALL``, ``"off"`` in ``GraphFusion``) is
skipped. A pattern pass rewrites its first cuttable match that meets its
requirements, then looks again (at most MAX_REWRITES times), so a rewrite
sees the graph as earlier ones left it. An exception in a pass, or a
``run`` that returns False, fails the compile with a CompileError naming
the pass (and the message it set on its context).
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ge.engine.errors import CompileError
from ge.engine.passes.custom_api import (
    DecomposePass,
    FusionBasePass,
    MatchResult,
    NodeIo,
    PassContext,
    PassStage,
    Pattern,
    PatternFusionPass,
    call_hook,
)
from ge.engine.passes.custom_match import Binding, first_match, is_data
from ge.engine.passes.custom_rewrite import (
    infer_metas,
    report_fuse,
    set_current_graph,
    splice,
)
from ge.graph.graph import Graph, Node, TensorMeta

PASS_PATH_ENV = "ASCEND_GE_PY_PASS_PATH"
MAX_REWRITES = 1000
PASS_KIND_FUSION_BASE = "fusion_base"
PASS_KIND_PATTERN_FUSION = "pattern_fusion"
PASS_KIND_DECOMPOSE = "decompose"
EARLY = (PassStage.BEFORE_INFER_SHAPE, PassStage.AFTER_INFER_SHAPE)
LATE = (PassStage.AFTER_BUILTIN_FUSION_PASS, PassStage.AFTER_ORIGIN_GRAPH_OPTIMIZE)

C = TypeVar("C", bound=type)


@dataclass(frozen=True)
class PassDescriptor:
    descriptor_key: str
    pass_name: str
    module_name: str
    class_name: str
    stage: PassStage
    kind: str
    cls: type
    op_types: list[str] = field(default_factory=list)

    def to_bridge_dict(self) -> dict[str, Any]:
        return {
            "descriptor_key": self.descriptor_key,
            "pass_name": self.pass_name,
            "module_name": self.module_name,
            "class_name": self.class_name,
            "stage": self.stage.value,
            "kind": self.kind,
            "op_types": list(self.op_types),
        }


_DESCRIPTOR = "__ge_pass_descriptor__"
_LOCK = threading.RLock()
_REGISTRY: dict[str, PassDescriptor] = {}  # by pass name, in registration order
_LOADED: set[str] = set()


def _register(cls: type, kind: str, name: str, stage: Any, ops: list[str]) -> None:
    if not isinstance(name, str) or not name:
        raise TypeError("a pass name is a non-empty str")
    stage = PassStage(stage)
    key = f"{cls.__module__}:{cls.__name__}:{name}"
    with _LOCK:
        if name in _REGISTRY:
            raise ValueError(f"python pass name already exists: {name}")
        _REGISTRY[name] = PassDescriptor(
            key, name, cls.__module__, cls.__name__, stage, kind, cls, ops
        )
    setattr(cls, _DESCRIPTOR, _REGISTRY[name])


def register_fusion_pass(
    *, name: str, stage: PassStage, kind: str | None = None
) -> Callable[[C], C]:
    """Class decorator: a FusionBasePass or PatternFusionPass under ``name``."""

    def decorator(cls: C) -> C:
        if not inspect.isclass(cls) or not issubclass(cls, FusionBasePass):
            raise TypeError("register_fusion_pass expects a FusionBasePass subclass")
        default = (
            PASS_KIND_PATTERN_FUSION
            if issubclass(cls, PatternFusionPass)
            else PASS_KIND_FUSION_BASE
        )
        _register(cls, kind or default, name, stage, [])
        return cls

    return decorator


def register_decompose_pass(
    *, name: str, stage: PassStage, op_types: Iterable[str]
) -> Callable[[C], C]:
    """Class decorator: a DecomposePass for nodes of ``op_types``."""
    if isinstance(op_types, (str, bytes)):
        raise TypeError("op_types must be an iterable of strings")
    ops = list(op_types)
    if not ops:
        raise ValueError("register_decompose_pass requires at least one op type")
    if not all(isinstance(o, str) and o for o in ops):
        raise TypeError("op_types must contain non-empty strings")

    def decorator(cls: C) -> C:
        if not inspect.isclass(cls) or not issubclass(cls, DecomposePass):
            raise TypeError("register_decompose_pass expects a DecomposePass subclass")
        cls.op_types = list(ops)
        _register(cls, PASS_KIND_DECOMPOSE, name, stage, ops)
        return cls

    return decorator


def clear_registered_passes() -> None:
    with _LOCK:
        _REGISTRY.clear()


def get_registered_passes() -> list[PassDescriptor]:
    with _LOCK:
        return list(_REGISTRY.values())


def get_registered_pass_dicts() -> list[dict[str, Any]]:
    return [d.to_bridge_dict() for d in get_registered_passes()]


def get_registered_pass_by_descriptor_key(key: str) -> PassDescriptor | None:
    return next((d for d in get_registered_passes() if d.descriptor_key == key), None)


def load_pass_files() -> None:
    """Import the files of ASCEND_GE_PY_PASS_PATH not imported yet."""
    for entry in os.environ.get(PASS_PATH_ENV, "").split(":"):
        if not entry.strip():
            continue
        path = Path(entry).resolve()
        files = sorted(path.glob("*.py")) if path.is_dir() else [path]
        for file in files:
            if str(file) in _LOADED or file.suffix != ".py" or not file.is_file():
                continue
            _LOADED.add(str(file))
            name = f"ge_py_pass_{len(_LOADED)}_{file.stem}"
            spec = importlib.util.spec_from_file_location(name, file)
            if spec is None or spec.loader is None:
                continue
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            try:
                spec.loader.exec_module(module)
            except Exception as exc:
                raise CompileError(
                    f"{PASS_PATH_ENV}: importing {file} failed: {exc}"
                ) from exc


# -- running ---------------------------------------------------------------------


@dataclass
class PassStats:
    """One pass in one compile: matches found, rewrites done."""

    match_times: int = 0
    effect_times: int = 0


def _fail(name: str, what: str, context: PassContext | None = None) -> CompileError:
    extra = (
        f" ({context.get_error_message()})"
        if context and context.get_error_message()
        else ""
    )
    return CompileError(f"custom pass '{name}': {what}{extra}")


def _captured(pattern: Pattern, b: Binding) -> list[NodeIo]:
    out = []
    for io in pattern.get_captured_tensors():
        if is_data(io.node):
            edge = b.inputs[int(io.node.attrs["index"][1])]
            out.append(NodeIo(edge.node, edge.index))
        else:
            out.append(NodeIo(b.nodes[id(io.node)], io.index))
    return out


def _run_pattern(
    instance: PatternFusionPass, graph: Graph, context: PassContext, stats: PassStats
) -> None:
    name = context.get_pass_name()
    patterns = [
        p if isinstance(p, Pattern) else Pattern(p) for p in instance.patterns()
    ]
    # Matches meet_requirements refused, by their nodes' ids (the nodes are
    # kept, so no new node can take one of their ids).
    refused: dict[tuple[int, ...], list[Node]] = {}
    for _ in range(MAX_REWRITES):
        done = False
        for pat in patterns:
            pnodes = [n for n in pat.graph.nodes if not is_data(n)]
            for b in first_match(pat.graph, graph, instance.matcher_config):
                key = tuple(id(b.nodes[id(n)]) for n in pnodes)
                if key in refused:
                    continue
                inputs = [b.inputs[i] for i in sorted(b.inputs)]
                if sorted(b.inputs) != list(range(len(b.inputs))):
                    raise _fail(
                        name, f"pattern '{pat.graph.name}' inputs are not 0..n-1"
                    )
                matched = [b.nodes[id(n)] for n in pnodes]
                match = MatchResult(
                    pat,
                    matched,
                    _captured(pat, b),
                    [NodeIo(e.node, e.index) for e in inputs],
                )
                stats.match_times += 1
                if not call_hook(instance.meet_requirements, match, context):
                    refused[key] = matched
                    continue
                replacement = instance.build_replacement(match, context)
                outputs = [
                    (b.nodes[id(p)], i) for p, i in pat.graph.outputs if not is_data(p)
                ]
                added = splice(graph, replacement, inputs, outputs, matched, name)
                report_fuse(matched, added, context)
                done = True
                break
            if done:
                break
        if not done:
            return
    raise _fail(name, f"still matching after {MAX_REWRITES} rewrites (a loop?)")


def _run_decompose(
    instance: DecomposePass, graph: Graph, context: PassContext, stats: PassStats
) -> None:
    types = set(instance.op_types or [])
    for node in [n for n in graph.nodes if n.type in types]:
        stats.match_times += 1
        if not call_hook(instance.meet_requirements, node, context):
            continue
        replacement = call_hook(instance.replacement, node, context)
        if not isinstance(replacement, Graph):
            raise _fail(context.get_pass_name(), "replacement did not return a Graph")
        inputs = [e for e in node.inputs if e is not None]
        outputs = [(node, i) for i in range(max(len(node.outputs), 1))]
        outputs = outputs[: len(replacement.outputs)]
        added = splice(
            graph, replacement, inputs, outputs, [node], context.get_pass_name()
        )
        report_fuse([node], added, context)


def run_stage(
    graph: Graph,
    stage: PassStage,
    options: Mapping[str, str],
    enabled: Callable[[str], bool],
    stats: dict[str, PassStats],
) -> bool:
    """Run the registered passes of ``stage`` on ``graph`` in place
    (Note [Running custom passes]); whether any ran."""
    ran = False
    for desc in get_registered_passes():
        if desc.stage is not stage or not enabled(desc.pass_name):
            continue
        ran = True
        context = PassContext(desc.pass_name, options)
        record = stats.setdefault(desc.pass_name, PassStats())
        set_current_graph(graph)
        try:
            instance = desc.cls()
            if isinstance(instance, PatternFusionPass):
                _run_pattern(instance, graph, context, record)
            elif isinstance(instance, DecomposePass):
                _run_decompose(instance, graph, context, record)
            else:
                status = instance.run(graph, context)
                if status is False or (
                    isinstance(status, int) and not isinstance(status, bool) and status
                ):
                    raise _fail(desc.pass_name, f"run returned {status!r}", context)
                record.match_times += len(context.reports)
                record.effect_times += len(context.reports)
                continue
            record.effect_times += len(context.reports)
        except CompileError:
            raise
        except Exception as exc:
            raise _fail(
                desc.pass_name, f"{type(exc).__name__}: {exc}", context
            ) from exc
        finally:
            set_current_graph(None)
    return ran


def infer_for_passes(graph: Graph, input_metas: Sequence[TensorMeta] | None) -> None:
    infer_metas(graph, list(input_metas or []))


# -- fusion_result.json ------------------------------------------------------------

EXPORT_COMPILE_STAT = "ge.exportCompileStat"
# Set by a Session on its graphs' options: "<session>_<graph id>".
COMPILE_ID = "ge.cpu.internal.sessionGraphId"
_RESULTS: dict[str, dict[str, Any]] = {}
_COMPILES = iter(range(1 << 62))


def record_compile(
    options: Mapping[str, str], stats: Mapping[str, PassStats]
) -> Path | None:
    """Add one compile's pass statistics to fusion_result.json (GE's
    format), written now when ``ge.exportCompileStat`` is 2, at exit when
    it is 1; nothing when it is unset or 0."""
    mode = options.get(EXPORT_COMPILE_STAT, "0").strip()
    if mode not in ("1", "2") or not stats:
        return None
    ident = options.get(COMPILE_ID) or f"0_{next(_COMPILES)}"
    key = f"session_and_graph_id_{ident}"
    _RESULTS[key] = {
        "graph_fusion": {
            name: {
                "match_times": str(s.match_times),
                "effect_times": str(s.effect_times),
            }
            for name, s in stats.items()
        }
    }
    if mode == "2":
        return write_results()
    _register_exit()
    return None


def result_path() -> Path:
    work = os.environ.get("ASCEND_WORK_PATH", "").strip()
    if not work:
        return Path("fusion_result.json")
    folder = Path(work) / "FE" / str(os.getpid())
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "fusion_result.json"


def write_results() -> Path:
    path = result_path()
    path.write_text(json.dumps(_RESULTS, indent=4) + "\n")
    return path


_EXIT = False


def _register_exit() -> None:
    global _EXIT
    if not _EXIT:
        import atexit

        atexit.register(write_results)
        _EXIT = True


def run_custom_passes(
    graph: Graph,
    options: Mapping[str, str],
    enabled: Callable[[str], bool],
    input_metas: Sequence[TensorMeta] | None,
    stages: Sequence[PassStage],
    stats: dict[str, PassStats],
) -> Graph:
    """The graph after the registered passes of ``stages``: ``graph`` itself
    when none is registered, else a rewritten copy (Note [Running custom
    passes]); each stage that ran a pass is dumped (DUMP_GE_GRAPH)."""
    load_pass_files()
    wanted = [
        d for d in get_registered_passes() if d.stage in stages and enabled(d.pass_name)
    ]
    if not wanted:
        return graph
    from ge.engine.passes.custom_rewrite import copy_graph
    from ge.engine.passes.report import dump_stage

    graph = copy_graph(graph)
    for stage in stages:
        if stage is PassStage.AFTER_INFER_SHAPE:
            infer_for_passes(graph, input_metas)
        if run_stage(graph, stage, options, enabled, stats):
            prefix = "00" if stage in EARLY else "01"
            dump_stage(graph, f"{prefix}_run_custom_pass_{stage.value}")
    return graph
