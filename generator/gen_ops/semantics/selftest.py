"""``reference:``, ``samples:`` and ``tolerance:``: what an op computes and
how gen-ops test draws its cases (E621-E625; docs/opcheck.md).

What a spec can check without running anything:

- the reference parses as a Python expression whose free names are the
  op's inputs and attrs or the few helpers it may use, or is a
  ``module:function`` (E621);
- every shape rule names inputs of the op, gives each required input, and
  writes dims that parse and read only letters and int attrs (E622);
- every attr grid names an attr and holds values of its type (E623);
- tolerances and special values name dtypes the op takes and values the
  sampler knows (E624);
- every error case names inputs, dtypes and attrs of the op (E625).
"""

from __future__ import annotations

import ast
import builtins
import re
from typing import Any

from ge_ir.attrs import AttrType, check_attr_value
from ge_ir.types import dtype_from_spec_name
from gen_ops.base.diagnostics import suggest
from gen_ops.semantics.context import Checker
from gen_ops.spec.model import (
    Attr,
    ErrorCase,
    Input,
    InputKind,
    Output,
    Reference,
    SampleDims,
    Samples,
    SampleShape,
    SampleValues,
    Subgraph,
    Tolerance,
)
from gen_ops.spec.source import YamlPath

# Names a reference expression may use besides the op's inputs and attrs.
HELPERS = frozenset(
    {"np", "numpy", "math", "abs", "min", "max", "sum", "len", "tuple", "list"}
    | {"int", "float", "bool", "range", "zip", "round", "dtype", "where"}
)
SPECIAL_VALUES = frozenset(
    {"0", "-0.0", "inf", "-inf", "nan", "denormal", "min", "max", "one", "-one"}
)
_FUNCTION = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*:[A-Za-z_][A-Za-z0-9_]*")
_INT_ATTRS = (AttrType.INT, AttrType.BOOL)  # a bool reads as 0 or 1


def _free_names(tree: ast.AST) -> set[str]:
    """Names the expression reads that it does not bind itself."""
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.comprehension):
            bound |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        if isinstance(node, ast.Lambda):
            bound |= {a.arg for a in node.args.args}
    return {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id not in bound
    }


def reference(ctx: Checker, inputs: list[Input], attrs: list[Attr]) -> Reference | None:
    if "reference" not in ctx.data:
        return None
    where: YamlPath = ("reference",)
    text = str(ctx.value(where)).strip()
    if _FUNCTION.fullmatch(text):
        return Reference(text, True, ctx.at(where))
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        ctx.report(
            "E621",
            where,
            f"reference is not a Python expression: {exc.msg}",
            "write a numpy expression such as x1 + x2, or module:function",
        )
        return None
    known = {i.name for i in inputs} | {a.name for a in attrs} | HELPERS
    for name in sorted(_free_names(tree) - known):
        if name in dir(builtins):
            continue
        ctx.report(
            "E621",
            where,
            f"reference reads '{name}', which is not an input or attr of the op",
            suggest(name, known)
            or "inputs and attrs: " + (", ".join(sorted(known - HELPERS)) or "none"),
        )
    return Reference(text, False, ctx.at(where))


def _dim_names(ctx: Checker, dim: int | str, where: YamlPath) -> set[str] | None:
    """The names a dim reads; None (and E622) when it does not parse."""
    if isinstance(dim, int):
        return set()
    try:
        tree = ast.parse(dim, mode="eval")
    except SyntaxError:
        tree = None
    allowed = (
        ast.Expression,
        ast.BinOp,
        ast.Name,
        ast.Load,
        ast.Constant,
        ast.Add,
        ast.Sub,
        ast.Mult,
        ast.FloorDiv,
        ast.UnaryOp,
        ast.USub,
    )
    if tree is None or not all(isinstance(n, allowed) for n in ast.walk(tree)):
        ctx.report(
            "E622",
            where,
            f"dim {dim!r} is not a size, a letter or an expression of + - * //",
            "write 4, n or 64*k",
        )
        return None
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def _shape(
    ctx: Checker,
    where: YamlPath,
    inputs: list[Input],
    attrs: list[Attr],
    complete: bool,
) -> SampleShape:
    value: dict[str, Any] = ctx.value(where)
    by_name = {i.name: i for i in inputs}
    attr_types = {a.name: a.type for a in attrs}
    result: list[tuple[str, Any]] = []
    for name, dims in value.items():
        item = by_name.get(name)
        if item is None:
            ctx.report(
                "E622",
                ctx.key(where + (name,)),
                f"shape rule names input '{name}', which the op does not have",
                suggest(name, by_name) or "inputs: " + ", ".join(by_name),
            )
            continue
        if dims is None and item.kind is not InputKind.OPTIONAL:
            ctx.report(
                "E622",
                where + (name,),
                f"shape rule leaves out input '{name}', which is not optional",
                "give its dims",
            )
            continue
        dynamic = isinstance(dims, dict)
        if dims is not None and dynamic != (item.kind is InputKind.DYNAMIC):
            ctx.report(
                "E622",
                where + (name,),
                f"input '{name}' is "
                f"{'dynamic' if item.kind is InputKind.DYNAMIC else 'not dynamic'}"
                f"; its dims are written {'as' if dynamic else 'not as'} instances",
                "a dynamic input's dims are {list: [[n], [n]]}; another's a list",
            )
            continue
        lists: list[tuple[SampleDims, YamlPath]] = []
        if dynamic:
            for k, inst in enumerate(dims["list"]):
                lists.append((tuple(inst), where + (name, "list", k)))
        elif dims is not None:
            lists.append((tuple(dims), where + (name,)))
        for one, at in lists:
            for j, dim in enumerate(one):
                names = _dim_names(ctx, dim, at + (j,))
                for used in sorted(names or ()):
                    kind = attr_types.get(used)
                    if kind is not None and kind not in _INT_ATTRS:
                        ctx.report(
                            "E622",
                            at + (j,),
                            f"dim {dim!r} reads attr '{used}', "
                            f"which is {kind.value}, not int or bool",
                            "a dim may read int and bool attrs only",
                        )
        if dims is None:
            result.append((name, None))
        elif dynamic:
            result.append((name, tuple(tuple(d) for d in dims["list"])))
        else:
            result.append((name, tuple(dims)))
    if complete:
        for item in inputs:
            if item.name not in value and item.kind is not InputKind.OPTIONAL:
                ctx.report(
                    "E622",
                    where,
                    f"shape rule gives no dims for input '{item.name}'",
                    f"add {item.name}: [n] (or the dims it needs)",
                )
    return tuple(result)


def _attr_value(
    ctx: Checker, attr: Attr, value: Any, where: YamlPath, outputs: list[Output]
) -> bool:
    """E623 unless ``value`` fits ``attr``."""
    match = re.fullmatch(r"dtype\((\w+)\)", value) if isinstance(value, str) else None
    if (
        match
        and attr.type in (AttrType.DTYPE, AttrType.INT)
        and match.group(1) in {o.name for o in outputs}
    ):
        return True  # the output's dtype in the case (an int attr: its number)
    if attr.type is AttrType.DTYPE and isinstance(value, str):
        try:
            dtype_from_spec_name(value)
            return True
        except KeyError:
            reason = f"'{value}' is not a dtype or dtype(<output>)"
    else:
        try:
            check_attr_value(attr.type, value)
            return True
        except (TypeError, ValueError, KeyError) as exc:
            reason = str(exc.args[0]) if exc.args else str(exc)
    ctx.report(
        "E623",
        where,
        f"value of attr '{attr.name}' does not fit {attr.type.value}: {reason}",
        (
            "dtype attrs take a dtype name or dtype(<output>)"
            if attr.type is AttrType.DTYPE
            else f"write a {attr.type.value} value"
        ),
    )
    return False


def _attrs(
    ctx: Checker,
    where: YamlPath,
    attrs: list[Attr],
    outputs: list[Output],
    grid: bool,
) -> tuple[tuple[str, Any], ...]:
    value: dict[str, Any] = ctx.value(where)
    by_name = {a.name: a for a in attrs}
    result: list[tuple[str, Any]] = []
    for name, values in value.items():
        attr = by_name.get(name)
        if attr is None:
            ctx.report(
                "E623",
                ctx.key(where + (name,)),
                f"samples name attr '{name}', which the op does not have",
                suggest(name, by_name) or "attrs: " + (", ".join(by_name) or "none"),
            )
            continue
        items = list(values) if grid else [values]
        ok = all(
            _attr_value(ctx, attr, v, where + ((name, i) if grid else (name,)), outputs)
            for i, v in enumerate(items)
        )
        if ok:
            result.append((name, tuple(items) if grid else values))
    return tuple(result)


def _values(ctx: Checker, where: YamlPath) -> SampleValues:
    value: dict[str, Any] = ctx.value(where)
    span = value.get("range")
    if span is not None and span[0] > span[1]:
        ctx.report(
            "E624", where + ("range",), f"range {span} is empty", "write [low, high]"
        )
    special: list[str | float] = []
    for i, item in enumerate(value.get("special", ())):
        if isinstance(item, str) and item not in SPECIAL_VALUES:
            ctx.report(
                "E624",
                where + ("special", i),
                f"special value '{item}' is not one the sampler knows",
                suggest(item, SPECIAL_VALUES)
                or "known: " + ", ".join(sorted(SPECIAL_VALUES)),
            )
            continue
        special.append(item)
    return SampleValues(
        (float(span[0]), float(span[1])) if span is not None else None,
        tuple(special),
        _frozen(value.get("const")),
    )


def _frozen(value: Any) -> Any:
    """A ``const:`` value with its lists as tuples (the model is frozen)."""
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def samples(
    ctx: Checker, inputs: list[Input], outputs: list[Output], attrs: list[Attr]
) -> Samples | None:
    if "samples" not in ctx.data:
        return None
    root: YamlPath = ("samples",)
    data: dict[str, Any] = ctx.value(root)
    shapes = tuple(
        _shape(ctx, root + ("shapes", i), inputs, attrs, True)
        for i in range(len(data.get("shapes", ())))
    )
    dims = tuple(data.get("dims", (1, 6)))
    if dims[0] > dims[1]:
        ctx.report("E622", root + ("dims",), f"dims {list(dims)} is empty", None)
    grid = (
        _attrs(ctx, root + ("attrs",), attrs, outputs, True) if "attrs" in data else ()
    )
    values = SampleValues()
    per_input: list[tuple[str, SampleValues]] = []
    if "values" in data:
        values = _values(ctx, root + ("values",))
        names = {i.name for i in inputs}
        for name in data["values"].get("inputs", {}):
            at = root + ("values", "inputs", name)
            if name not in names:
                ctx.report(
                    "E624",
                    ctx.key(at),
                    f"values given for input '{name}', which the op does not have",
                    suggest(name, names),
                )
                continue
            per_input.append((name, _values(ctx, at)))
    errors: list[ErrorCase] = []
    for i, case in enumerate(data.get("errors", ())):
        at = root + ("errors", i)
        shape = (
            _shape(ctx, at + ("shapes",), inputs, attrs, False)
            if "shapes" in case
            else ()
        )
        fixed = (
            _attrs(ctx, at + ("attrs",), attrs, outputs, False)
            if "attrs" in case
            else ()
        )
        dtypes: list[tuple[str, str]] = []
        for name, dtype in case.get("dtypes", {}).items():
            if name not in {i.name for i in inputs}:
                ctx.report(
                    "E625",
                    ctx.key(at + ("dtypes", name)),
                    f"error case gives a dtype to '{name}', which is not an input",
                    suggest(name, [i.name for i in inputs]),
                )
                continue
            try:
                dtype_from_spec_name(dtype)
            except KeyError:
                ctx.report(
                    "E625",
                    at + ("dtypes", name),
                    f"error case names dtype '{dtype}', which GE does not have",
                    "write a dtype name such as float32",
                )
                continue
            dtypes.append((name, dtype))
        raises = case["raises"]
        known = getattr(builtins, raises, None)
        if not (
            raises in ("CompileError", "KernelFault", "OfflineError")
            or (isinstance(known, type) and issubclass(known, Exception))
        ):
            ctx.report(
                "E625",
                at + ("raises",),
                f"error case expects '{raises}', which is not an exception it can raise",
                "name a built-in exception (ValueError, TypeError, RuntimeError) or "
                "CompileError",
            )
        errors.append(
            ErrorCase(
                shape, tuple(dtypes), fixed, raises, case.get("match"), ctx.at(at)
            )
        )
    return Samples(
        shapes=shapes,
        dims=(int(dims[0]), int(dims[1])),
        attrs=grid,
        values=values,
        input_values=tuple(per_input),
        errors=tuple(errors),
        graphs=data.get("graphs"),
    )


def check_sample_graphs(
    ctx: Checker,
    graphs: list[Subgraph],
    meaning: Reference | None,
    drawn: Samples | None,
) -> None:
    """A subgraph op is tested with the subgraphs ``samples.graphs`` builds;
    an op without subgraphs has none to build (E628)."""
    given = drawn is not None and drawn.graphs is not None
    if given and not graphs:
        ctx.report(
            "E628",
            ("samples", "graphs"),
            "samples.graphs builds subgraphs, but the op has no graphs",
            "remove samples.graphs, or declare the op's graphs",
        )
    elif graphs and meaning is not None and not given:
        names = ", ".join(g.name for g in graphs)
        ctx.report(
            "E628",
            ctx.key(("reference",)),
            f"the op has subgraphs ({names}) and a reference, but no "
            "samples.graphs to build them",
            "add samples.graphs: module:function returning the builder's "
            "subgraph arguments (docs/opcheck.md)",
        )


def tolerance(
    ctx: Checker, inputs: list[Input], outputs: list[Output]
) -> tuple[Tolerance, ...]:
    if "tolerance" not in ctx.data:
        return ()
    items: list[Input | Output] = [*inputs, *outputs]
    taken = {d for item in items for d in item.dtype.dtypes}
    result: list[Tolerance] = []
    for name, entry in ctx.value(("tolerance",)).items():
        at: YamlPath = ("tolerance", name)
        try:
            dtype = dtype_from_spec_name(name)
        except KeyError:
            ctx.report(
                "E624",
                ctx.key(at),
                f"tolerance for '{name}', which is not a dtype",
                "key tolerances by dtype name: float16, float32, ...",
            )
            continue
        if dtype not in taken:
            ctx.report(
                "E624",
                ctx.key(at),
                f"tolerance for {name}, which no input or output of the op takes",
                "dtypes of the op: "
                + ", ".join(sorted(d.spec_name for d in taken) or ["none"]),
            )
            continue
        result.append(Tolerance(dtype, float(entry["atol"]), float(entry["rtol"])))
    return tuple(result)


__all__ = ["HELPERS", "SPECIAL_VALUES", "reference", "samples", "tolerance"]
