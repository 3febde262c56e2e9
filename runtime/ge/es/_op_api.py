"""The internal API generated builder modules call (docs/generated-api.md).

A generated module describes its op once, as an ``OpDef`` table that reads
like the spec, and each builder function forwards its arguments to
``OpDef.build`` by IR name. Everything a builder must check (argument types,
dtype constraints, cross-builder use, counts, derived attrs) happens here, so
the rules live in one place and generated code stays small.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ge.es._calls import Deprecated, Renamed, wrap
from ge.es.graph_builder import GraphBuilder, is_default_typed
from ge.es.tensor_holder import TensorHolder
from ge.es.tensor_like import is_tensor_like, literal_array
from ge.graph.attrs import AttrType, check_attr_value
from ge.graph.graph import Graph as IrGraph
from ge.graph.graph import (
    InputKind,
    IrInput,
    IrOutput,
    Node,
    TensorMeta,
    register_ir_defaults,
)
from ge.graph.numpy_dtypes import has_numpy_dtype, kind, to_numpy_dtype
from ge.graph.tensor import Tensor
from ge.graph.types import DataType, dtype_from_spec_name
from ge_ir.dtype_rules import DtypeBinder, DtypeRules, DtypeSpec, Mismatch, SlotRule

__all__ = [
    "OpDef",
    "Input",
    "Output",
    "Attr",
    "Graph",
    "Count",
    "Derive",
    "DtypeFrom",
    "Renamed",
    "Deprecated",
]


class RuleKind(enum.StrEnum):
    """What a count, derive or dtype rule reads (the spec's rule names)."""

    LEN = "len"  # the instances of a dynamic input
    ATTR = "attr"  # an attr's value
    DTYPE = "dtype"  # an input's dtype
    INPUT = "input"  # an input's dtype (an output's dtype rule)
    FIXED = "fixed"  # a dtype name


@dataclass(frozen=True)
class Rule:
    """A count, derive or dtype rule: ``kind(ref)``."""

    kind: RuleKind
    ref: str

    def __str__(self) -> str:
        return f"{self.kind}({self.ref})"


class Count:
    """How many instances a dynamic output has."""

    @staticmethod
    def len(input_name: str) -> Rule:
        return Rule(RuleKind.LEN, input_name)

    @staticmethod
    def attr(attr_name: str) -> Rule:
        return Rule(RuleKind.ATTR, attr_name)


class Derive:
    """How a derived attr is computed from the inputs."""

    @staticmethod
    def len(input_name: str) -> Rule:
        return Rule(RuleKind.LEN, input_name)

    @staticmethod
    def dtype(input_name: str) -> Rule:
        return Rule(RuleKind.DTYPE, input_name)


class DtypeFrom:
    """Where an output's dtype comes from when its constraint cannot say
    (the spec's infer_meta dtype rule), so later builders see it."""

    @staticmethod
    def attr(attr_name: str) -> Rule:
        return Rule(RuleKind.ATTR, attr_name)

    @staticmethod
    def input(input_name: str) -> Rule:
        return Rule(RuleKind.INPUT, input_name)

    @staticmethod
    def fixed(dtype_name: str) -> Rule:
        return Rule(RuleKind.FIXED, dtype_name)


@dataclass(frozen=True)
class Input:
    name: str
    dtype: DtypeSpec
    optional: bool = False
    dynamic: bool = False
    param: str | None = None  # the Python parameter, when renamed

    @property
    def kind(self) -> InputKind:
        if self.dynamic:
            return InputKind.DYNAMIC
        return InputKind.OPTIONAL if self.optional else InputKind.REQUIRED


@dataclass(frozen=True)
class Output:
    name: str
    dtype: DtypeSpec
    dynamic: bool = False
    count: Rule | None = None
    param: str | None = None  # the <name>_num parameter, when there is one
    dtype_from: Rule | None = None


class _NoDefault:
    """The default of an attr that has none (required, derived, or an empty
    tensor or named_attrs)."""

    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT: Any = _NoDefault()


@dataclass(frozen=True)
class Attr:
    name: str
    type: str
    required: bool = False
    derive: Rule | None = None
    param: str | None = None
    # The IR default of an optional attr (Note [Defaults stay off the node]).
    default: Any = NO_DEFAULT


def same_value(a: Any, b: Any) -> bool:
    """Whether two checked attr values are exactly the same: the same type,
    floats equal bit for bit in sign (-0.0 is not 0.0), NaN never equal,
    lists item by item."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    return bool(a == b)


@dataclass(frozen=True)
class Graph:
    name: str
    dynamic: bool = False
    param: str | None = None


# Preferred dtypes for literals, best first (docs/runtime.md, "TensorLike").
_INT_PREFERENCE = (
    DataType.DT_INT64,
    DataType.DT_INT32,
    DataType.DT_INT16,
    DataType.DT_INT8,
    DataType.DT_UINT64,
    DataType.DT_UINT32,
    DataType.DT_UINT16,
    DataType.DT_UINT8,
)
_FLOAT_PREFERENCE = (DataType.DT_FLOAT, DataType.DT_DOUBLE, DataType.DT_FLOAT16)


class OpDef:
    """One op's IR: inputs, outputs, attrs and subgraphs in IR order.

    ``owner_param`` is the builder function's GE builder parameter
    (``owner_graph_builder`` or ``owner_builder``), when it takes one, and
    ``name_param`` its node-name keyword: errors name them as the caller
    wrote them. ``deprecated``, ``renamed`` and ``deprecated_params`` are
    what ``function`` applies to calls (ge/es/_calls.py)."""

    def __init__(
        self,
        op_type: str,
        *,
        owner_param: str | None = None,
        name_param: str = "name",
        type_vars: Mapping[str, DtypeSpec] | None = None,
        inputs: Sequence[Input] = (),
        outputs: Sequence[Output] = (),
        attrs: Sequence[Attr] = (),
        graphs: Sequence[Graph] = (),
        deprecated: str | None = None,
        renamed: Sequence[Renamed] = (),
        deprecated_params: Sequence[Deprecated] = (),
    ) -> None:
        self.op_type = op_type
        self.deprecated = deprecated
        self.renamed = tuple(renamed)
        self.deprecated_params = tuple(deprecated_params)
        self.owner_param = owner_param
        self.name_param = name_param
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        self.attrs = tuple(attrs)
        self.graphs = tuple(graphs)
        # Note [Dtype rules travel with the op] (ge_ir/dtype_rules.py).
        self.rules = DtypeRules.from_table(
            type_vars=type_vars,
            inputs={i.name: i.dtype for i in self.inputs},
            outputs={o.name: o.dtype for o in self.outputs},
        )
        self.input_constraints = self.rules.inputs
        self.output_constraints = self.rules.outputs
        self._attr_types = {a.name: AttrType(a.type) for a in self.attrs}
        # Each default as a checked value (Note [Defaults stay off the node]).
        self._defaults = {
            a.name: check_attr_value(self._attr_types[a.name], a.default)
            for a in self.attrs
            if a.default is not NO_DEFAULT
        }
        register_ir_defaults(
            self.op_type,
            {k: (self._attr_types[k], v) for k, v in self._defaults.items()},
        )

    def function(self, fn: Any) -> Any:
        """The builder function, taking earlier parameter names and warning
        about deprecations (Note [Calls of earlier releases])."""
        return wrap(
            fn, self.op_type, self.deprecated, self.renamed, self.deprecated_params
        )

    # -- errors -----------------------------------------------------------------

    def _type_error(self, what: str, message: str) -> TypeError:
        return TypeError(f"{self.op_type}: {what}: {message}")

    def _value_error(self, what: str, message: str) -> ValueError:
        return ValueError(f"{self.op_type}: {what}: {message}")

    @staticmethod
    def _param(kind: str, item: Input | Attr | Graph | Output, suffix: str = "") -> str:
        return f"{kind} '{item.param or item.name + suffix}'"

    # -- build ----------------------------------------------------------------------

    def build(
        self,
        *,
        inputs: Mapping[str, Any],
        attrs: Mapping[str, Any] | None = None,
        counts: Mapping[str, Any] | None = None,
        graphs: Mapping[str, Any] | None = None,
        owner_builder: GraphBuilder | None = None,
        name: str | None = None,
        result: type | None = None,
    ) -> Any:
        """Add one node of this op to the graph of its inputs' builder.

        Every argument is checked before anything is added to the graph, so a
        call that raises leaves the graph as it was.
        """
        attrs = attrs or {}
        for item in self.inputs:  # argument types first, then where they belong
            self._instances(item, inputs.get(item.name))
        builder = _owning_builder(self, inputs, owner_builder)
        if name is not None:
            where = f"parameter '{self.name_param}'"
            if not isinstance(name, str) or not name:
                raise self._type_error(where, f"expected a non-empty str, got {name!r}")
            if name in builder._names:
                raise self._value_error(
                    where, f"graph already has a node named {name!r}"
                )
        holders, ir_inputs, binder, literals = self._bind_inputs(builder, inputs)
        attr_values = _attr_values(self, attrs, inputs, holders, literals)
        ir_outputs, metas = self._outputs(counts or {}, inputs, attr_values, binder)
        subgraphs = _subgraphs(self, graphs or {})
        for slot, array, dtype in literals:  # all checked: now build constants
            holders[slot] = builder.create_const(Tensor(array, data_type=dtype))
        node = builder._add_node(
            self.op_type,
            name,
            ir_inputs=tuple(ir_inputs),
            inputs=holders,
            ir_outputs=tuple(ir_outputs),
            outputs=metas,
            attrs=_off_default(self, attr_values),
            subgraphs=subgraphs,
            dtype_rules=self.rules,
        )
        for graph_tuple in subgraphs.values():
            for graph in graph_tuple:
                graph.set_owner(node)
        node.ref_outputs.update(_ref_pairs(ir_inputs, ir_outputs))
        return _result(builder, node, ir_outputs, result)

    def _bind_inputs(self, builder: GraphBuilder, inputs: Mapping[str, Any]) -> tuple[
        list[TensorHolder | None],
        list[IrInput],
        DtypeBinder,
        list[tuple[int, np.ndarray, DataType]],
    ]:
        """Input slots (literals as None for now), the IR layout, the type
        variables bound (Note [Type variable kinds] in ge_ir/dtype_rules.py),
        and the constants to make: (slot, values, dtype)."""
        binder = DtypeBinder(self.rules)
        _list_lengths(self, inputs, binder)
        # First the tensors whose dtype is known: they bind type variables;
        # then graph inputs of the default dtype, which bind only where it
        # fits (Note [Inputs of the default dtype] in ge/es/graph_builder.py).
        for soft in (False, True):
            for item in self.inputs:
                value = inputs.get(item.name)
                constraint = self.input_constraints[item.name]
                values = self._instances(item, value)
                for i, each in enumerate(values):
                    if not isinstance(each, TensorHolder) or each.index < 0:
                        continue
                    dtype = each.data_type
                    if dtype is DataType.DT_UNDEFINED:
                        continue
                    if is_default_typed(each.node) is not soft:
                        continue
                    where = self._param("input", item) + (
                        f"[{i}]" if item.dynamic else ""
                    )
                    mismatch = binder.bind(constraint, i, dtype, where)
                    if not soft:
                        self._check(mismatch)
        holders: list[TensorHolder | None] = []
        ir_inputs: list[IrInput] = []
        literals: list[tuple[int, np.ndarray, DataType]] = []
        for item in self.inputs:
            values = self._instances(item, inputs.get(item.name))
            constraint = self.input_constraints[item.name]
            for i, each in enumerate(values):
                where = self._param("input", item) + (f"[{i}]" if item.dynamic else "")
                if each is None:
                    holders.append(None)
                    continue
                if isinstance(each, TensorHolder):
                    if each.index < 0:
                        raise self._value_error(
                            where, f"node {each.name!r} has no data output"
                        )
                    holders.append(each)
                    continue
                array, dtype = self._literal(where, each, constraint, binder, i)
                literals.append((len(holders), array, dtype))
                holders.append(None)
            count = len(values) if item.dynamic else 1
            ir_inputs.append(IrInput(item.name, item.kind, count))
        return holders, ir_inputs, binder, literals

    def _instances(self, item: Input, value: Any) -> list[Any]:
        where = self._param("input", item)
        if item.dynamic:
            if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
                raise self._type_error(
                    where, f"expected a list of tensors, got {type(value).__name__}"
                )
            for i, each in enumerate(value):
                if each is None:
                    raise self._type_error(f"{where}[{i}]", "got None")
                self._check_tensor_arg(f"{where}[{i}]", each)
            return list(value)
        if value is None:
            if not item.optional:
                raise self._type_error(where, "is required, got None")
            return [None]
        self._check_tensor_arg(where, value)
        return [value]

    def _check_tensor_arg(self, where: str, value: Any) -> None:
        if isinstance(value, TensorHolder):
            return
        if not is_tensor_like(value):
            raise self._type_error(
                where,
                f"expected a TensorHolder or a number/list, got {type(value).__name__}",
            )

    def _check(self, mismatch: Mismatch | None) -> None:
        """A dtype rule broken, as the builder's ValueError."""
        if mismatch is not None:
            raise self._value_error(mismatch.where, mismatch.detail)

    def _literal(
        self,
        where: str,
        value: Any,
        constraint: SlotRule,
        binder: DtypeBinder,
        index: int,
    ) -> tuple[np.ndarray, DataType]:
        """The values and dtype of the constant a literal input becomes."""
        try:
            array = literal_array(value)
        except ValueError as exc:
            raise self._value_error(where, str(exc)) from None
        dtype = binder.bound(constraint, index)
        if dtype is None:
            dtype = _literal_dtype(array, constraint.allowed)
            if dtype is None:
                raise self._value_error(
                    where,
                    f"cannot make a constant of {array.dtype} values: "
                    f"{constraint.words()} allowed",
                )
            self._check(binder.bind(constraint, index, dtype, where))
        if not has_numpy_dtype(dtype):
            raise self._value_error(
                where, f"cannot make a {dtype.spec_name} constant from Python numbers"
            )
        target = to_numpy_dtype(dtype)
        if array.dtype.kind == "f" and target.kind in "iu":
            if not np.all(np.isfinite(array)) or not np.all(array == np.round(array)):
                raise self._value_error(
                    where,
                    f"{value!r} is not a whole number, but the input is {dtype.spec_name}",
                )
        if target.kind in "iu" and array.size:
            info = np.iinfo(target)
            if array.min() < info.min or array.max() > info.max:
                raise self._value_error(
                    where, f"{value!r} does not fit in {dtype.spec_name}"
                )
        if kind(target) == "f" and array.size and array.dtype.kind in "iuf":
            with np.errstate(over="ignore"):
                cast = array.astype(target)
            if np.any(np.isinf(cast) & np.isfinite(array)):
                raise self._value_error(
                    where, f"{value!r} does not fit in {dtype.spec_name}"
                )
        return array, dtype

    def _slot_dtypes(
        self,
        name: str,
        inputs: Mapping[str, Any],
        holders: list[TensorHolder | None],
        literals: list[tuple[int, np.ndarray, DataType]],
    ) -> list[DataType]:
        """The dtype of every instance of input ``name`` (constants by the
        dtype they will have)."""
        planned = {slot: dtype for slot, _, dtype in literals}
        position = 0
        for item in self.inputs:
            width = len(inputs[item.name]) if item.dynamic else 1
            if item.name == name:
                dtypes = []
                for slot in range(position, position + width):
                    holder = holders[slot]
                    if holder is not None:
                        dtypes.append(holder.data_type)
                    elif slot in planned:
                        dtypes.append(planned[slot])
                return dtypes
            position += width
        return []

    def _derive(
        self,
        item: Attr,
        inputs: Mapping[str, Any],
        holders: list[TensorHolder | None],
        literals: list[tuple[int, np.ndarray, DataType]],
    ) -> Any:
        rule = item.derive
        assert rule is not None
        value: Any = inputs.get(rule.ref)
        if rule.kind is RuleKind.LEN:
            return len(value)
        dtypes = set(self._slot_dtypes(rule.ref, inputs, holders, literals))
        if len(dtypes) > 1:
            raise self._value_error(
                f"attr '{item.name}'",
                f"is derived as {rule}, but the instances of '{rule.ref}' differ in dtype",
            )
        if not dtypes or DataType.DT_UNDEFINED in dtypes:
            raise self._value_error(
                f"attr '{item.name}'",
                f"is derived as {rule}, but the dtype of input '{rule.ref}' is not "
                "known yet; call set_data_type on it",
            )
        return dtypes.pop()

    def _outputs(
        self,
        counts: Mapping[str, Any],
        inputs: Mapping[str, Any],
        attr_values: Mapping[str, tuple[AttrType, Any]],
        binder: DtypeBinder,
    ) -> tuple[list[IrOutput], list[TensorMeta]]:
        ir_outputs: list[IrOutput] = []
        metas: list[TensorMeta] = []
        for item in self.outputs:
            count = 1
            if item.dynamic:
                count = _instance_count(self, item, counts, inputs, attr_values)
            constraint = self.output_constraints[item.name]
            if constraint.per_instance and constraint.var is not None:
                dtypes = _list_dtypes(self, item, count, binder)
            else:
                dtype = DataType.DT_UNDEFINED
                if item.dtype_from is not None:
                    dtype = self._dtype_from(item, inputs, attr_values, binder)
                elif constraint.var is not None and constraint.var in (
                    self.rules.promotions
                ):
                    dtype = self._promoted(item, constraint.var, binder)
                elif (known := binder.bound(constraint)) is not None:
                    dtype = known
                elif len(constraint.allowed) == 1:
                    (dtype,) = constraint.allowed
                dtypes = [dtype] * count
            ir_outputs.append(IrOutput(item.name, item.dynamic, count))
            metas.extend(TensorMeta(None, dtype) for dtype in dtypes)
        return ir_outputs, metas

    def _dtype_from(
        self,
        item: Output,
        inputs: Mapping[str, Any],
        attr_values: Mapping[str, tuple[AttrType, Any]],
        binder: DtypeBinder,
    ) -> DataType:
        """The output's dtype by its rule (DT_UNDEFINED when not known yet);
        a dtype its constraint does not allow is refused here, naming the
        attr or input it came from."""
        rule = item.dtype_from
        assert rule is not None
        dtype = DataType.DT_UNDEFINED
        if rule.kind is RuleKind.FIXED:
            return dtype_from_spec_name(rule.ref)
        if rule.kind is RuleKind.ATTR:
            value = attr_values.get(rule.ref)
            where = f"attr '{rule.ref}'"
            if value is not None and isinstance(value[1], DataType):
                dtype = value[1]
        else:
            where = f"input '{rule.ref}'"
            holder = inputs.get(rule.ref)
            known = binder.bound(self.input_constraints[rule.ref])
            if known is not None:
                dtype = known
            elif isinstance(holder, TensorHolder):
                dtype = holder.data_type
        allowed = self.output_constraints[item.name]
        if dtype is not DataType.DT_UNDEFINED and dtype not in allowed.allowed:
            raise self._value_error(
                where,
                f"gives output '{item.name}' dtype {dtype.spec_name}, which is not "
                f"one of {allowed.words()}",
            )
        return dtype

    def _promoted(self, item: Output, var: str, binder: DtypeBinder) -> DataType:
        """A promoted variable's dtype, once every variable it promotes is
        bound; DT_UNDEFINED until then."""
        result = binder.promote(var, f"output '{item.name}'")
        if isinstance(result, Mismatch):
            self._check(result)
        return result if isinstance(result, DataType) else DataType.DT_UNDEFINED


# -- type variables of a list (Note [Type variable kinds] in
# ge_ir/dtype_rules.py) ----------------------------------------------------------


def _list_lengths(op: OpDef, inputs: Mapping[str, Any], binder: DtypeBinder) -> None:
    """Dynamic inputs that share a list variable have as many instances
    (their dtypes are compared position by position)."""
    for item in op.inputs:
        constraint = op.input_constraints[item.name]
        if constraint.per_instance and constraint.var is not None:
            count = len(inputs[item.name])
            where = op._param("input", item)
            op._check(binder.count(constraint.var, count, where))


def _list_dtypes(
    op: OpDef, item: Output, count: int, binder: DtypeBinder
) -> list[DataType]:
    """A list variable's output: instance i takes the dtype bound at
    position i; it has as many instances as the inputs of its variable."""
    rule = op.output_constraints[item.name]
    assert rule.var is not None
    op._check(binder.count(rule.var, count, f"output '{item.name}'", record=False))
    dtypes = [binder.bound(rule, i) for i in range(count)]
    return [DataType.DT_UNDEFINED if d is None else d for d in dtypes]


# -- the parts of a build that need no dtype rule --------------------------------


def _attr_values(
    op: OpDef,
    attrs: Mapping[str, Any],
    inputs: Mapping[str, Any],
    holders: list[TensorHolder | None],
    literals: list[tuple[int, np.ndarray, DataType]],
) -> dict[str, tuple[AttrType, Any]]:
    """Every attr the node stores: given values checked, derived ones
    computed."""
    values: dict[str, tuple[AttrType, Any]] = {}
    for item in op.attrs:
        kind = op._attr_types[item.name]
        where = op._param("attr", item)
        if item.derive is not None:
            values[item.name] = (kind, op._derive(item, inputs, holders, literals))
            continue
        value = attrs.get(item.name)
        if value is None and kind in (AttrType.TENSOR, AttrType.NAMED_ATTRS):
            if item.required:
                raise op._type_error(where, "is required, got None")
            continue  # absent: the empty default
        try:
            values[item.name] = (kind, check_attr_value(kind, value))
        except TypeError as exc:
            raise op._type_error(where, str(exc)) from None
        except ValueError as exc:
            raise op._value_error(where, str(exc)) from None
    return values


def _off_default(
    op: OpDef, values: Mapping[str, tuple[AttrType, Any]]
) -> dict[str, tuple[AttrType, Any]]:
    """The attrs the node stores: every value but an optional attr's that is
    exactly its default.

    Note [Defaults stay off the node]: GE's forward compatibility rests on a
    builder writing an optional attr only when it differs from its IR
    default (gen_esb's generated code does the same), so a graph built
    against a newer op, with the new attr left at its default, still loads
    where the op is older, and a graph written before an optional attr was
    added reads the same as one written after. Whoever reads the node
    (infer, the compiler, kernels) takes the default from the op's
    registered prototype when the attr is absent. The builder itself uses
    the full values (counts, infer) before leaving these off."""
    return {
        name: value
        for name, value in values.items()
        if name not in op._defaults or not same_value(value[1], op._defaults[name])
    }


def _instance_count(
    op: OpDef,
    item: Output,
    counts: Mapping[str, Any],
    inputs: Mapping[str, Any],
    attr_values: Mapping[str, tuple[AttrType, Any]],
) -> int:
    """How many instances dynamic output ``item`` has: its count parameter,
    or its count rule."""
    if item.count is None:
        value = counts.get(item.name)
        where = op._param("parameter", item, "_num")
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise op._type_error(where, f"expected int, got {type(value).__name__}")
        if value < 0:
            raise op._value_error(where, f"must be >= 0, got {value}")
        return int(value)
    if item.count.kind is RuleKind.LEN:
        return len(inputs[item.count.ref])
    value = attr_values[item.count.ref][1]
    if value < 0:
        raise op._value_error(
            f"attr '{item.count.ref}'",
            f"gives output '{item.name}' its count and must be >= 0, got {value}",
        )
    return int(value)


def _owning_builder(
    op: OpDef, inputs: Mapping[str, Any], owner_builder: GraphBuilder | None
) -> GraphBuilder:
    """The one builder whose graph gets the node: the inputs' (and
    ``owner_builder``'s) builder, all the same."""
    found: tuple[str, GraphBuilder] | None = None
    if owner_builder is not None:
        param = op.owner_param or "owner_builder"
        if not isinstance(owner_builder, GraphBuilder):
            raise op._type_error(
                f"parameter '{param}'",
                f"expected GraphBuilder, got {type(owner_builder).__name__}",
            )
        found = (param, owner_builder)
    for item in op.inputs:
        value = inputs.get(item.name)
        values = value if item.dynamic and isinstance(value, (list, tuple)) else [value]
        for i, each in enumerate(values):
            if not isinstance(each, TensorHolder):
                continue
            where = op._param("input", item) + (f"[{i}]" if item.dynamic else "")
            owner = each.get_owner_builder()
            if found is None:
                found = (where, owner)
            elif owner is not found[1]:
                raise op._value_error(
                    where,
                    f"belongs to graph builder {owner.name!r}, but "
                    f"{found[0]} to {found[1].name!r}; one node takes tensors "
                    "of one builder",
                )
    if found is None:
        raise op._value_error(
            "inputs",
            "cannot tell which graph builder to use: pass at least one "
            "TensorHolder input"
            + (f" or {op.owner_param}" if op.owner_param is not None else ""),
        )
    found[1]._check_usable()
    return found[1]


def _subgraphs(op: OpDef, graphs: Mapping[str, Any]) -> dict[str, tuple[IrGraph, ...]]:
    """The subgraph arguments, checked: each a Graph that is no node's
    subgraph yet, passed once."""
    result: dict[str, tuple[IrGraph, ...]] = {}
    taken: dict[int, str] = {}  # a graph is the subgraph of one parameter
    for item in op.graphs:
        where = op._param("subgraph", item)
        value: Any = graphs.get(item.name)
        if item.dynamic and (
            isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple))
        ):
            raise op._type_error(
                where, f"expected a list of Graph, got {type(value).__name__}"
            )
        values: list[Any] = list(value) if item.dynamic else [value]
        for i, graph in enumerate(values):
            label = where + (f"[{i}]" if item.dynamic else "")
            if not isinstance(graph, IrGraph):
                raise op._type_error(
                    label, f"expected Graph, got {type(graph).__name__}"
                )
            if graph.owner is not None:
                raise op._value_error(
                    label,
                    f"graph {graph.name!r} is already a subgraph of node "
                    f"{graph.owner.name!r}",
                )
            if id(graph) in taken:
                raise op._value_error(
                    label,
                    f"graph {graph.name!r} is also passed as {taken[id(graph)]}",
                )
            taken[id(graph)] = label
        result[item.name] = tuple(values)
    return result


def _ref_pairs(
    ir_inputs: Sequence[IrInput], ir_outputs: Sequence[IrOutput]
) -> dict[int, int]:
    """GE's ref pairs: output instance -> input slot, for every output named
    like an input of the same dynamic-ness (instance by instance for a
    dynamic pair). A dynamic output named like a single input is no pair:
    GE names its instances x0, x1, ... (W907)."""
    starts: dict[str, tuple[int, int, bool]] = {}
    slot = 0
    for ir in ir_inputs:
        starts[ir.name] = (slot, ir.count, ir.kind is InputKind.DYNAMIC)
        slot += ir.count
    pairs: dict[int, int] = {}
    out = 0
    for output in ir_outputs:
        same = starts.get(output.name)
        if same is not None and same[2] == output.dynamic:
            first, count, _ = same
            for i in range(min(count, output.count)):
                pairs[out + i] = first + i
        out += output.count
    return pairs


def _result(
    builder: GraphBuilder,
    node: Node,
    ir_outputs: list[IrOutput],
    result: type | None,
) -> Any:
    """What the builder function returns: a holder per output (a list for
    a dynamic one), as ``result`` when the op has several."""
    if not ir_outputs:
        return builder._holder(node, -1)
    values: list[Any] = []
    start = 0
    for ir in ir_outputs:
        holders = [builder._holder(node, start + i) for i in range(ir.count)]
        values.append(holders if ir.dynamic else holders[0])
        start += ir.count
    if result is not None:
        return result(*values)
    return values[0]


def _literal_dtype(array: np.ndarray, allowed: frozenset[DataType]) -> DataType | None:
    """The dtype a literal becomes: the kind of its values, best fit first."""
    if not allowed:
        return None
    if array.dtype.kind == "b":
        return DataType.DT_BOOL if DataType.DT_BOOL in allowed else None
    if array.dtype.kind in "iu":
        for dtype in _INT_PREFERENCE + _FLOAT_PREFERENCE:
            if dtype in allowed:
                return dtype
        return None
    if array.dtype.kind == "f":
        for dtype in _FLOAT_PREFERENCE:
            if dtype in allowed:
                return dtype
        whole = np.all(np.isfinite(array)) and np.all(array == np.round(array))
        if whole:
            for dtype in _INT_PREFERENCE:
                if dtype in allowed:
                    return dtype
    return None
