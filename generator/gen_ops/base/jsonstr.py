"""JSON strings for the files gen-ops writes line by line (the manifest, the
journal): what ``json.dumps`` gives for each string, without a call per
string when they are all plain text."""

from __future__ import annotations

import json
from collections.abc import Sequence


def plain(texts: Sequence[str]) -> bool:
    """Whether each of ``texts`` is its JSON string without the quotes
    (printable ASCII, no quote, no backslash)."""
    joined = "".join(texts)
    return (
        joined.isascii()
        and joined.isprintable()
        and '"' not in joined
        and "\\" not in joined
    )


def quoted(texts: Sequence[str]) -> list[str]:
    """``[json.dumps(text) for text in texts]``."""
    if plain(texts):
        return [f'"{text}"' for text in texts]
    return [json.dumps(text) for text in texts]
