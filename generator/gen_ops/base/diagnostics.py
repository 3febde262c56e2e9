"""Diagnostics: every problem gen-ops reports, with a code, a place and a hint.

Each code is declared once in ``CODES``; docs/diagnostics.md is checked
against this table by the tests, and every code has a negative test.
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Iterable
from dataclasses import dataclass, field

from gen_ops.base.charset import escape


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"  # information only (gen-ops compat: a compatible change)


@dataclass(frozen=True)
class CodeInfo:
    severity: Severity
    title: str


# Code ranges: E1xx files and YAML, E2xx structure (JSON Schema), E3xx names,
# E4xx dtypes, E5xx attrs, E6xx rules (count/derive/infer_meta), E7xx impl,
# E8xx across specs, W9xx notes that do not stop generation. ``gen-ops
# import`` (gen_ops.importer) reports I1xx for a header it cannot read (the
# header is not imported), I2xx for a declaration it cannot import (the op is
# not imported) and I3xx for what it normalised (a warning); ``gen-ops
# roundtrip`` adds R1xx and R2xx (gen_ops.importer.roundtrip). The history
# commands (gen_ops.history: release, compat, changelog) report H1xx for a
# registry file GE's reader would skip or cannot use, H2xx for a release that
# cannot be recorded (a bad version or date is a usage error), H3xx for a
# change that breaks callers of a release (H300 when the spec marks it
# intended), H4xx for compatible changes (notes) and changes to look at
# (warnings), H5xx for the spec's breaking marks.
CODES: dict[str, CodeInfo] = {
    "E101": CodeInfo(Severity.ERROR, "cannot read spec file"),
    "E102": CodeInfo(Severity.ERROR, "YAML syntax error"),
    "E103": CodeInfo(Severity.ERROR, "duplicate YAML key"),
    "E104": CodeInfo(Severity.ERROR, "unsupported YAML feature"),
    "E105": CodeInfo(Severity.ERROR, "no spec files found"),
    "E106": CodeInfo(Severity.ERROR, "spec file name cannot be used"),
    "E201": CodeInfo(Severity.ERROR, "unknown key"),
    "E202": CodeInfo(Severity.ERROR, "missing required key"),
    "E203": CodeInfo(Severity.ERROR, "wrong value type"),
    "E204": CodeInfo(Severity.ERROR, "invalid value"),
    "E301": CodeInfo(Severity.ERROR, "duplicate name"),
    "E303": CodeInfo(
        Severity.ERROR, "text contains a control or bidi formatting character"
    ),
    "E304": CodeInfo(Severity.ERROR, "module or op name cannot be used"),
    "E305": CodeInfo(Severity.ERROR, "input is both optional and dynamic"),
    "E306": CodeInfo(Severity.ERROR, "REG_OP would declare a member twice"),
    "E307": CodeInfo(Severity.ERROR, "REG_OP would declare a system macro"),
    "E308": CodeInfo(Severity.ERROR, "op type is a node type the runtime reserves"),
    "E310": CodeInfo(Severity.ERROR, "parameter callers must pass is deprecated"),
    "E311": CodeInfo(Severity.ERROR, "earlier name cannot be kept as an alias"),
    "E401": CodeInfo(Severity.ERROR, "unknown dtype"),
    "E402": CodeInfo(Severity.ERROR, "unknown type variable"),
    "E403": CodeInfo(Severity.ERROR, "type variable shadows a dtype or named set"),
    "E404": CodeInfo(Severity.ERROR, "promotion of something it cannot promote"),
    "E405": CodeInfo(Severity.ERROR, "type variable of a kind its slot cannot have"),
    "E406": CodeInfo(Severity.ERROR, "promotion gives no dtype"),
    "E501": CodeInfo(Severity.ERROR, "default does not fit the attr type"),
    "E502": CodeInfo(Severity.ERROR, "attr has both default and derive"),
    "E601": CodeInfo(Severity.ERROR, "malformed rule"),
    "E602": CodeInfo(Severity.ERROR, "rule names an unknown input, output or attr"),
    "E604": CodeInfo(Severity.ERROR, "infer_meta must cover every output"),
    "E605": CodeInfo(Severity.ERROR, "count rule on a non-dynamic output"),
    "E606": CodeInfo(
        Severity.ERROR, "infer_meta leaves a part to an implementation the op lacks"
    ),
    "E607": CodeInfo(Severity.ERROR, "len() of an input that is not dynamic"),
    "E608": CodeInfo(Severity.ERROR, "derived attr has another type than its rule"),
    "E609": CodeInfo(Severity.ERROR, "attr() names an attr of the wrong type"),
    "E610": CodeInfo(Severity.ERROR, "count attr defaults to a negative number"),
    "E611": CodeInfo(Severity.ERROR, "same_as() of a dynamic input"),
    "E612": CodeInfo(Severity.ERROR, "rule reads an optional input"),
    "E613": CodeInfo(Severity.ERROR, "dtype rule gives a dtype the output forbids"),
    "E614": CodeInfo(
        Severity.ERROR, "dtype rule for an output its type variable gives a dtype"
    ),
    "E615": CodeInfo(Severity.ERROR, "reuse_input names no input"),
    "E616": CodeInfo(Severity.ERROR, "reuse_input of an input whose dtype can differ"),
    "E617": CodeInfo(Severity.ERROR, "reuse_input of a pair that cannot share memory"),
    "E621": CodeInfo(Severity.ERROR, "reference cannot be evaluated"),
    "E622": CodeInfo(Severity.ERROR, "sample shape rule is wrong"),
    "E623": CodeInfo(Severity.ERROR, "sample attr value does not fit"),
    "E624": CodeInfo(Severity.ERROR, "tolerance or sample values name the unknown"),
    "E625": CodeInfo(Severity.ERROR, "error case cannot be checked"),
    "E628": CodeInfo(Severity.ERROR, "samples.graphs does not fit the op"),
    "E631": CodeInfo(Severity.ERROR, "elementwise expression does not parse"),
    "E632": CodeInfo(Severity.ERROR, "elementwise expression reads the unknown"),
    "E633": CodeInfo(Severity.ERROR, "op cannot be element-wise"),
    "E701": CodeInfo(
        Severity.ERROR, "launch argument names an unknown input, output or attr"
    ),
    "E702": CodeInfo(Severity.ERROR, "launch argument cannot be passed"),
    "E703": CodeInfo(Severity.ERROR, "impl is inconsistent"),
    "E704": CodeInfo(Severity.ERROR, "impl.author is not a path inside the project"),
    "E705": CodeInfo(Severity.ERROR, "library call argument cannot be passed"),
    "E801": CodeInfo(Severity.ERROR, "op type defined twice"),
    "E802": CodeInfo(Severity.ERROR, "two ops map to the same file or name"),
    "W901": CodeInfo(Severity.WARNING, "Python keyword renamed"),
    "W902": CodeInfo(Severity.WARNING, "C++ keyword renamed in GE's C/C++ ES API"),
    "W903": CodeInfo(Severity.WARNING, "unused type variable"),
    "W904": CodeInfo(Severity.WARNING, "Python parameter renamed to avoid a clash"),
    "W905": CodeInfo(Severity.WARNING, "attr left out of the REG_OP header"),
    "W906": CodeInfo(Severity.WARNING, "reuse_input without a generated prototype"),
    "W907": CodeInfo(
        Severity.WARNING, "output named like an input of other dynamic-ness"
    ),
    # gen-ops import: REG_OP headers.
    "I101": CodeInfo(Severity.ERROR, "cannot read header"),
    "I102": CodeInfo(Severity.ERROR, "no headers found"),
    "I103": CodeInfo(Severity.ERROR, "unterminated comment"),
    "I104": CodeInfo(Severity.ERROR, "unterminated string or character literal"),
    "I105": CodeInfo(Severity.ERROR, "unbalanced bracket"),
    "I106": CodeInfo(Severity.ERROR, "namespace never closed"),
    "I107": CodeInfo(Severity.ERROR, "unbalanced conditional directive"),
    "I108": CodeInfo(Severity.ERROR, "header name is not a module name"),
    "I201": CodeInfo(Severity.ERROR, "malformed REG_OP declaration"),
    "I202": CodeInfo(Severity.ERROR, "unknown dtype name"),
    "I203": CodeInfo(Severity.ERROR, "unreadable type expression"),
    "I204": CodeInfo(Severity.ERROR, "undeclared type variable"),
    "I205": CodeInfo(Severity.ERROR, "unknown attr type"),
    "I206": CodeInfo(Severity.ERROR, "op declared differently in several places"),
    "I207": CodeInfo(Severity.ERROR, "spec file cannot be written"),
    "I208": CodeInfo(Severity.ERROR, "imported spec fails gen-ops' checks"),
    "I209": CodeInfo(Severity.ERROR, "spec edited since the last import conflicts"),
    "I210": CodeInfo(Severity.ERROR, "import record cannot be used"),
    "I301": CodeInfo(Severity.WARNING, "type expression normalised"),
    "I302": CodeInfo(Severity.WARNING, "dtype name read through GE's string table"),
    "I303": CodeInfo(Severity.WARNING, "attr type alias normalised"),
    "I304": CodeInfo(Severity.WARNING, "int default spelled as a DataType"),
    "I305": CodeInfo(Severity.WARNING, "default not imported"),
    "I306": CodeInfo(Severity.WARNING, "differing declaration chosen by --prefer"),
    "I307": CodeInfo(Severity.WARNING, "doc names no parameter"),
    "I308": CodeInfo(Severity.WARNING, "full-width comma read as a comma"),
    "I309": CodeInfo(Severity.WARNING, "Bool default written as an integer"),
    "I310": CodeInfo(Severity.WARNING, "Float default evaluated"),
    "I311": CodeInfo(Severity.WARNING, "default names a GE constant"),
    "I312": CodeInfo(Severity.WARNING, "headers share a module name"),
    # gen-ops roundtrip: a declaration that gen-ops cannot render (R1xx) or
    # renders with another meaning (R2xx).
    "R101": CodeInfo(Severity.ERROR, "declaration gen-ops cannot render"),
    "R102": CodeInfo(Severity.ERROR, "rendered header does not give the op back"),
    "R201": CodeInfo(Severity.ERROR, "element missing, added or moved"),
    "R202": CodeInfo(Severity.ERROR, "element kind differs"),
    "R203": CodeInfo(Severity.ERROR, "dtype differs"),
    "R204": CodeInfo(Severity.ERROR, "attr type differs"),
    "R205": CodeInfo(Severity.ERROR, "attr default differs"),
    # gen-ops release, compat, changelog: GE's history registry.
    "H101": CodeInfo(Severity.ERROR, "registry index cannot be read"),
    "H102": CodeInfo(Severity.WARNING, "index entry skipped: a field is missing"),
    "H103": CodeInfo(Severity.WARNING, "index entry skipped: bad release date"),
    "H104": CodeInfo(Severity.WARNING, "index entry skipped: release listed twice"),
    "H105": CodeInfo(Severity.WARNING, "release skipped: metadata cannot be read"),
    "H106": CodeInfo(Severity.WARNING, "release skipped: metadata names another"),
    "H107": CodeInfo(Severity.WARNING, "release skipped: operators cannot be read"),
    "H108": CodeInfo(Severity.WARNING, "op skipped in a release: invalid entry"),
    "H109": CodeInfo(Severity.ERROR, "release not in the registry"),
    "H201": CodeInfo(Severity.ERROR, "release already recorded"),
    "H300": CodeInfo(Severity.WARNING, "breaking change marked intended"),
    "H301": CodeInfo(Severity.ERROR, "input removed"),
    "H302": CodeInfo(Severity.ERROR, "input renamed"),
    "H303": CodeInfo(Severity.ERROR, "input position changed"),
    "H304": CodeInfo(Severity.ERROR, "input kind changed"),
    "H305": CodeInfo(Severity.ERROR, "new input is not optional"),
    "H311": CodeInfo(Severity.ERROR, "attr removed"),
    "H312": CodeInfo(Severity.ERROR, "attr renamed"),
    "H313": CodeInfo(Severity.ERROR, "attr position changed"),
    "H314": CodeInfo(Severity.ERROR, "attr type changed"),
    "H315": CodeInfo(Severity.ERROR, "attr required flag changed"),
    "H316": CodeInfo(Severity.ERROR, "new attr is required"),
    "H321": CodeInfo(Severity.ERROR, "outputs changed"),
    "H322": CodeInfo(Severity.ERROR, "subgraphs changed"),
    "H331": CodeInfo(Severity.ERROR, "op removed"),
    "H401": CodeInfo(Severity.NOTE, "new optional input"),
    "H402": CodeInfo(Severity.NOTE, "new optional attr"),
    "H403": CodeInfo(Severity.NOTE, "doc changed"),
    "H404": CodeInfo(Severity.NOTE, "new op"),
    "H405": CodeInfo(Severity.NOTE, "op deprecated"),
    "H406": CodeInfo(Severity.NOTE, "parameter deprecated"),
    "H411": CodeInfo(Severity.WARNING, "input dtype changed"),
    "H412": CodeInfo(Severity.WARNING, "attr default changed"),
    "H413": CodeInfo(Severity.WARNING, "parameter renamed, old name kept as alias"),
    "H501": CodeInfo(Severity.WARNING, "breaking mark names no release"),
}


@dataclass(frozen=True, order=True)
class Span:
    """A place in a source file; line and column are 1-based."""

    path: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Diagnostic:
    code: str
    span: Span
    message: str
    hint: str | None = None

    @property
    def severity(self) -> Severity:
        return CODES[self.code].severity

    def format(self) -> str:
        """One line (and a hint line); paths and messages show every
        invisible character as an escape (Note [Invisible characters])."""
        text = (
            f"{escape(str(self.span))}: {self.severity.value}[{self.code}]: "
            f"{self.message}"
        )
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


@dataclass
class Sink:
    """Collects diagnostics; nothing is printed until the run ends."""

    items: list[Diagnostic] = field(default_factory=list)

    def emit(
        self, code: str, span: Span, message: str, hint: str | None = None
    ) -> None:
        if code not in CODES:  # a programming error, caught by the tests
            raise KeyError(f"undeclared diagnostic code {code}")
        # Messages quote spec text, which may hold anything (a name that ends
        # in a newline, a bidi override): shown escaped, on one line.
        self.items.append(
            Diagnostic(
                code, span, escape(message), None if hint is None else escape(hint)
            )
        )

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.items)

    def sorted(self) -> list[Diagnostic]:
        return sorted(self.items, key=lambda d: (d.span, d.code, d.message))


def suggest(word: str, choices: Iterable[str]) -> str | None:
    """A hint naming the choice closest to ``word`` (a likely typo), or None."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None
