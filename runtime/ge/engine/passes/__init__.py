"""Graph passes run by ``compile_graph`` before memory is planned
(docs/compiler.md): constant folding, then element-wise fusion; their
switches, the compile report and the per-stage dumps (DUMP_GE_GRAPH)."""

from ge.engine.passes.report import CompileReport, FusionRegion
from ge.engine.passes.switches import Switches

__all__ = ["CompileReport", "FusionRegion", "Switches"]
