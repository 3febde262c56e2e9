"""The spec's ``breaking:`` marks (docs/releases.md, "Marking a break
intended"): each reason is free text checked as docs are (E303), and a
release may be named once (E301). Whether the release exists is a question
for the registry, which ``gen-ops compat`` asks (H501)."""

from __future__ import annotations

from gen_ops.semantics.context import Checker
from gen_ops.semantics.text import doc_text
from gen_ops.spec.model import BreakingMark


def marks(ctx: Checker) -> tuple[BreakingMark, ...]:
    """The op's marks, in spec order."""
    found: list[BreakingMark] = []
    seen: dict[str, int] = {}
    for i, item in enumerate(ctx.data.get("breaking", ())):
        release = str(item["release"])
        reason = doc_text(ctx, ("breaking", i, "reason"))
        if release in seen:
            ctx.report(
                "E301",
                ("breaking", i, "release"),
                f"breaking names release '{release}' twice (also "
                f"breaking[{seen[release]}])",
                "give one entry per release, with every reason in it",
            )
            continue
        seen[release] = i
        found.append(BreakingMark(release, reason, ctx.at(("breaking", i, "release"))))
    return tuple(found)
