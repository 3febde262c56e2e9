"""An op's dtype constraints as its tables spell them: the builder's op table
and the prototype's ``DtypeRules.from_table`` (Note [Dtype rules travel with
the op]) write each one as the spec does, by name, as a union of items, as a
list, or as a promotion."""

from __future__ import annotations

from dataclasses import dataclass

from gen_ops.spec.model import DtypeConstraint, DtypeSet, OpSpec, TypeVar, TypeVarKind


@dataclass(frozen=True)
class DtypeRef:
    """A dtype constraint, or a type variable's range, in the op table, by
    ``form`` (the table spells them as the spec does): ``name`` (a type
    variable or a named set), ``items`` (dtype and named-set names: their
    union), ``list`` (``{"list": <inner>}``) or ``promote`` (``{"promote":
    <items>}``, type variables)."""

    form: str
    name: str | None = None
    items: tuple[str, ...] = ()
    inner: DtypeRef | None = None


@dataclass(frozen=True)
class TableTypeVar:
    name: str
    dtypes: DtypeRef


@dataclass(frozen=True)
class DtypeTable:
    """An op's dtype rules as a table spells them (the type variables, and
    each input's and output's constraint), for the prototype's
    ``DtypeRules.from_table`` (Note [Dtype rules travel with the op])."""

    type_vars: tuple[TableTypeVar, ...]
    inputs: tuple[tuple[str, DtypeRef], ...]
    outputs: tuple[tuple[str, DtypeRef], ...]


def type_var_entries(op: OpSpec) -> tuple[TableTypeVar, ...]:
    return tuple(TableTypeVar(v.name, _range_ref(v)) for v in op.type_vars)


def _range_ref(var: TypeVar) -> DtypeRef:
    if var.kind is TypeVarKind.PROMOTE:
        return DtypeRef("promote", items=var.promote)
    inner = _set_ref(var.written)
    return DtypeRef("list", inner=inner) if var.kind is TypeVarKind.LIST else inner


def _set_ref(written: DtypeSet) -> DtypeRef:
    if written.set_name:
        return DtypeRef("name", written.set_name)
    return DtypeRef("items", items=written.items)


def dtype_table(op: OpSpec) -> DtypeTable:
    return DtypeTable(
        type_vars=type_var_entries(op),
        inputs=tuple((i.name, dtype_ref(i.dtype)) for i in op.inputs),
        outputs=tuple((o.name, dtype_ref(o.dtype)) for o in op.outputs),
    )


def dtype_ref(dtype: DtypeConstraint) -> DtypeRef:
    """A constraint as the table spells it: its type variable, or its set."""
    if dtype.var is not None:
        return DtypeRef("name", dtype.var.name)
    assert dtype.written is not None
    return _set_ref(dtype.written)
