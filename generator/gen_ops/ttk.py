"""``gen-ops test --export-ttk DIR``: the cases gen-ops test ran, as rows
of a CANN ops-test-kit (TTK) case table for its GEIR mode (``ttk geir``).

One CSV per op, ``DIR/<file stem>.csv``. TTK reads a table whose first row
names the columns and whose cells hold Python literals (tuples, dicts);
GEIR mode is assumed to be chosen by its subcommand, not by a column
(unconfirmed against TTK). The columns written are TTK's documented
Kernel-mode case columns, assumed shared with GEIR tables (docs/opcheck.md,
"Exporting to TTK"): per-input shapes, dtypes and formats, the same for the
outputs (from the reference), original shapes and formats (ND: the same),
attrs as a dict, the finite value range of each input, and (rtol, atol)
per output.
"""

from __future__ import annotations

import ast
import csv
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
)
NETWORK = "ge-ops"


def _flat(value: Any) -> list[np.ndarray]:
    if value is None:
        return []
    if isinstance(value, list):
        return list(value)
    return [value]


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
    from ge.graph.numpy_dtypes import from_numpy_dtype

    return from_numpy_dtype(array.dtype).spec_name


def _range(array: np.ndarray) -> tuple[float, ...]:
    """[min, max] of the finite values drawn (NaN and infinities cannot be
    written as literals, so the special values are not listed)."""
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
    from ge.graph.numpy_dtypes import from_numpy_dtype
    from ge.opcheck import tolerance_of

    arrays = [a for _, v in case.inputs for a in _flat(v)]
    ins = tuple(tuple(int(d) for d in a.shape) for a in arrays)
    outs = tuple(tuple(int(d) for d in o.shape) for o in outputs)
    tols = []
    for o in outputs:
        atol, rtol = tolerance_of(from_numpy_dtype(o.dtype), tolerance)
        tols.append((rtol, atol))
    cells = {
        "testcase_name": f"{op.file_stem}_{index:04d}",
        "network_name": NETWORK,
        "op_name": op.op_type,
        "input_shapes": ins,
        "input_dtypes": tuple(_dtype(a) for a in arrays),
        "input_formats": ("ND",) * len(arrays),
        "output_shapes": outs,
        "output_dtypes": tuple(_dtype(o) for o in outputs),
        "output_formats": ("ND",) * len(outputs),
        "input_ori_shapes": ins,
        "input_ori_formats": ("ND",) * len(arrays),
        "output_ori_shapes": outs,
        "output_ori_formats": ("ND",) * len(outputs),
        "attributes": {k: _plain(v) for k, v in case.attrs},
        "input_data_ranges": tuple(_range(a) for a in arrays),
        "precision_tolerances": tuple(tols),
    }
    return {k: repr(v) if not isinstance(v, str) else v for k, v in cells.items()}


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
    plain = ("testcase_name", "network_name", "op_name")
    return [
        {k: v if k in plain else ast.literal_eval(v) for k, v in r.items()}
        for r in rows
    ]
