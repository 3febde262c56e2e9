"""numpy references of IfCustom and CaseCustom run with the sample branches
of ``_samples.py`` (branch k gives the inputs rotated left by k), with GE's
rules for choosing the branch (docs/ge-compat.md, "Control ops")."""

from __future__ import annotations

import numpy as np

BRANCHES = 3  # the branches _samples.case_custom builds


def rotate(input: list[np.ndarray], k: int) -> list[np.ndarray]:
    k %= max(len(input), 1)
    return list(input[k:]) + list(input[:k])


def if_custom(cond: np.ndarray, input: list[np.ndarray]) -> list[np.ndarray]:
    """A scalar cond is true when non-zero; any other shape when it has
    elements (GE reads no value then)."""
    truth = bool(cond.reshape(-1)[0]) if cond.ndim == 0 else cond.size > 0
    return rotate(input, 0 if truth else 1)


def case_custom(branch_index: np.ndarray, input: list[np.ndarray]) -> list[np.ndarray]:
    """Branch ``branch_index``'s first element; the last branch when it is
    negative or past the last."""
    index = int(branch_index.reshape(-1)[0])
    return rotate(input, index if 0 <= index < BRANCHES else BRANCHES - 1)
