"""``gen-ops test --export-ttk DIR``: the cases gen-ops test ran, as rows
of a CANN ops-test-kit (TTK) case table for its GEIR mode (``ttk geir``).

One CSV per op, ``DIR/<file stem>.csv``. TTK reads a table whose first row
names the columns and whose cells hold Python literals (tuples, dicts); a
header without ``api_name`` is a Kernel or GEIR table, the subcommand
chooses which. The columns are those of TTK's GEIR case (its
``GeirTestcase``): the 26 of a Kernel case, in the order of TTK's own
example tables, then GEIR's ``dyn_input_shapes`` (docs/opcheck.md,
"Exporting to TTK", says where each fact comes from). Per input, in IR
order: a shape, a dtype (GE's name), a value range; a dynamic input is a
nested tuple of its instances (a TensorList), an absent optional input
``None``. ``op_name`` is the op type in snake case (TTK's rule when the op
info names no interface); (rtol, atol) per output.
"""

from __future__ import annotations

import ast
import csv
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ge.opcheck import OpCase
    from gen_ops.spec.model import OpSpec

COLUMNS = (
    "testcase_name",
    "network_name",
    "op_name",
    "input_shapes",
    "input_dtypes",
    "input_formats",
    "output_shapes",
    "output_dtypes",
    "output_formats",
    "input_ori_shapes",
    "input_ori_formats",
    "output_ori_shapes",
    "output_ori_formats",
    "attributes",
    "input_data_ranges",
    "precision_tolerances",
    "absolute_precision",
    "output_inplace_indexes",
    "output_shape_unknown_indexes",
    "is_enabled",
    "remark",
    "soc_series",
    "priority",
    "dump_file_prefix",
    "manual_input_binaries",
    "manual_golden_binaries",
    "dyn_input_shapes",  # GEIR's own column
)
# Cells TTK reads as text (the rest are Python literals; an empty cell is
# the column's default).
TEXT = ("testcase_name", "network_name", "op_name", "remark", "dump_file_prefix")
NETWORK = "ge-ops"


def _per_input(value: Any, one: Any) -> Any:
    """``one`` of an input: None when absent, a tuple for a dynamic one."""
    if value is None:
        return None
    if isinstance(value, list):
        return tuple(one(v) for v in value)
    return one(value)


def snake_case(op_type: str) -> str:
    """``MatMul`` -> ``mat_mul``, ``AddCustomTileLang`` -> ``add_custom_tile_lang``."""
    return re.sub(
        r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", op_type
    ).lower()


def _plain(value: Any) -> Any:
    from ge.graph.types import DataType

    if isinstance(value, DataType):
        return value.spec_name
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not np.isfinite(value):
        return repr(value)
    return value


def _dtype(array: np.ndarray) -> str:
    from ge.opcheck_raw import data_type_of

    return data_type_of(array.dtype).spec_name


def _range(array: np.ndarray) -> tuple[float, ...]:
    """[min, max] of the finite values drawn (NaN and infinities cannot be
    written as literals, so the special values are not listed)."""
    from ge.opcheck_raw import numeric

    array = numeric(array)
    finite = array[np.isfinite(array)] if array.dtype.kind in "fc" else array
    if finite.size == 0:
        return (0.0, 0.0)
    if array.dtype.kind == "c":
        finite = finite.real
    low, high = float(finite.min()), float(finite.max())
    return (low, high)


def row(
    op: OpSpec,
    index: int,
    case: OpCase,
    outputs: Sequence[np.ndarray],
    tolerance: Mapping[Any, tuple[float, float]],
) -> dict[str, str]:
    from ge.opcheck import tolerance_of
    from ge.opcheck_raw import data_type_of

    values = [v for _, v in case.inputs]
    ins = tuple(_per_input(v, lambda a: tuple(int(d) for d in a.shape)) for v in values)
    outs = tuple(tuple(int(d) for d in o.shape) for o in outputs)
    tols = []
    for o in outputs:
        atol, rtol = tolerance_of(data_type_of(o.dtype), tolerance)
        tols.append((rtol, atol))
    cells: dict[str, Any] = {
        "testcase_name": f"{op.file_stem}_{index:04d}",
        "network_name": NETWORK,
        "op_name": snake_case(op.op_type),
        "input_shapes": ins,
        "input_dtypes": tuple(_per_input(v, _dtype) for v in values),
        "input_formats": ("ND",),  # one value for every input, as TTK allows
        "output_shapes": outs,
        "output_dtypes": tuple(_dtype(o) for o in outputs),
        "output_formats": ("ND",),
        "input_ori_shapes": ins,
        "input_ori_formats": ("ND",),
        "output_ori_shapes": outs,
        "output_ori_formats": ("ND",),
        "attributes": {k: _plain(v) for k, v in case.attrs},
        "input_data_ranges": tuple(
            (None, None) if v is None else _per_input(v, _range) for v in values
        ),
        "precision_tolerances": tuple(tols),
        "absolute_precision": 1e-08,  # TTK's default
        "output_inplace_indexes": (),  # TTK infers them from the op info
        "output_shape_unknown_indexes": (),
        "is_enabled": True,
        "remark": f"gen-ops test seed {case.seed}",
        "soc_series": "",
        "priority": 0,
        "dump_file_prefix": "",
        "manual_input_binaries": (),
        "manual_golden_binaries": (),
        "dyn_input_shapes": ins,  # compiled with the shapes it runs with
    }
    return {k: v if isinstance(v, str) else repr(v) for k, v in cells.items()}


def export(
    out: Path,
    results: Mapping[str, tuple[OpSpec, list[tuple[OpCase, list[np.ndarray]]]]],
) -> list[Path]:
    """One CSV per op with at least one case; the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for op, cases in results.values():
        if not cases:
            continue
        tolerance = {t.dtype: (t.atol, t.rtol) for t in op.tolerance}
        path = out / f"{op.file_stem}.csv"
        with path.open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=COLUMNS)
            writer.writeheader()
            for i, (case, outputs) in enumerate(cases):
                writer.writerow(row(op, i, case, outputs, tolerance))
        written.append(path)
    return written


def read(path: Path) -> list[dict[str, Any]]:
    """The rows of an exported CSV, every literal cell evaluated (as TTK
    reads them)."""
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return [
        {k: v if k in TEXT or v == "" else ast.literal_eval(v) for k, v in r.items()}
        for r in rows
    ]
