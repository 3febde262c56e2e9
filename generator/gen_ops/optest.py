"""``gen-ops test``: draw cases from each spec's ``samples`` and check the
op against its ``reference`` with ``ge.custom_op.opcheck`` (docs/opcheck.md).

The implementations load the usual way: ``ASCEND_CUSTOM_OPP_PATH`` when it
is set, else each op's author module (``impl.author``, or where gen-ops
scaffolds it). Cases are enumerated in a fixed order from ``--seed``: every
combination of the op's type variables (dtypes numpy has), every shape
rule, every point of the attr grid; each case has its own seed, so
``--case K`` replays one. A failing case is shrunk (its drawn dims made
smaller while the same property still fails) before it is reported.

Exit status: 0 every property holds, 1 one fails, 2 the specs are invalid
or an op cannot be tested as asked.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib
import importlib.util
import itertools
import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ge_ir.attrs import AttrType
from gen_ops.base.diagnostics import Sink
from gen_ops.lowering.layout import author_path_of
from gen_ops.spec.model import (
    DtypeRuleKind,
    InputKind,
    OpSpec,
    SampleDims,
    SampleShape,
    SampleValues,
    TypeVarKind,
)

if TYPE_CHECKING:
    from ge.opcheck import ErrorExpectation, OpCase, OpcheckReport
    from ge_ir.types import DataType

EXIT_OK, EXIT_FAIL, EXIT_INVALID = 0, 1, 2
MAX_COMBOS = 32  # type-variable combinations per op
MAX_GRID = 16  # attr grid points per shape rule
MIN_CASES = 8  # cases per op, drawn again with new seeds when the grid is small


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="gen-ops test",
        description="check every op with a reference against it (docs/opcheck.md)",
    )
    p.add_argument("--specs", default="specs", help="spec file or directory")
    p.add_argument("--ops", default="", help="comma-separated op types (default: all)")
    p.add_argument("--seed", type=int, default=0, help="seed of the cases")
    p.add_argument("--case", type=int, default=None, help="run only case K (replay)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument(
        "--export-ttk", default=None, metavar="DIR", help="write ops-test-kit CSVs"
    )
    p.add_argument(
        "--max-cases", type=int, default=None, help="check at most N cases per op"
    )
    p.add_argument("--no-shrink", action="store_true", help="report cases as drawn")
    p.add_argument(
        "--strict-dtypes",
        action="store_true",
        help="fail on a declared dtype the implementation refuses",
    )
    p.add_argument(
        "--jobs",
        type=_jobs,
        default=None,
        metavar="N",
        help="check the ops in N processes (default: one per core; one with --case "
        "or --export-ttk, which take no --jobs)",
    )
    return p


def _jobs(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def _cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _child_args(args: argparse.Namespace) -> list[str]:
    """The switches a ``--jobs`` child runs with (gen_ops.optest_jobs): one
    process each."""
    out = ["--specs", str(args.specs), "--seed", str(args.seed), "--jobs", "1"]
    if args.max_cases is not None:
        out += ["--max-cases", str(args.max_cases)]
    if args.no_shrink:
        out.append("--no-shrink")
    if args.strict_dtypes:
        out.append("--strict-dtypes")
    return out


# --- the reference ----------------------------------------------------------------


def _helpers() -> dict[str, Any]:
    return {"np": np, "numpy": np, "math": math, "where": np.where, "dtype": np.dtype}


def project_function(op: OpSpec, text: str) -> Callable[..., Any]:
    """``module:function``: ``module`` a dotted path to a file under the
    op's project, or an importable module."""
    module_name, _, name = text.partition(":")
    file = op.project / Path(*module_name.split(".")).with_suffix(".py")
    if file.is_file():
        spec = importlib.util.spec_from_file_location(
            f"_gen_ops_reference_{module_name.replace('.', '_')}", file
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(module_name)
    fn: Callable[..., Any] = getattr(module, name)
    return fn


def graph_builder(op: OpSpec) -> Callable[..., Any] | None:
    """For a subgraph op, its ``ge.es`` builder called with what
    ``samples.graphs`` returns for the case (subgraphs, dynamic output
    counts) added to its arguments; None for other ops."""
    if op.samples is None or op.samples.graphs is None:
        return None
    make = project_function(op, op.samples.graphs)
    es = importlib.import_module(f"ge.es.{op.module}")
    build: Callable[..., Any] = getattr(es, op.op_type)

    def builder(*inputs: Any, **attrs: Any) -> Any:
        return build(*inputs, **attrs, **make(*inputs, **attrs))

    return builder


def reference_function(op: OpSpec) -> Callable[..., Any]:
    """The op's reference as a function of its inputs (positionally) and
    attrs (by keyword)."""
    assert op.reference is not None
    text = op.reference.text
    if op.reference.function:
        return project_function(op, text)
    code = compile(ast.parse(text, mode="eval"), f"<{op.op_type} reference>", "eval")
    names = [i.name for i in op.inputs]

    def evaluate(*inputs: Any, **attrs: Any) -> Any:
        scope = {**_helpers(), **attrs, **dict(zip(names, inputs))}
        return eval(code, scope)

    return evaluate


# --- drawing cases ----------------------------------------------------------------


@dataclass(frozen=True)
class Drawn:
    """One case as drawn: its index, seed, dtypes, dims letters and attrs."""

    index: int
    seed: int
    combo: tuple[tuple[str, str], ...]  # slot key -> dtype name
    rule: int
    letters: tuple[tuple[str, int], ...]
    attrs: tuple[tuple[str, Any], ...]

    def replay(self, op: OpSpec, specs: str, seed: int) -> str:
        return (
            f"gen-ops test --specs {specs} --ops {op.op_type} --seed {seed} "
            f"--case {self.index}"
        )


def _slot_key(op: OpSpec, name: str) -> str | None:
    """The key an input's dtype is chosen by: its type variable, else itself."""
    item = op.input(name)
    var = item.dtype.var
    if var is not None and var.kind is TypeVarKind.TENSOR:
        return var.name
    if var is not None and var.kind is TypeVarKind.PROMOTE:
        return None
    return f"input:{name}"


def not_drawn(dtype: DataType) -> str | None:
    """Why cases of ``dtype`` cannot be drawn; None when they can (numpy's
    number types, and bfloat16, the float8 types and int4 through
    ml_dtypes, ge.opcheck_raw)."""
    from ge.graph.numpy_dtypes import has_numpy_dtype, to_numpy_dtype
    from ge.opcheck_raw import RAW

    name = dtype.spec_name
    if dtype in RAW or (has_numpy_dtype(dtype) and name == "bfloat16"):
        return None
    if has_numpy_dtype(dtype) and to_numpy_dtype(dtype).kind in "biufc":
        return None
    if name == "string":
        return "not a number type"
    if name.startswith(("qint", "quint")):
        return "a quantised type: neither numpy nor ml_dtypes has a dtype for it"
    if name.startswith("hifloat"):
        return "Huawei's HiFloat format: neither numpy nor ml_dtypes has it"
    return (
        "the runtime holds it only as bytes and opcheck maps no ml_dtypes dtype to it"
    )


def _numpy_dtypes(dtypes: Sequence[DataType]) -> list[DataType]:
    return [d for d in dtypes if not_drawn(d) is None]


def combos(op: OpSpec) -> tuple[list[dict[str, DataType]], dict[str, str]]:
    """Every combination of the dtypes the inputs' keys may take (those
    ``not_drawn`` allows), and what was left out, with the reason."""
    keys: dict[str, list[DataType]] = {}
    left: dict[str, str] = {}
    for item in op.inputs:
        key = _slot_key(op, item.name)
        if key is None or key in keys:
            continue
        dtypes = item.dtype.var.dtypes if item.dtype.var else item.dtype.dtypes
        usable = _numpy_dtypes(dtypes)
        left.update(
            {d.spec_name: not_drawn(d) or "" for d in dtypes if d not in usable}
        )
        keys[key] = usable
    for var in op.type_vars:  # a variable only outputs take (CastCustom's DstT)
        if var.kind is TypeVarKind.TENSOR and var.name not in keys:
            keys[var.name] = _numpy_dtypes(var.dtypes)
            left.update(
                {
                    d.spec_name: not_drawn(d) or ""
                    for d in var.dtypes
                    if d not in keys[var.name]
                }
            )
    names = list(keys)
    result = [dict(zip(names, c)) for c in itertools.product(*keys.values())]
    if len(result) > MAX_COMBOS:  # spread over all of them, deterministically
        step = len(result) / MAX_COMBOS
        result = [result[int(i * step)] for i in range(MAX_COMBOS)]
    return result, dict(sorted(left.items()))


def _grid(op: OpSpec) -> list[dict[str, Any]]:
    given = dict(op.samples.attrs) if op.samples else {}
    points: list[dict[str, Any]] = [{}]
    for attr in op.attrs:
        if attr.derive is not None:
            continue
        if attr.name in given:
            values: Sequence[Any] = given[attr.name]
        elif attr.default is not None:
            values = [attr.default.value]
        else:
            raise ValueError(
                f"{op.op_type}: attr '{attr.name}' has no default and no samples.attrs"
            )
        points = [{**p, attr.name: v} for p in points for v in values]
    return points[:MAX_GRID]


def _default_shape(op: OpSpec) -> SampleShape:
    return tuple(
        (i.name, (("a", "b"),) if i.kind is InputKind.DYNAMIC else ("a", "b"))
        for i in op.inputs
        if i.kind is not InputKind.OPTIONAL
    )


def _dim(expr: int | str, scope: dict[str, int]) -> int:
    if isinstance(expr, int):
        return expr
    return int(eval(compile(expr, "<dim>", "eval"), {"__builtins__": {}}, scope))


def _instances(dims: Any) -> list[SampleDims]:
    """The dims of each instance: one for a plain input, none when absent."""
    if dims is None:
        return []
    if dims and isinstance(dims[0], tuple):
        return [cast(SampleDims, one) for one in dims]
    return [cast(SampleDims, dims)]


def _letters(shape: SampleShape) -> list[str]:
    found: list[str] = []
    for _, dims in shape:
        for one in _instances(dims):
            for d in one:
                if isinstance(d, str):
                    found += [
                        n.id
                        for n in ast.walk(ast.parse(d, mode="eval"))
                        if isinstance(n, ast.Name)
                    ]
    return list(dict.fromkeys(found))


def enumerate_cases(op: OpSpec, seed: int) -> Iterator[Drawn]:
    samples = op.samples
    rules = list(samples.shapes) if samples and samples.shapes else [_default_shape(op)]
    low, high = samples.dims if samples else (1, 6)
    attr_names = {a.name for a in op.attrs}
    index = 0
    every = combos(op)[0]
    grid = _grid(op)
    # Every combination at least once, and at least MIN_CASES cases in all.
    repeats = max(1, -(-MIN_CASES // max(1, len(every) * len(rules) * len(grid))))
    for combo in every:
        for r, rule in enumerate(rules):
            for point in [p for p in grid for _ in range(repeats)]:
                case_seed = (seed * 1_000_003 + index) & 0xFFFFFFFF
                rng = np.random.default_rng(case_seed)
                letters = tuple(
                    (n, int(rng.integers(low, high + 1)))
                    for n in _letters(rule)
                    if n not in attr_names
                )
                yield Drawn(
                    index,
                    case_seed,
                    tuple((k, v.spec_name) for k, v in combo.items()),
                    r,
                    letters,
                    tuple(point.items()),
                )
                index += 1


def _values_of(op: OpSpec, name: str) -> SampleValues:
    samples = op.samples
    base = samples.values if samples else SampleValues()
    own = dict(samples.input_values).get(name) if samples else None
    if own is None:
        return base
    return SampleValues(own.range or base.range, own.special or base.special, own.const)


_ML_FLOATS = ("bfloat16", "float8_e4m3fn", "float8_e5m2")  # ml_dtypes' names
_ML_INTS = ("int4",)


def _kind(dtype: np.dtype) -> str:
    """numpy's kind letter, with ml_dtypes' floats "f" and its int4 "i"
    (their own letters vary: "V", or "f" for float8_e5m2)."""
    if dtype.name in _ML_FLOATS:
        return "f"
    return "i" if dtype.name in _ML_INTS else dtype.kind


def _finfo(dtype: np.dtype) -> Any:
    if dtype.name in _ML_FLOATS:
        import ml_dtypes

        return ml_dtypes.finfo(dtype)  # type: ignore[no-untyped-call]
    return np.finfo(dtype)


def _iinfo(dtype: np.dtype) -> Any:
    if dtype.name in _ML_INTS:
        import ml_dtypes

        return ml_dtypes.iinfo(dtype)  # type: ignore[no-untyped-call]
    return np.iinfo(dtype)


def _special(value: str | float, dtype: np.dtype) -> Any:
    if _kind(dtype) in "fc":
        info = _finfo(dtype)
        table = {
            "0": 0.0,
            "-0.0": -0.0,
            "inf": np.inf,
            "-inf": -np.inf,
            "nan": np.nan,
            "denormal": info.smallest_subnormal,
            "min": info.min,
            "max": info.max,
            "one": 1.0,
            "-one": -1.0,
        }
    elif _kind(dtype) in "iu":
        ii = _iinfo(dtype)
        table = {
            "0": 0,
            "min": ii.min,
            "max": ii.max,
            "one": 1,
            "-one": -1 if ii.min < 0 else 0,
        }
    else:
        table = {"0": False, "one": True}
    if isinstance(value, str):
        return table.get(value)
    return value


def _array(
    rng: np.random.Generator,
    shape: tuple[int, ...],
    dtype: np.dtype,
    values: SampleValues,
) -> np.ndarray:
    low, high = values.range or (-10.0, 10.0)
    if dtype.kind == "b":
        a = rng.integers(0, 2, size=shape).astype(bool)
    elif _kind(dtype) in "iu":
        ii = _iinfo(dtype)
        lo, hi = max(int(math.ceil(low)), ii.min), min(int(math.floor(high)), ii.max)
        a = rng.integers(lo, max(lo, hi) + 1, size=shape).astype(dtype)
    elif dtype.kind == "c":
        a = (rng.uniform(low, high, shape) + 1j * rng.uniform(low, high, shape)).astype(
            dtype
        )
    else:
        a = rng.uniform(low, high, shape).astype(dtype)
    flat = a.reshape(-1)
    specials = [
        s for s in (_special(v, dtype) for v in values.special) if s is not None
    ]
    if flat.size and specials:
        where = rng.permutation(flat.size)
        for k, value in zip(where, specials):
            with np.errstate(all="ignore"):
                flat[k] = np.asarray(value).astype(dtype)
    return a


def build_case(op: OpSpec, drawn: Drawn, shape: SampleShape | None = None) -> OpCase:
    """The OpCase of a drawn case (``shape``: another rule, for errors)."""
    from ge.opcheck import OpCase
    from ge.opcheck_raw import numpy_dtype_of
    from ge_ir.types import dtype_from_spec_name

    combo = {k: dtype_from_spec_name(v) for k, v in drawn.combo}
    rules = (
        list(op.samples.shapes)
        if op.samples and op.samples.shapes
        else [_default_shape(op)]
    )
    rule = dict(shape if shape is not None else rules[drawn.rule])
    attrs = dict(drawn.attrs)
    scope = {
        **dict(drawn.letters),
        **{k: int(v) for k, v in attrs.items() if isinstance(v, int)},
    }
    for letter in _letters(tuple(rule.items())):
        scope.setdefault(letter, 2)
    rng = np.random.default_rng(drawn.seed)
    inputs: list[tuple[str, Any]] = []
    consts: list[str] = []
    first: DataType | None = None
    for item in op.inputs:
        key = _slot_key(op, item.name)
        dtype = combo.get(key) if key else None
        if dtype is None:
            dtype = first or item.dtype.dtypes[0]
        first = first or dtype
        np_dtype = numpy_dtype_of(dtype)
        values = _values_of(op, item.name)
        dims = rule.get(item.name)
        if values.const is not None:
            inputs.append((item.name, np.array(values.const, dtype=np_dtype)))
            consts.append(item.name)
        elif dims is None:
            inputs.append((item.name, None))
        elif item.kind is InputKind.DYNAMIC:
            inputs.append(
                (
                    item.name,
                    [
                        _array(
                            rng, tuple(_dim(d, scope) for d in one), np_dtype, values
                        )
                        for one in _instances(dims)
                    ],
                )
            )
        else:
            inputs.append(
                (
                    item.name,
                    _array(
                        rng,
                        tuple(_dim(d, scope) for d in _instances(dims)[0]),
                        np_dtype,
                        values,
                    ),
                )
            )
    out_dtypes = _out_dtypes(op, combo, dict(inputs), attrs)
    for attr in op.attrs:
        value = attrs.get(attr.name)
        if isinstance(value, str) and attr.type in (AttrType.DTYPE, AttrType.INT):
            if value.startswith("dtype("):
                target = value[6:-1]
                index = [o.name for o in op.outputs].index(target)
                attrs[attr.name] = _output_dtype(op, op.outputs[index].name, combo)
            else:
                attrs[attr.name] = dtype_from_spec_name(value)
    if out_dtypes is None:
        out_dtypes = _out_dtypes(op, combo, dict(inputs), attrs)
    return OpCase(
        tuple(inputs),
        tuple(attrs.items()),
        out_dtypes,
        drawn.seed,
        tuple(consts),
        _counts(op, attrs),
    )


def _counts(op: OpSpec, attrs: dict[str, Any]) -> tuple[tuple[str, int], ...]:
    """The builder's ``<output>_num`` arguments (dynamic outputs without a
    count rule, GE's calling form: Split(split_dim, x, y_num, num_split=)):
    the case's value of the op's int attr named ``num_<...>`` (Split's
    num_split), the only way the spec says how many there are."""
    number = next(
        (v for k, v in attrs.items() if k.startswith("num_") and isinstance(v, int)),
        None,
    )
    return tuple(
        (f"{o.name}_num", number)
        for o in op.outputs
        if o.dynamic and o.count is None and number is not None
    )


def _output_dtype(op: OpSpec, name: str, combo: dict[str, DataType]) -> DataType | None:
    var = op.output(name).dtype.var
    if var is not None and var.name in combo:
        return combo[var.name]
    dtypes = op.output(name).dtype.dtypes
    return dtypes[0] if len(dtypes) == 1 else None


def _out_dtypes(
    op: OpSpec,
    combo: dict[str, DataType],
    inputs: dict[str, Any],
    attrs: dict[str, Any],
) -> tuple[DataType, ...] | None:
    """Each output's dtype, when the spec says it; None leaves it to the
    reference's."""
    from ge.graph.types import DataType as RtDataType
    from ge.opcheck_raw import data_type_of

    if any(o.dynamic for o in op.outputs):
        return None
    rules = {r.output: r for r in op.infer_meta or ()}
    result: list[DataType] = []
    for out in op.outputs:
        rule = rules.get(out.name)
        dtype = _output_dtype(op, out.name, combo)
        if rule is not None and rule.dtype is not None:
            if rule.dtype.kind is DtypeRuleKind.FIXED:
                dtype = rule.dtype.dtype
            elif rule.dtype.kind is DtypeRuleKind.INPUT:
                value = inputs.get(rule.dtype.ref or "")
                dtype = (  # the float8 and int4 arrays are ml_dtypes'
                    data_type_of(value.dtype) if isinstance(value, np.ndarray) else None
                )
            elif rule.dtype.kind is DtypeRuleKind.ATTR:
                value = attrs.get(rule.dtype.ref or "")
                dtype = value if isinstance(value, RtDataType) else None
        if dtype is None:
            return None
        result.append(dtype)
    return tuple(result)


def _undeclared(op: OpSpec, case: OpCase) -> list[OpCase]:
    """The case with its first input in a dtype the op does not declare."""
    from ge.graph.numpy_dtypes import to_numpy_dtype
    from ge_ir.types import DataType as IrDataType

    for k, item in enumerate(op.inputs):
        value = case.inputs[k][1]
        if not isinstance(value, np.ndarray):
            continue
        allowed = set(item.dtype.var.dtypes if item.dtype.var else item.dtype.dtypes)
        for other in (
            IrDataType.DT_DOUBLE,
            IrDataType.DT_INT8,
            IrDataType.DT_UINT16,
            IrDataType.DT_FLOAT,
        ):
            if other not in allowed:
                inputs = list(case.inputs)
                with np.errstate(all="ignore"):
                    inputs[k] = (item.name, value.astype(to_numpy_dtype(other)))
                return [replace(case, inputs=tuple(inputs), out_dtypes=None)]
        return []
    return []


def _errors(op: OpSpec, drawn: Drawn) -> list[ErrorExpectation]:
    from ge.opcheck import ErrorExpectation
    from ge.opcheck_raw import numpy_dtype_of
    from ge_ir.types import dtype_from_spec_name

    result = []
    for error in op.samples.errors if op.samples else ():
        base = replace(
            drawn, attrs=tuple({**dict(drawn.attrs), **dict(error.attrs)}.items())
        )
        shape = dict(build_rule(op, drawn.rule))
        shape.update(dict(error.shapes))
        case = build_case(op, base, tuple(shape.items()))
        if error.dtypes:
            inputs = [
                (
                    n,
                    (
                        v.astype(
                            numpy_dtype_of(dtype_from_spec_name(dict(error.dtypes)[n]))
                        )
                        if n in dict(error.dtypes) and isinstance(v, np.ndarray)
                        else v
                    ),
                )
                for n, v in case.inputs
            ]
            case = replace(case, inputs=tuple(inputs), out_dtypes=None)
        result.append(ErrorExpectation(case, error.raises, error.match))
    return result


def build_rule(op: OpSpec, index: int) -> SampleShape:
    rules = (
        list(op.samples.shapes)
        if op.samples and op.samples.shapes
        else [_default_shape(op)]
    )
    return rules[index]


# --- loading ----------------------------------------------------------------------


def load_implementations(ops: Sequence[OpSpec]) -> None:
    """ASCEND_CUSTOM_OPP_PATH when set, else every op's author module."""
    from ge.custom_op import bootstrap

    path = os.environ.get("ASCEND_CUSTOM_OPP_PATH")
    if path:
        bootstrap.load_custom_op_plugins(path)
        return
    files = sorted(
        {
            str(author_path_of(op, op.impl.author, op.project, "ops").resolve())
            for op in ops
            if op.impl is not None
        }
    )
    files = [f for f in files if Path(f).is_file()]
    if files:
        bootstrap.load_custom_op_plugins(os.pathsep.join(files))


# --- running ----------------------------------------------------------------------


def _shrink(
    op: OpSpec,
    drawn: Drawn,
    failing: str,
    check: Callable[[Drawn], OpcheckReport],
) -> Drawn:
    """Smaller dims while the same property still fails (a few rounds)."""
    for _ in range(8):
        better = None
        for k, (name, size) in enumerate(drawn.letters):
            for smaller in (1, size // 2, size - 1):
                if not 0 < smaller < size:
                    continue
                letters = list(drawn.letters)
                letters[k] = (name, smaller)
                candidate = replace(drawn, letters=tuple(letters))
                try:
                    report = check(candidate)
                except Exception:
                    continue
                if any(f.property == failing for f in report.failures):
                    better = candidate
                    break
            if better is not None:
                break
        if better is None:
            return drawn
        drawn = better
    return drawn


@dataclass
class OpResult:
    op: str
    status: str  # ok, fail, skipped
    cases: int = 0
    seconds: float = 0.0
    note: str = ""
    failure: dict[str, Any] | None = None
    checked: dict[str, int] | None = None  # cases each property was checked on
    not_drawn: dict[str, str] | None = None  # declared dtypes never drawn: why


def test_op(
    op: OpSpec,
    seed: int,
    only: int | None,
    shrink: bool,
    specs: str,
    strict: bool = False,
    limit: int | None = None,
) -> tuple[OpResult, list[tuple[OpCase, list[np.ndarray]]]]:
    from ge.opcheck import opcheck, tolerance_of

    start = time.perf_counter()
    if op.impl is None:  # nothing runs it, whether or not it says what it computes
        return (
            OpResult(
                op.op_type,
                "skipped",
                note="no implementation: the spec has no impl, so nothing runs the op",
            ),
            [],
        )
    if op.reference is None:
        return OpResult(op.op_type, "skipped", note="no reference"), []
    reference = reference_function(op)
    tolerance = {t.dtype: (t.atol, t.rtol) for t in op.tolerance}
    drawn_all = [
        d for d in enumerate_cases(op, seed) if only is None or d.index == only
    ]
    drawn_all = drawn_all[:limit]

    builder = graph_builder(op)

    def check(drawn: Drawn, first: bool) -> OpcheckReport:
        case = build_case(op, drawn)
        return opcheck(
            op.op_type,
            [case],
            reference=reference,
            module=op.module,
            builder=builder,
            tolerance=tolerance,
            undeclared=_undeclared(op, case) if first else (),
            errors=_errors(op, drawn) if first else (),
        )

    exported: list[tuple[OpCase, list[np.ndarray]]] = []
    refused: list[str] = []
    checked: dict[str, int] = {}
    for k, drawn in enumerate(drawn_all):
        report = check(drawn, k == 0)
        for name, count in report.checked.items():
            checked[name] = checked.get(name, 0) + count
        case = build_case(op, drawn)
        if report.failures and report.failures[0].property == "declared":
            refused.append(",".join(v for _, v in drawn.combo))
            if not strict:
                continue
        if report.failures:
            failure = report.failures[0]
            if shrink and failure.property not in ("errors", "undeclared"):
                drawn = _shrink(op, drawn, failure.property, lambda d: check(d, False))
                shrunk = check(drawn, False).failures
                failure = next(
                    (f for f in shrunk if f.property == failure.property), failure
                )
            detail = failure.as_dict()
            detail["case"]["index"] = drawn.index
            detail["case"]["dtypes"] = dict(drawn.combo)
            detail["replay"] = drawn.replay(op, specs, seed)
            return (
                OpResult(
                    op.op_type,
                    "fail",
                    k + 1,
                    time.perf_counter() - start,
                    failure=detail,
                ),
                exported,
            )
        with np.errstate(all="ignore"):
            expected = reference(
                *[v for _, v in case.inputs],
                **{n: (_np_dtype(v)) for n, v in case.attrs},
            )
        items = list(expected) if isinstance(expected, (tuple, list)) else [expected]
        exported.append((case, [np.asarray(e) for e in items]))
    _ = tolerance_of
    note = ""
    if refused:
        note = "declared, refused by the implementation: " + "; ".join(
            dict.fromkeys(refused)
        )
    return (
        OpResult(
            op.op_type,
            "ok",
            len(drawn_all),
            time.perf_counter() - start,
            note=note,
            checked=checked,
            not_drawn=combos(op)[1],
        ),
        exported,
    )


def _np_dtype(value: Any) -> Any:
    from ge.graph.types import DataType as RtDataType
    from ge.opcheck_raw import numpy_dtype_of

    return numpy_dtype_of(value) if isinstance(value, RtDataType) else value


def main(argv: Sequence[str]) -> int:
    from gen_ops import pipeline
    from gen_ops.spec import discovery

    args = parser().parse_args(list(argv))
    sink = Sink()
    files = discovery.discover([Path(args.specs)], sink)
    ops = pipeline.load_and_check(files, sink)
    if sink.has_errors:
        for d in sink.sorted():
            print(d.format(), file=sys.stderr)
        return EXIT_INVALID
    wanted = [o for o in args.ops.split(",") if o]
    unknown = set(wanted) - {op.op_type for op in ops}
    if unknown:
        print(
            f"gen-ops test: no spec'd op {', '.join(sorted(unknown))}", file=sys.stderr
        )
        return EXIT_INVALID
    chosen = [op for op in ops if not wanted or op.op_type in wanted]
    if (
        args.jobs is not None
        and args.jobs > 1
        and (args.case is not None or args.export_ttk)
    ):
        print(
            "gen-ops test: --jobs runs with neither --case nor --export-ttk; "
            "drop --jobs to replay a case or export",
            file=sys.stderr,
        )
        return EXIT_INVALID
    jobs = args.jobs or (1 if args.case is not None or args.export_ttk else _cores())
    if jobs > 1 and len(chosen) > 1:
        from gen_ops import optest_jobs

        names = [op.op_type for op in sorted(chosen, key=lambda o: o.op_type)]
        entries = optest_jobs.run_in_processes(names, jobs, _child_args(args))
        return _report(args, [OpResult(**entry) for entry in entries])
    try:
        load_implementations([op for op in chosen if op.reference is not None])
    except (ImportError, OSError, TypeError, ValueError, RuntimeError) as exc:
        print(f"gen-ops test: cannot load the implementations: {exc}", file=sys.stderr)
        return EXIT_INVALID
    results: list[OpResult] = []
    exports: dict[str, tuple[OpSpec, list[tuple[OpCase, list[np.ndarray]]]]] = {}
    # What implementations print goes to stderr when stdout carries JSON.
    quiet = args.format == "json"
    for op in sorted(chosen, key=lambda o: o.op_type):
        try:
            with contextlib.redirect_stdout(sys.stderr if quiet else sys.stdout):
                result, exported = test_op(
                    op,
                    args.seed,
                    args.case,
                    not args.no_shrink,
                    args.specs,
                    args.strict_dtypes,
                    args.max_cases,
                )
        except ValueError as exc:  # not registered, or no way to draw a case
            result, exported = OpResult(op.op_type, "error", note=str(exc)), []
        results.append(result)
        exports[op.op_type] = (op, exported)
        if args.format == "text":
            print(_line(result), flush=True)
    if args.export_ttk:
        from gen_ops import ttk

        ttk.export(Path(args.export_ttk), exports)
    return _report(args, results, printed=True)


def _report(
    args: argparse.Namespace, results: list[OpResult], printed: bool = False
) -> int:
    """Print the summary (text: each op's line unless ``printed``) or the
    JSON report; the exit code."""
    if args.format == "text" and not printed:
        for result in results:
            print(_line(result), flush=True)
    failed = any(r.status == "fail" for r in results)
    broken = any(r.status == "error" for r in results)
    if args.format == "json":
        print(
            json.dumps(
                {
                    "status": "fail" if failed else "error" if broken else "ok",
                    "seed": args.seed,
                    "ops": [r.__dict__ for r in results],
                },
                indent=2,
                default=str,
            )
        )
    else:
        counts = {
            s: sum(r.status == s for r in results) for s in ("ok", "fail", "skipped")
        }
        print(
            f"gen-ops test: {counts['ok']} ok, {counts['fail']} failed, "
            f"{counts['skipped']} skipped (seed {args.seed})"
        )
    return EXIT_FAIL if failed else EXIT_INVALID if broken else EXIT_OK


def _line(result: OpResult) -> str:
    if result.status == "ok":
        skipped = "; ".join(
            f"{d} ({why})" for d, why in (result.not_drawn or {}).items()
        )
        return (
            f"ok    {result.op}: {result.cases} case(s), {result.seconds:.1f}s"
            + (f"\n      {result.note}" if result.note else "")
            + (f"\n      declared, not drawn: {skipped}" if skipped else "")
        )
    if result.status in ("skipped", "error"):
        return f"{'skip' if result.status == 'skipped' else 'ERROR'}  {result.op}: {result.note}"
    f = result.failure or {}
    case = f.get("case", {})
    worst = f.get("worst")
    return (
        f"FAIL  {result.op}: property {f.get('property')}: {f.get('message')}\n"
        f"      case {case.get('index')}: dtypes {case.get('dtypes')}, "
        f"inputs {case.get('inputs')}, attrs {case.get('attrs')}, seed {case.get('seed')}"
        + (f"\n      worst error {worst}" if worst is not None else "")
        + f"\n      replay: {f.get('replay')}"
    )
