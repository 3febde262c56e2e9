"""``ge.passes``: GE's Python graph passes, run by the compiler at compile
time (docs/compiler.md, "Writing passes"). The implementation is the
engine's (``ge.engine.passes.custom_*``); this package gives it GE's names.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ge.engine.passes.custom_api import (
    DecomposePass,
    FusionBasePass,
    MatchResult,
    NodeIo,
    PassContext,
    PassStage,
    Pattern,
    PatternFusionPass,
    PatternInputs,
    PatternMatcherConfig,
    PatternMatcherConfigBuilder,
    create_pattern,
    create_replacement,
    pattern,
)
from ge.engine.passes.custom_rewrite import (
    SubgraphBoundary,
    SubgraphInput,
    SubgraphOutput,
    SubgraphRewriter,
    infer_shape,
    report_fuse,
)
from ge.engine.passes.custom_rewrite import can_fuse as _can_fuse
from ge.engine.passes.custom_run import (
    PassDescriptor,
    clear_registered_passes,
    get_registered_pass_by_descriptor_key,
    get_registered_pass_dicts,
    get_registered_passes,
    register_decompose_pass,
    register_fusion_pass,
)
from ge.graph.graph import Node


@dataclass(frozen=True)
class FuseCheckResult:
    """Whether nodes can be fused into one (``ok``), and why not."""

    ok: bool
    reason: str = ""


def can_fuse(nodes: Iterable[Node]) -> FuseCheckResult:
    """Whether ``nodes`` (connected) can become one node without a cycle."""
    ok, reason = _can_fuse(nodes)
    return FuseCheckResult(ok, reason)


__all__ = [
    "DecomposePass",
    "FuseCheckResult",
    "FusionBasePass",
    "MatchResult",
    "NodeIo",
    "PassContext",
    "PassDescriptor",
    "PassStage",
    "Pattern",
    "PatternFusionPass",
    "PatternInputs",
    "PatternMatcherConfig",
    "PatternMatcherConfigBuilder",
    "SubgraphBoundary",
    "SubgraphInput",
    "SubgraphOutput",
    "SubgraphRewriter",
    "can_fuse",
    "clear_registered_passes",
    "create_pattern",
    "create_replacement",
    "get_registered_pass_by_descriptor_key",
    "get_registered_pass_dicts",
    "get_registered_passes",
    "infer_shape",
    "pattern",
    "register_decompose_pass",
    "register_fusion_pass",
    "report_fuse",
]
