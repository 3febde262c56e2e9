"""An op's dtype rules: which dtypes each input and output allows, and
which of them share a type variable (GE's ``DATATYPE(T, TensorType(...))``,
``ListTensorType(...)`` and ``Promote({...})``).

Note [Dtype rules travel with the op]: the rules are a value of the op, not
of the module that happened to build a node. A generated builder checks
them when a node is added and records them on the node (so a graph file
carries them); a generated prototype registers them with ``register_op``
(so a graph however made or loaded meets them again). At compile the engine
checks every node against its prototype's rules, and refuses a node whose
recorded rules differ from its prototype's: the two declarations GE never
compares, compared. One class, here, says what the rules are, how they are
written in a graph file and how a node's dtypes are checked against them.

Note [Type variable kinds]: a type variable binds one dtype for every
instance of every slot that uses it (TensorType); a list variable
(ListTensorType, ``SlotRule.per_instance``) binds one dtype per instance
position, so the instances of a dynamic slot may differ while the slots
that share the variable agree position by position and in count; a
promoted variable (Promote, ``DtypeRules.promotions``) is the promotion of
the dtypes bound to the variables it lists (Note [Type promotion], in the
promotion module of ge_ir).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ge_ir.promotion import PROMOTED_DTYPES, promote, promote_pair
from ge_ir.types import NAMED_TENSOR_TYPES, DataType, dtype_from_spec_name

__all__ = [
    "DtypeBinder",
    "DtypeRules",
    "DtypeSpec",
    "Mismatch",
    "SlotDtype",
    "SlotRule",
]

# How a table spells a slot's or a type variable's dtypes, as the spec does:
# a type variable's name, a named set's name, one dtype's spec name, a tuple
# of dtype and named-set names (their union); for a type variable also
# {"list": <one of those>} (ListTensorType) or {"promote": (<variables>)}.
DtypeSpec = str | tuple[str, ...] | Mapping[str, Any]


@dataclass(frozen=True)
class SlotRule:
    """One slot: the dtypes it allows (empty: any), the type variable it
    shares with other slots, if any, and whether that variable binds each
    instance on its own (a list variable: Note [Type variable kinds])."""

    var: str | None
    allowed: frozenset[DataType]
    per_instance: bool = False

    def words(self) -> str:
        """``T (float16, float32)`` or ``float16, float32``."""
        names = ", ".join(d.spec_name for d in sorted(self.allowed))
        return f"{self.var} ({names})" if self.var else names

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "var": self.var,
            "dtypes": [d.spec_name for d in sorted(self.allowed)],
        }
        if self.per_instance:
            data["list"] = True
        return data


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
    """Every input's and output's rule, by slot name, and the promoted type
    variables: name -> the variables it promotes, in order."""

    inputs: Mapping[str, SlotRule] = field(default_factory=dict)
    outputs: Mapping[str, SlotRule] = field(default_factory=dict)
    promotions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def __hash__(self) -> int:
        return hash(
            (
                tuple(self.inputs.items()),
                tuple(self.outputs.items()),
                tuple(self.promotions.items()),
            )
        )

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
        variables: dict[str, tuple[frozenset[DataType], bool]] = {}
        promotions: dict[str, tuple[str, ...]] = {}
        for name, spec in (type_vars or {}).items():
            if isinstance(spec, Mapping) and set(spec) == {"promote"}:
                promotions[name] = tuple(spec["promote"])
            elif isinstance(spec, Mapping) and set(spec) == {"list"}:
                variables[name] = (_dtype_set(spec["list"]), True)
            elif isinstance(spec, Mapping):
                raise ValueError(f"type variable {name}: {dict(spec)!r} is no range")
            else:
                variables[name] = (_dtype_set(spec), False)
        for name, sources in promotions.items():
            unknown = [s for s in sources if s not in variables]
            if unknown:
                raise ValueError(
                    f"type variable {name} promotes {unknown[0]!r}, which is not a "
                    "type variable of a TensorType"
                )
            variables[name] = (
                promotion_image([variables[s][0] for s in sources]),
                False,
            )

        def rule(spec: DtypeSpec) -> SlotRule:
            if isinstance(spec, str) and spec in variables:
                allowed, per_instance = variables[spec]
                return SlotRule(spec, allowed, per_instance)
            if isinstance(spec, Mapping):
                raise ValueError(f"{dict(spec)!r} is a type variable's range")
            return SlotRule(None, _dtype_set(spec))

        return cls(
            {name: rule(spec) for name, spec in (inputs or {}).items()},
            {name: rule(spec) for name, spec in (outputs or {}).items()},
            promotions,
        )

    # -- graph files ---------------------------------------------------------------

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "inputs": {name: r.as_json() for name, r in self.inputs.items()},
            "outputs": {name: r.as_json() for name, r in self.outputs.items()},
        }
        if self.promotions:
            data["promote"] = {name: list(s) for name, s in self.promotions.items()}
        return data

    @classmethod
    def from_json(cls, data: Any) -> DtypeRules:
        """The rules of a graph file's node; ValueError says what is wrong."""
        if (
            not isinstance(data, dict)
            or not {"inputs", "outputs"} <= set(data)
            or (set(data) - {"inputs", "outputs", "promote"})
        ):
            raise ValueError(
                "dtype_rules must have exactly 'inputs' and 'outputs' (and "
                "'promote' when a type variable is promoted)"
            )
        promotions = _promotions_from_json(data.get("promote", {}))
        return cls(
            _slots_from_json(data["inputs"]),
            _slots_from_json(data["outputs"]),
            promotions,
        )

    # -- checking ----------------------------------------------------------------

    def violation(self, dtypes: Iterable[SlotDtype]) -> str | None:
        """The first way ``dtypes`` break the rules (a sentence naming the
        slot), or None. DT_UNDEFINED (not known yet) passes."""
        mismatch = self.mismatch(dtypes)
        return None if mismatch is None else mismatch.sentence

    def mismatch(self, dtypes: Iterable[SlotDtype]) -> Mismatch | None:
        """``violation``'s Mismatch: every slot bound in turn, then the
        instance counts of list variables, then the promotions."""
        binder = DtypeBinder(self)
        seen: dict[tuple[str, str], int] = {}  # instances of list-variable slots
        for slot in dtypes:
            rule = (self.inputs if slot.kind == "input" else self.outputs).get(
                slot.name
            )
            if rule is None:
                continue
            if rule.per_instance and rule.var is not None:
                key = (slot.kind, slot.name)
                seen[key] = seen.get(key, 0) + 1
            if slot.dtype is DataType.DT_UNDEFINED:
                continue
            mismatch = binder.bind(rule, slot.index, slot.dtype, slot.where())
            if mismatch is not None:
                return mismatch
        for (kind, name), count in seen.items():
            var = (self.inputs if kind == "input" else self.outputs)[name].var
            assert var is not None
            mismatch = binder.count(var, count, _slot_words(kind, name))
            if mismatch is not None:
                return mismatch
        return binder.promotions()

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
                        f"{_rule_words(a)} here but {_rule_words(b)} there"
                    )
        for var in sorted(set(self.promotions) | set(other.promotions)):
            a_sources, b_sources = self.promotions.get(var), other.promotions.get(var)
            if a_sources != b_sources:
                return (
                    f"type variable {var} promotes {list(a_sources or ())} here but "
                    f"{list(b_sources or ())} there"
                )
        return None


@dataclass(frozen=True)
class Mismatch:
    """One way a node's dtypes break its rules, at ``where`` (a slot or an
    argument, as the caller names it), in the two voices the runtime speaks
    it: ``detail`` follows the argument's name in a builder's error
    (``input 'x': dtype int32 is not allowed; ...``), ``sentence`` is the
    compiler's (``input 'x' is int32; ...``)."""

    where: str
    detail: str
    sentence: str


class DtypeBinder:
    """The type variables of one node, bound slot by slot: the one walk of
    Note [Type variable kinds]. A builder binds its arguments as it reads
    them (and asks what a variable is bound to, for a literal's or an
    output's dtype); the compiler binds every slot of a node
    (``DtypeRules.mismatch``). Each check returns the Mismatch it finds, or
    None; ``where`` is how the caller names the slot."""

    __slots__ = ("rules", "_bound", "_counts")

    def __init__(self, rules: DtypeRules) -> None:
        self.rules = rules
        # binding key -> (dtype, where): the first slot that bound it
        self._bound: dict[Hashable, tuple[DataType, str]] = {}
        # list variable -> (instance count, where): the first slot counted
        self._counts: dict[str, tuple[int, str]] = {}

    @staticmethod
    def key(rule: SlotRule, index: int) -> Hashable | None:
        """What instance ``index`` of a slot binds: its type variable, by
        position for a list variable; None for a slot without one."""
        if rule.var is None:
            return None
        return (rule.var, index) if rule.per_instance else rule.var

    def bound(self, rule: SlotRule, index: int = -1) -> DataType | None:
        """The dtype instance ``index`` of a slot of ``rule`` is bound to
        by an earlier slot, if any."""
        key = self.key(rule, index)
        first = None if key is None else self._bound.get(key)
        return None if first is None else first[0]

    def bind(
        self, rule: SlotRule, index: int, dtype: DataType, where: str
    ) -> Mismatch | None:
        """Instance ``index`` of a slot of ``rule`` has ``dtype``: allowed,
        and the dtype of its type variable (the first slot binds it)."""
        if rule.allowed and dtype not in rule.allowed:
            return Mismatch(
                where,
                f"dtype {dtype.spec_name} is not allowed; {rule.words()} allowed",
                f"{where} is {dtype.spec_name}; {rule.words()} allowed",
            )
        key = self.key(rule, index)
        if key is None:
            return None
        first_dtype, first_where = self._bound.setdefault(key, (dtype, where))
        if first_dtype is dtype:
            return None
        return Mismatch(
            where,
            f"dtype {dtype.spec_name} differs from {first_where} "
            f"({first_dtype.spec_name}); both are type variable {rule.var}",
            f"{where} is {dtype.spec_name} but {first_where} is "
            f"{first_dtype.spec_name}; both are type variable {rule.var}"
            + (" at one position" if rule.per_instance else ""),
        )

    def count(
        self, var: str, count: int, where: str, *, record: bool = True
    ) -> Mismatch | None:
        """A slot of list variable ``var`` has ``count`` instances: as many
        as the first slot counted (``record=False``: compared, not counted)."""
        first = self._counts.get(var)
        if first is None:
            if record:
                self._counts[var] = (count, where)
            return None
        first_count, first_where = first
        if first_count == count:
            return None
        detail = (
            f"has {count} instance(s) but {first_where} has {first_count}; both "
            f"are list type variable {var}"
        )
        return Mismatch(where, detail, f"{where} {detail}")

    def promote(self, var: str, where: str) -> DataType | Mismatch | None:
        """Promoted variable ``var``'s dtype (Note [Type promotion] in
        ge_ir/promotion.py): None until every variable it promotes is
        bound; a Mismatch at ``where`` when they have no promoted dtype."""
        sources = self.rules.promotions[var]
        known = [self._bound.get(s) for s in sources]
        dtypes = [k[0] for k in known if k is not None]
        if len(dtypes) < len(sources):
            return None
        result = promote(dtypes)
        if result is not None:
            return result
        detail = (
            f"type variable {var} promotes {_promotion_words(sources, dtypes)}, "
            "which have no promoted dtype"
        )
        return Mismatch(where, detail, f"{where}: {detail}")

    def promotions(self) -> Mismatch | None:
        """Every slot of a promoted variable has the promotion of the dtypes
        its variables are bound to, where they are all known (the first slot
        of the variable stands for the rest, which ``bind`` compared)."""
        for var, sources in self.rules.promotions.items():
            first = self._bound.get(var)
            if first is None:
                continue
            dtype, where = first
            result = self.promote(var, where)
            if isinstance(result, Mismatch):
                return result
            if result is not None and dtype is not result:
                dtypes = [self._bound[s][0] for s in sources]
                detail = (
                    f"is {dtype.spec_name}, but type variable {var} promotes "
                    f"{_promotion_words(sources, dtypes)} to {result.spec_name}"
                )
                return Mismatch(where, detail, f"{where} {detail}")
        return None


def _promotion_words(sources: Iterable[str], dtypes: Iterable[DataType]) -> str:
    return ", ".join(
        f"{s} ({d.spec_name})" for s, d in zip(sources, dtypes, strict=True)
    )


def _slot_words(kind: str, name: str) -> str:
    """A slot as the compiler names it: ``input 'x'``."""
    return SlotDtype(kind, name, -1, DataType.DT_UNDEFINED).where()


def promotion_image(sets: Iterable[frozenset[DataType]]) -> frozenset[DataType]:
    """Every dtype a promotion of one member of each set gives (GE's Promote
    of type variables bound to these sets; an empty set allows any dtype
    the promotion table knows)."""
    image: set[DataType] | None = None
    for members in sets:
        options = members or PROMOTED_DTYPES
        if image is None:
            image = set(options)
            continue
        image = {
            result
            for left in image
            for right in options
            if (result := promote_pair(left, right)) is not None
        }
    return frozenset(image or ())


def _rule_words(rule: SlotRule | None) -> str:
    if rule is None:
        return "any dtype"
    return rule.words() + (" per instance" if rule.per_instance else "")


def _dtype(name: str) -> DataType:
    try:
        return dtype_from_spec_name(name)
    except KeyError:
        raise ValueError(f"{name!r} is not a dtype name") from None


def _dtype_set(spec: DtypeSpec) -> frozenset[DataType]:
    """A set as a table spells it: a named set, a dtype name, or a tuple of
    dtype and named-set names (their union)."""
    if isinstance(spec, Mapping):
        raise ValueError(f"{dict(spec)!r} is not a dtype set")
    if isinstance(spec, tuple):
        return frozenset().union(*(_dtype_set(n) for n in spec))
    if spec in NAMED_TENSOR_TYPES:
        return NAMED_TENSOR_TYPES[spec].types
    return frozenset({_dtype(spec)})


def _slots_from_json(data: Any) -> dict[str, SlotRule]:
    if not isinstance(data, dict):
        raise ValueError("dtype_rules slots must be an object of slot names")
    slots = {}
    for name, rule in data.items():
        if (
            not isinstance(rule, dict)
            or not {"var", "dtypes"} <= set(rule)
            or (set(rule) - {"var", "dtypes", "list"})
        ):
            raise ValueError(
                f"dtype rule of '{name}' must have 'var' and 'dtypes' (and 'list')"
            )
        var, names = rule["var"], rule["dtypes"]
        if var is not None and not isinstance(var, str):
            raise ValueError(f"dtype rule of '{name}': 'var' must be a name or null")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ValueError(f"dtype rule of '{name}': 'dtypes' must be names")
        per_instance = rule.get("list", False)
        if per_instance is not True and "list" in rule:
            raise ValueError(f"dtype rule of '{name}': 'list' must be true")
        if per_instance and var is None:
            raise ValueError(f"dtype rule of '{name}': a list rule needs a 'var'")
        slots[name] = SlotRule(var, frozenset(_dtype(n) for n in names), per_instance)
    return slots


def _promotions_from_json(data: Any) -> dict[str, tuple[str, ...]]:
    if not isinstance(data, dict):
        raise ValueError("dtype_rules 'promote' must be an object of type variables")
    promotions = {}
    for var, sources in data.items():
        if (
            not isinstance(sources, list)
            or len(sources) < 2
            or not all(isinstance(s, str) for s in sources)
        ):
            raise ValueError(
                f"dtype_rules promote of '{var}' must list two or more type variables"
            )
        promotions[var] = tuple(sources)
    return promotions
