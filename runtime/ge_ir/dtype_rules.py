"""An op's dtype rules: which dtypes each input and output allows, and
which of them share a type variable (GE's ``DATATYPE(T, TensorType(...))``).

Note [Dtype rules travel with the op]: the rules are a value of the op, not
of the module that happened to build a node. A generated builder checks
them when a node is added and records them on the node (so a graph file
carries them); a generated prototype registers them with ``register_op``
(so a graph however made or loaded meets them again). At compile the engine
checks every node against its prototype's rules, and refuses a node whose
recorded rules differ from its prototype's: the two declarations GE never
compares, compared. One class, here, says what the rules are, how they are
written in a graph file and how a node's dtypes are checked against them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ge_ir.types import NAMED_TENSOR_TYPES, DataType, dtype_from_spec_name

__all__ = ["DtypeRules", "DtypeSpec", "SlotRule", "SlotDtype"]

# How a table spells a slot's dtypes: a type variable's name, a named set's
# name, one dtype's spec name, or a tuple of dtype spec names.
DtypeSpec = str | tuple[str, ...]


@dataclass(frozen=True)
class SlotRule:
    """One slot: the dtypes it allows (empty: any), and the type variable
    it shares with other slots, if any."""

    var: str | None
    allowed: frozenset[DataType]

    def words(self) -> str:
        """``T (float16, float32)`` or ``float16, float32``."""
        names = ", ".join(d.spec_name for d in sorted(self.allowed))
        return f"{self.var} ({names})" if self.var else names

    def as_json(self) -> dict[str, Any]:
        return {
            "var": self.var,
            "dtypes": [d.spec_name for d in sorted(self.allowed)],
        }


@dataclass(frozen=True)
class SlotDtype:
    """A dtype a node has at one slot: input or output ``name``, instance
    ``index`` (-1 for a slot that is not dynamic)."""

    kind: str  # "input" or "output"
    name: str
    index: int
    dtype: DataType

    def where(self) -> str:
        return f"{self.kind} '{self.name}'" + (
            f"[{self.index}]" if self.index >= 0 else ""
        )


@dataclass(frozen=True)
class DtypeRules:
    """Every input's and output's rule, by slot name."""

    inputs: Mapping[str, SlotRule] = field(default_factory=dict)
    outputs: Mapping[str, SlotRule] = field(default_factory=dict)

    def __hash__(self) -> int:
        return hash((tuple(self.inputs.items()), tuple(self.outputs.items())))

    # -- making ----------------------------------------------------------------

    @classmethod
    def from_table(
        cls,
        *,
        type_vars: Mapping[str, DtypeSpec] | None = None,
        inputs: Mapping[str, DtypeSpec] | None = None,
        outputs: Mapping[str, DtypeSpec] | None = None,
    ) -> DtypeRules:
        """The rules a spec's table spells: ``type_vars={"T": ("float32",
        "float16")}, inputs={"x": "T"}, outputs={"y": "T"}``. ValueError
        names a spelling that is no dtype, set or type variable."""
        sets = {name: _dtype_set(spec, {}) for name, spec in (type_vars or {}).items()}

        def rule(spec: DtypeSpec) -> SlotRule:
            if isinstance(spec, str) and spec in sets:
                return SlotRule(spec, sets[spec])
            return SlotRule(None, _dtype_set(spec, sets))

        return cls(
            {name: rule(spec) for name, spec in (inputs or {}).items()},
            {name: rule(spec) for name, spec in (outputs or {}).items()},
        )

    # -- graph files ---------------------------------------------------------------

    def as_json(self) -> dict[str, Any]:
        return {
            "inputs": {name: r.as_json() for name, r in self.inputs.items()},
            "outputs": {name: r.as_json() for name, r in self.outputs.items()},
        }

    @classmethod
    def from_json(cls, data: Any) -> DtypeRules:
        """The rules of a graph file's node; ValueError says what is wrong."""
        if not isinstance(data, dict) or set(data) != {"inputs", "outputs"}:
            raise ValueError("dtype_rules must have exactly 'inputs' and 'outputs'")
        return cls(_slots_from_json(data["inputs"]), _slots_from_json(data["outputs"]))

    # -- checking ----------------------------------------------------------------

    def violation(self, dtypes: Iterable[SlotDtype]) -> str | None:
        """The first way ``dtypes`` break the rules (a sentence naming the
        slot), or None. DT_UNDEFINED (not known yet) passes."""
        bound: dict[str, SlotDtype] = {}
        for slot in dtypes:
            rules = self.inputs if slot.kind == "input" else self.outputs
            rule = rules.get(slot.name)
            if rule is None or slot.dtype is DataType.DT_UNDEFINED:
                continue
            if rule.allowed and slot.dtype not in rule.allowed:
                return (
                    f"{slot.where()} is {slot.dtype.spec_name}; "
                    f"{rule.words()} allowed"
                )
            if rule.var is not None:
                first = bound.setdefault(rule.var, slot)
                if first.dtype is not slot.dtype:
                    return (
                        f"{slot.where()} is {slot.dtype.spec_name} but "
                        f"{first.where()} is {first.dtype.spec_name}; both are "
                        f"type variable {rule.var}"
                    )
        return None

    def difference(self, other: DtypeRules) -> str | None:
        """The first slot whose rule differs from ``other``'s, in words."""
        for kind, mine, theirs in (
            ("input", self.inputs, other.inputs),
            ("output", self.outputs, other.outputs),
        ):
            for name in sorted(set(mine) | set(theirs)):
                a, b = mine.get(name), theirs.get(name)
                if a != b:
                    return (
                        f"{kind} '{name}' allows "
                        f"{a.words() if a else 'any dtype'} here but "
                        f"{b.words() if b else 'any dtype'} there"
                    )
        return None


def _dtype(name: str) -> DataType:
    try:
        return dtype_from_spec_name(name)
    except KeyError:
        raise ValueError(f"{name!r} is not a dtype name") from None


def _dtype_set(
    spec: DtypeSpec, type_vars: Mapping[str, frozenset[DataType]]
) -> frozenset[DataType]:
    if isinstance(spec, tuple):
        return frozenset(_dtype(n) for n in spec)
    if spec in type_vars:
        return type_vars[spec]
    if spec in NAMED_TENSOR_TYPES:
        return NAMED_TENSOR_TYPES[spec].types
    return frozenset({_dtype(spec)})


def _slots_from_json(data: Any) -> dict[str, SlotRule]:
    if not isinstance(data, dict):
        raise ValueError("dtype_rules slots must be an object of slot names")
    slots = {}
    for name, rule in data.items():
        if not isinstance(rule, dict) or set(rule) != {"var", "dtypes"}:
            raise ValueError(f"dtype rule of '{name}' must have 'var' and 'dtypes'")
        var, names = rule["var"], rule["dtypes"]
        if var is not None and not isinstance(var, str):
            raise ValueError(f"dtype rule of '{name}': 'var' must be a name or null")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ValueError(f"dtype rule of '{name}': 'dtypes' must be names")
        slots[name] = SlotRule(var, frozenset(_dtype(n) for n in names))
    return slots
