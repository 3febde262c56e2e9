"""Every compatibility rule: its code, its verdict and what to do instead.

Which change fires a rule is decided in ``diff.py``; what the rule means
for callers, here. The verdicts follow GE's overload planner
(docs/ge-compat.md, "History registry"): a change that GE's planner calls
incompatible breaks callers of the release; new optional inputs and attrs,
and docs, do not. Two changes GE's planner does not look at are for the
author to review: an input's dtype symbol (our builders check dtypes, so a
narrower set can refuse a caller's tensor) and an attr's default (a caller
who leaves the attr out gets another value).
"""

from __future__ import annotations

import enum


class Verdict(enum.Enum):
    BREAKING = "breaking"  # callers of the release fail: H3xx, an error
    COMPATIBLE = "compatible"  # callers of the release still work: a note
    REVIEW = "review"  # compatible by GE's rules; callers may notice: a warning


_B, _C, _R = Verdict.BREAKING, Verdict.COMPATIBLE, Verdict.REVIEW


class Rule(enum.Enum):
    """(code, verdict, hint); a hint's ``{0}``, ``{1}`` are the change's
    names as its message quotes them, ``{raw[0]}`` the first one as it is."""

    INPUT_REMOVED = (
        "H301",
        _B,
        "keep input {0} (make it optional: true if the op no longer needs it)",
    )
    INPUT_RENAMED = ("H302", _B, "keep the old name {0}")
    INPUT_MOVED = (
        "H303",
        _B,
        "keep the inputs of the release in their order, and add new ones after them",
    )
    INPUT_KIND = (
        "H304",
        _B,
        "keep input {0} as it was ({raw[1]}); GE's planner takes any change of "
        "kind as incompatible, optional ones included",
    )
    INPUT_NEEDED = (
        "H305",
        _B,
        "make it optional (optional: true), after the inputs of the release",
    )
    ATTR_REMOVED = ("H311", _B, "keep attr {0} (give it a default and ignore it)")
    ATTR_RENAMED = ("H312", _B, "keep the old name {0}")
    ATTR_MOVED = (
        "H313",
        _B,
        "keep the attrs of the release in their order, and add new ones after them "
        "(GE's C++ API passes attrs by position)",
    )
    ATTR_TYPE = (
        "H314",
        _B,
        "keep attr {0} of type {raw[1]}; add an attr with another name for the new "
        "type",
    )
    ATTR_REQUIRED = (
        "H315",
        _B,
        "keep attr {0} {raw[1]} as in the release; GE's planner takes any change "
        "of the required flag as incompatible",
    )
    ATTR_NEEDED = ("H316", _B, "give attr {0} a default")
    OUTPUTS = (
        "H321",
        _B,
        "keep the outputs of the release as they were; an op with other outputs is "
        "another op (give it another name)",
    )
    SUBGRAPHS = (
        "H322",
        _B,
        "keep the subgraphs of the release as they were; an op with other subgraphs "
        "is another op (give it another name)",
    )
    OP_REMOVED = (
        "H331",
        _B,
        "keep the op's spec (deprecated: VERSION says it is going), or pass "
        "--allow-removed {raw[0]} to gen-ops compat if the removal is intended",
    )
    NEW_OPTIONAL_INPUT = (
        "H401",
        _C,
        "nothing to do: callers of the release still work",
    )
    NEW_OPTIONAL_ATTR = ("H402", _C, "nothing to do: callers of the release still work")
    DOC = ("H403", _C, "nothing to do: docs do not change a call")
    NEW_OP = ("H404", _C, "nothing to do: no release had it")
    DEPRECATED = ("H405", _C, "nothing to do: callers of the release still work")
    PARAM_DEPRECATED = (
        "H406",
        _C,
        "nothing to do: callers of the release still work, with a "
        "DeprecationWarning when they give it a value",
    )
    RENAMED_WITH_ALIAS = (
        "H413",
        _R,
        "Python callers of the release that pass {0} by keyword still work (with a "
        "DeprecationWarning); GE's C++ API and graphs saved by them see the new "
        "name {1}",
    )
    INPUT_DTYPE = (
        "H411",
        _R,
        "make sure every dtype callers of the release pass is still allowed (the "
        "builder checks dtypes)",
    )
    ATTR_DEFAULT = (
        "H412",
        _R,
        "callers that leave attr {0} out now get {2}; keep {1} unless that is "
        "intended",
    )

    @property
    def code(self) -> str:
        return str(self.value[0])

    @property
    def verdict(self) -> Verdict:
        verdict: Verdict = self.value[1]
        return verdict

    def hint(self, quoted: tuple[str, ...], raw: tuple[str, ...]) -> str:
        template: str = self.value[2]
        return template.format(*quoted, raw=raw)
