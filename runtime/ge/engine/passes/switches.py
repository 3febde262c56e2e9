"""Turning the passes off (docs/compiler.md, "Switches").

Note [Pass switches]: GE turns fusion off with a fusion switch file
(ATC's ``--fusion_switch_file``, the session option ``ge.fusionSwitchFile``),
a JSON document ``{"Switch": {"GraphFusion": {...}, "UBFusion": {...}}}``
whose entries name a pass (or ``ALL``) and say ``"on"`` or ``"off"``. We
read the same file: ``ElementwiseFusionPass`` (in either section, or
``ALL`` of either) switches fusion, ``ConstantFoldingPass`` (in
``GraphFusion``, or its ``ALL``) folding. For a quick switch without a
file the environment variables ``GE_CPU_FUSION=0`` and
``GE_CPU_FOLDING=0`` turn them off for every compile of the process. A
file that cannot be read or parsed is a ValueError naming it (the compiler
reports it as a CompileError).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

FUSION_SWITCH_FILE = "ge.fusionSwitchFile"
FUSION_PASS = "ElementwiseFusionPass"
FOLDING_PASS = "ConstantFoldingPass"
FUSION_ENV = "GE_CPU_FUSION"
FOLDING_ENV = "GE_CPU_FOLDING"
# Set by the compiler for the graphs it compiles to fold a node (no passes).
NO_PASSES = "ge.cpu.internal.noPasses"
# Set by constant folding for the graph of one custom-op node: run its host
# kernel (Note [Folding custom ops] in ge.engine.passes.folding).
HOST_KERNELS = "ge.cpu.internal.hostKernels"


@dataclass(frozen=True)
class Switches:
    """Which passes a compile runs."""

    folding: bool = True
    fusion: bool = True
    # GraphFusion entries of the switch file (custom passes by name).
    graph_fusion: tuple[tuple[str, str], ...] = ()

    def pass_on(self, name: str) -> bool:
        """Whether the custom pass ``name`` runs: its entry in the file's
        GraphFusion section, else its ``ALL``, else on."""
        return _on(dict(self.graph_fusion), name)

    @staticmethod
    def of(options: Mapping[str, str]) -> Switches:
        if options.get(NO_PASSES) == "1":
            return Switches(False, False, (("ALL", "off"),))
        folding = os.environ.get(FOLDING_ENV, "1").strip() != "0"
        fusion = os.environ.get(FUSION_ENV, "1").strip() != "0"
        path = options.get(FUSION_SWITCH_FILE)
        if path:
            sections = _read(Path(path))
            graph, ub = sections.get("GraphFusion", {}), sections.get("UBFusion", {})
            fusion = fusion and _on(graph, FUSION_PASS) and _on(ub, FUSION_PASS)
            folding = folding and _on(graph, FOLDING_PASS)
            return Switches(folding, fusion, tuple(graph.items()))
        return Switches(folding, fusion)


def _on(section: Mapping[str, str], name: str) -> bool:
    value = section.get(name, section.get("ALL", "on"))
    return str(value).lower() != "off"


def _read(path: Path) -> dict[str, dict[str, str]]:
    try:
        document = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"fusion switch file {str(path)!r}: {exc}") from None
    switch = document.get("Switch") if isinstance(document, dict) else None
    if not isinstance(switch, dict) or not all(
        isinstance(v, dict) for v in switch.values()
    ):
        raise ValueError(
            f"fusion switch file {str(path)!r}: expected "
            '{"Switch": {"GraphFusion": {...}, "UBFusion": {...}}}'
        )
    return switch
