"""Which characters spec text may hold, and how the rest is shown.

Note [Invisible characters]: a character a reader cannot see for what it is
can make generated source read differently from what it does. Control
characters (C0 and C1), the line and paragraph separators U+2028/U+2029 and
lone surrogates break lines or files; the bidi formatting characters
(embeddings, overrides, isolates and marks) reorder what an editor or a
review tool displays ("Trojan Source", CVE-2021-42574), and g++ -Wall
rejects them unpaired. The rule, decided here and nowhere else:

- names (and every pattern-checked value) are ASCII by their patterns;
- free text that is copied as text (docs) may hold newlines and tabs, and no
  other character of this set (E303);
- paths that gen-ops writes or prints (spec file names, impl.author) may hold
  none of them (E106, E704);
- strings that become literals (str and list_str defaults) may hold anything
  but NUL, and every output escapes what ``str.isprintable`` rejects;
- diagnostics escape all of them, so a message is one line that a terminal
  shows as it is.
"""

from __future__ import annotations

import re
import unicodedata

# C0 and C1 controls, U+2028/U+2029, bidi formatting characters (UAX #9:
# ALM, LRM, RLM, LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI), surrogates.
_INVISIBLE = (
    "\x00-\x1f\x7f-\x9f\u2028\u2029"
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff"
)
_ANY = re.compile(f"[{_INVISIBLE}]")
# Docs keep newlines and tabs: the same set without \t (U+0009) and \n (U+000A).
_IN_DOCS = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029"
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_BIDI = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


def invisible_in_doc(text: str) -> str | None:
    """The first character docs may not hold, or None."""
    match = _IN_DOCS.search(text)
    return match.group() if match else None


def invisible(text: str) -> str | None:
    """The first character a path or name may not hold, or None."""
    match = _ANY.search(text)
    return match.group() if match else None


def describe(ch: str) -> str:
    """``U+202E (RIGHT-TO-LEFT OVERRIDE), a bidi formatting character``."""
    code = f"U+{ord(ch):04X}"
    name = unicodedata.name(ch, "")
    kind = (
        "a bidi formatting character"
        if ch in _BIDI
        else (
            "a surrogate (the text is not UTF-8)"
            if 0xD800 <= ord(ch) <= 0xDFFF
            else "a line separator" if ch in "\u2028\u2029" else "a control character"
        )
    )
    return f"{code} ({name}), {kind}" if name else f"{code}, {kind}"


def escape(text: str) -> str:
    """``text`` with every character of the set shown as a Python escape
    (``\\n``, ``\\x85``, ``\\u202e``, ``\\udcff``), for diagnostics."""
    return _ANY.sub(_escaped, text)


def _escaped(match: re.Match[str]) -> str:
    ch = match.group()
    special = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
    if ch in special:
        return special[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"
