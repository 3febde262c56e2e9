"""Which names in a header are dtypes, named sets, or mistakes for them.

REG_OP's element macros only stringify their type argument, so GE compiles
any name there and never notices one that is not a ``DataType`` enumerator
(``DT_FLOAT32``, ``DI_UINT16``, ``float16``). This module is the one place
that says what a name means:

- a ``DataType`` enumerator (``ge_ir.types``, GE's numbering), with its spec
  name (``DT_FLOAT`` is ``float32``);
- one of GE's named ``TensorType`` sets (``NumberType``);
- a name GE's DataType string table holds (the lower-case names GE reads
  and prints, which are the spec names: ``float16``, ``float32``,
  ``float64``, ``bfloat16``, ...), written bare (``float16``) or as
  ``DT_`` and the name in upper case (``DT_FLOAT32``, ``DT_FLOAT64``,
  ``DT_BFLOAT16``: the names that are not enumerators themselves). One rule,
  ``string_table``; such a name is imported only with ``--fix-dtypes``
  (I302);
- anything else is unknown (I202), with the name it most likely meant.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from ge_ir.types import (
    NAMED_TENSOR_TYPES,
    DataType,
    dtype_from_spec_name,
    dtype_spec_names,
)

ENUMERATORS: Mapping[str, DataType] = MappingProxyType({dt.name: dt for dt in DataType})
# Enumerators that are markers, not types: no spec name, no tensor has them.
MARKERS = frozenset({DataType.DT_UNDEFINED, DataType.DT_MAX})
NAMED_SETS: frozenset[str] = frozenset(NAMED_TENSOR_TYPES)

# GE's DataType string table: the lower-case name of each type (the spec
# names, ge_ir.types: float32 is DT_FLOAT, float64 DT_DOUBLE, bfloat16
# DT_BF16, the others the enumerator without DT_).
STRING_TABLE: Mapping[str, DataType] = MappingProxyType(
    {name: dtype_from_spec_name(name) for name in dtype_spec_names()}
)


def string_table(name: str) -> DataType | None:
    """The type GE's string table gives ``name`` (not an enumerator): a
    lower-case name of the table (``float16``), or ``DT_`` and one in upper
    case (``DT_FLOAT32`` for ``float32``, ``DT_FLOAT64``, ``DT_BFLOAT16``).
    The one rule of --fix-dtypes (I302)."""
    if name in STRING_TABLE:
        return STRING_TABLE[name]
    rest = name.removeprefix("DT_")
    if rest != name and rest == rest.upper() and rest.lower() in STRING_TABLE:
        return STRING_TABLE[rest.lower()]
    return None


# Spellings seen in real headers whose meaning is evident but that GE reads
# as nothing: the enumerator each one means.
_INTENDED = {
    "DT_FLOAT32": "DT_FLOAT",
    "DT_BFLOAT16": "DT_BF16",
    "DT_FLOAT64": "DT_DOUBLE",
    "DT_FP64": "DT_DOUBLE",
    "DT_FP32": "DT_FLOAT",
    "DT_FP16": "DT_FLOAT16",
    "DT_HALF": "DT_FLOAT16",
    "DT_B16": "DT_BF16",
    "DT_BFP16": "DT_BF16",
    "DT_FP8_E5M2": "DT_FLOAT8_E5M2",
    "DT_FP8_E4M3FN": "DT_FLOAT8_E4M3FN",
    "DT_FP8_E4M3": "DT_FLOAT8_E4M3FN",
    "DT_FP8_E8M0": "DT_FLOAT8_E8M0",
}


def spec_name(data_type: DataType) -> str:
    """``DT_FLOAT`` -> ``float32``."""
    return data_type.spec_name


@dataclass(frozen=True)
class Reading:
    """What one name means. At most one of ``dtype``, ``named_set`` and
    ``alias`` is set; when none is, ``suggestion`` may say what was meant."""

    name: str
    dtype: DataType | None = None
    named_set: str | None = None
    alias: DataType | None = None  # GE's string table's (--fix-dtypes)
    suggestion: str | None = None

    @property
    def known(self) -> bool:
        return self.dtype is not None or self.named_set is not None


@functools.lru_cache(maxsize=4096)
def read(name: str) -> Reading:
    """What ``name`` (without ``ge::``) means as a dtype or named set."""
    if name in ENUMERATORS:
        return Reading(name, dtype=ENUMERATORS[name])
    if name in NAMED_SETS:
        return Reading(name, named_set=name)
    return Reading(name, alias=string_table(name), suggestion=suggest(name))


def _squash(name: str) -> str:
    return name.replace("_", "").upper()


_SQUASHED = {
    **{_squash(name): name for name in ENUMERATORS},
    **{_squash(name): name for name in NAMED_SETS},
}
_BY_SPEC_NAME = {
    **{dt.spec_name: dt.name for dt in DataType if dt not in MARKERS},
    # C's names, lower-case as a spec name would be
    "float": "DT_FLOAT",
    "double": "DT_DOUBLE",
    "half": "DT_FLOAT16",
    "int": "DT_INT32",
    "long": "DT_INT64",
}


def suggest(name: str) -> str | None:
    """The enumerator or named set ``name`` most likely means, or None."""
    upper = name.upper()
    for prefix in ("DI_", "DY_", "DR_", "TD_", "DT"):
        if upper.startswith(prefix) and not upper.startswith("DT_"):
            upper = "DT_" + upper[len(prefix) :].lstrip("_")
    if upper in _INTENDED:
        return _INTENDED[upper]
    if upper in ENUMERATORS:
        return upper
    if name.lower() in _BY_SPEC_NAME:  # a spec name: float16, bfloat16
        return _BY_SPEC_NAME[name.lower()]
    squashed = _squash(upper)
    if squashed in _SQUASHED:
        return _SQUASHED[squashed]
    if not upper.startswith("DT_") and "DT_" + squashed in _SQUASHED:
        return _SQUASHED["DT_" + squashed]
    close = difflib.get_close_matches(
        upper, list(ENUMERATORS) + [s.upper() for s in NAMED_SETS], n=1, cutoff=0.8
    )
    if not close:
        return None
    match = close[0]
    return next((s for s in NAMED_SETS if s.upper() == match), match)


def named_set_suggestion(name: str) -> str | None:
    """The named set ``name`` means when only its case is wrong
    (``REALNUMBERTYPE`` is ``RealNumberType``), or None."""
    return next((s for s in NAMED_SETS if s.upper() == name.upper()), None)


def describe(suggestion: str) -> str:
    """``DT_DOUBLE (float64)``, or a named set's name."""
    if suggestion in ENUMERATORS and ENUMERATORS[suggestion] not in MARKERS:
        return f"{suggestion} ({ENUMERATORS[suggestion].spec_name})"
    return suggestion
