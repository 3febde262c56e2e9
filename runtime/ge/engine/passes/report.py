"""What the passes did to a compiled graph, and the per-stage graph dumps.

Note [Graph dumps]: as GE does, ``DUMP_GE_GRAPH`` set to 1, 2 or 3 makes
every compile write the graph as each stage leaves it, into
``DUMP_GRAPH_PATH`` (default: the working directory), one file per stage:
``ge_proto_<seq>_<graph>_<stage>.txt`` (seq counts the process's dumps).
The text is GE's readable dump of the graph (``Graph.dump_to_stream``);
the fusion stage lists its regions below the graph, since fusion changes
the task table, not the graph. 1 and 2 write the same here (this runtime's
dump has no weights to leave out); 3 writes only the fusion stage.
"""

from __future__ import annotations

import itertools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ge.graph.dump import readable
from ge.graph.graph import Graph

_SEQ = itertools.count()


@dataclass(frozen=True)
class FusionRegion:
    """One fused kernel: its nodes in order, and which of them it writes out."""

    nodes: tuple[str, ...]
    outputs: tuple[str, ...]
    shape: tuple[int, ...]


@dataclass
class CompileReport:
    """The passes a compile ran and what they did (``CompiledGraph.report``)."""

    folding: bool = True
    fusion: bool = True
    folded: list[str] = field(default_factory=list)  # nodes now Consts
    regions: list[FusionRegion] = field(default_factory=list)
    # node -> why it was not fused with its producer(s)
    breaks: dict[str, str] = field(default_factory=dict)
    # custom pass -> (matches found, rewrites done), as fusion_result.json
    passes: dict[str, tuple[int, int]] = field(default_factory=dict)
    # folded custom-op node -> its op type (folded by its host kernel)
    host_folded: dict[str, str] = field(default_factory=dict)
    # custom-op node whose inputs are all constants -> why it was not folded
    not_folded: dict[str, str] = field(default_factory=dict)
    fold_candidates: int = 0  # custom-op nodes whose inputs are all constants

    def text(self) -> str:
        lines = [
            f"custom pass {name}: {m} match(es), {e} rewrite(s)"
            for name, (m, e) in self.passes.items()
        ]
        lines += [
            f"constant folding: {'on' if self.folding else 'off'}, "
            f"{len(self.folded)} node(s) folded"
        ]
        lines += [
            f"  folded {name} -> Const"
            + (
                f" (host kernel of {self.host_folded[name]})"
                if name in self.host_folded
                else ""
            )
            for name in self.folded
        ]
        lines += [f"  not folded {n}: {why}" for n, why in self.not_folded.items()]
        lines.append(
            f"element-wise fusion: {'on' if self.fusion else 'off'}, "
            f"{len(self.regions)} region(s)"
        )
        for k, region in enumerate(self.regions):
            shape = "x".join(map(str, region.shape)) or "scalar"
            lines.append(
                f"  region {k} [{shape}]: {' -> '.join(region.nodes)}; "
                f"writes {', '.join(region.outputs)}"
            )
        lines += [f"  not joined: {n}: {why}" for n, why in self.breaks.items()]
        return "\n".join(lines) + "\n"


def dump_level() -> int:
    try:
        return int(os.environ.get("DUMP_GE_GRAPH", "0") or 0)
    except ValueError:
        return 0


def dump_stage(graph: Graph, stage: str, extra: str = "") -> Path | None:
    """Write ``graph`` as it leaves ``stage`` (Note [Graph dumps])."""
    level = dump_level()
    if level not in (1, 2, 3) or (level == 3 and not extra):
        return None
    folder = Path(os.environ.get("DUMP_GRAPH_PATH") or ".")
    folder.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", graph.name)[:64]
    path = folder / f"ge_proto_{next(_SEQ):08d}_{name}_{stage}.txt"
    path.write_text(readable(graph) + ("\n" + extra if extra else ""))
    return path
