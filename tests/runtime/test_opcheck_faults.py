"""The fault catalogue of gen-ops test (docs/opcheck.md, "Fault catalogue").

Each mutant is a real implementation module with one fault, loaded the
usual way (ASCEND_CUSTOM_OPP_PATH) in a fresh ``gen-ops test`` process
against the repository's own spec: the command must exit 1 and name the
property that caught it. The originals, loaded the same way, pass.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GEN_OPS = Path(sys.executable).parent / "gen-ops"
SCALE_KERNEL = ROOT / "ops" / "custom" / "kernels" / "scale_custom.c"

# A ScaleCustom: the original module, building its kernel from the original
# source with one text replaced.
SCALE = ROOT / "ops" / "custom" / "scale_custom.py"
_SCALE_SOURCE = (
    'SOURCE = Path(__file__).resolve().parent / "kernels" / "scale_custom.c"'
)
_SCALE_MUTANT = """import tempfile as _tempfile

_TEXT = Path({kernel!r}).read_text()
assert {old!r} in _TEXT
SOURCE = Path(_tempfile.mkdtemp()) / "scale_custom.c"
SOURCE.write_text(_TEXT.replace({old!r}, {new!r}))"""


# ReduceSumCustom mutants: the original module with texts replaced.
REDUCE = ROOT / "ops" / "custom" / "reduce_sum_custom.py"
_REDUCE_OUT = "out = output_shape(dims, reduced_dims(len(dims), axes), keep_dims)\n"
_REDUCE_OUT_EXEC = "out = output_shape(dims, reduced, keep_dims)\n"
_OFF_BY_ONE = "        out = [out[0] + 1, *out[1:]] if out else [1]\n"
_EXECUTE = "        ctx = get_execute_ctx()\n"
_BY_BLOCKS = """        ctx = get_execute_ctx()
        import numpy as np
        from ge.device import native

        a = x.numpy()
        reduced = sorted(reduced_dims(a.ndim, axes))
        out = output_shape(list(a.shape), set(reduced), keep_dims)
        y = ctx.malloc_output_tensor(0, out, x.format, x.data_type)
        kept = [d for d in range(a.ndim) if d not in reduced]
        rows = np.transpose(a, kept + reduced).reshape(
            int(np.prod([a.shape[d] for d in kept])), -1
        )
        total = np.zeros(rows.shape[0], a.dtype)
        for part in np.array_split(rows, native.threads() * 3, axis=1):
            total = (total + part.sum(axis=1, dtype=a.dtype)).astype(a.dtype)
        y.copy_from(total.reshape(out))
        return
"""


def _reduce(*patches: tuple[str, str]) -> str:
    text = REDUCE.read_text().replace(
        "Path(__file__).resolve().parent", f"Path({str(REDUCE.parent)!r})"
    )
    for old, new in patches:
        assert old in text, old
        text = text.replace(old, new)
    return text


# AnnotatedAddCustom mutants (its execute and its declared launch, the two
# paths of an op that has both): the original module with texts replaced.
ADD_OPS = ROOT / "examples" / "annotated_args_refresh" / "add_ops.py"
_DECLARED = """    def execute(self, x1: Tensor, x2: Tensor) -> None:
        \"\"\"The same kernel"""
_DECLARE_WRONG_INPUT = (
    """    def declare_launch_args(self, x1: Tensor, x2: Tensor, output0: Tensor) -> None:
        from ge.custom_op import AnnotatedKernelLaunchInfo, get_declare_launch_args_ctx

        config = self.launch_config(x1, x2, output0)
        ctx = get_declare_launch_args_ctx()
        args = ctx.create_kernel_args()
        args.append_input(0, x1)
        args.append_input(0, x1)  # x2's slot
        args.append_output(0, output0)
        ctx.add_launch(
            AnnotatedKernelLaunchInfo(
                kernel_name=KERNEL,
                kernel_bin=config.kernel_bin,
                block_dim=config.block_dim,
                stream_id=ctx.get_stream_id(),
            ),
            args,
        )

"""
    + _DECLARED
)
_EXECUTE_ADD = "        _execute(kernel, self.OP_TYPE, x1, x2)\n"


def _add_ops(*patches: tuple[str, str]) -> str:
    text = ADD_OPS.read_text().replace(
        "Path(__file__).resolve().parent", f"Path({str(ADD_OPS.parent)!r})"
    )
    for old, new in patches:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


@dataclass(frozen=True)
class Mutant:
    name: str  # the fault, as docs/opcheck.md's table names it
    op: str
    source: str  # the module's text
    caught_by: str  # the property that must catch it


def _scale(old: str, new: str) -> str:
    text = SCALE.read_text()
    assert _SCALE_SOURCE in text
    return text.replace(
        _SCALE_SOURCE, _SCALE_MUTANT.format(kernel=str(SCALE_KERNEL), old=old, new=new)
    )


MUTANTS = [
    Mutant(
        "one element written past the output",
        "ScaleCustom",
        _scale(
            "for (int i = 0; i < CHUNK; ++i) y[i] = stage[i];",
            "for (int i = 0; i < CHUNK; ++i) y[i] = stage[i];\n"
            "  if (block_idx == block_dim - 1) y[CHUNK] = 0.0f;",
        ),
        "memory",
    ),
    Mutant(
        "one element written past the workspace",
        "ScaleCustom",
        _scale(
            "for (int i = 0; i < CHUNK; ++i) y[i] = stage[i];",
            "for (int i = 0; i < CHUNK; ++i) y[i] = stage[i];\n"
            "  if (block_idx == 0) GE_PTR(float, 3)[CHUNK] = 1.0f;",
        ),
        "memory",
    ),
    Mutant(
        "input modified",
        "ScaleCustom",
        _scale(
            "for (int i = 0; i < CHUNK; ++i) y[i] = stage[i];",
            "for (int i = 0; i < CHUNK; ++i) y[i] = stage[i];\n"
            "  ((float *)x)[0] = 12345.0f;",
        ),
        "memory",
    ),
    Mutant(
        "computed in a narrower type (half)",
        "ScaleCustom",
        _scale(
            "stage[i] = x[i] * alpha;", "stage[i] = (float)(_Float16)(x[i] * alpha);"
        ),
        "reference",
    ),
    Mutant(
        "attr ignored",
        "ScaleCustom",
        _scale("float alpha = (float)ge_arg_double(args, 4);", "float alpha = 1.0f;"),
        "reference",
    ),
    Mutant(
        "reads one element past an input",
        "ScaleCustom",
        _scale(
            "for (int i = 0; i < CHUNK; ++i) stage[i] = x[i] * alpha;",
            "for (int i = 0; i < CHUNK; ++i) stage[i] = x[i] * alpha;\n"
            "  stage[CHUNK - 1] += 0.0f * x[CHUNK];",
        ),
        "memory",
    ),
    Mutant(
        "infer_meta off by one",
        "ReduceSumCustom",
        _reduce(
            (_REDUCE_OUT, _REDUCE_OUT + _OFF_BY_ONE),
            (_REDUCE_OUT_EXEC, _REDUCE_OUT_EXEC + _OFF_BY_ONE),
        ),
        "infer_meta",
    ),
    Mutant(
        "reduction depending on the block count",
        "ReduceSumCustom",
        _reduce((_EXECUTE, _BY_BLOCKS)),
        "paths",
    ),
    Mutant(
        "declared launch reads the wrong input",
        "AnnotatedAddCustom",
        _add_ops((_DECLARED, _DECLARE_WRONG_INPUT)),
        "reference",
    ),
    Mutant(
        "execute and the declared launch disagree",
        "AnnotatedAddCustom",
        _add_ops((_EXECUTE_ADD, "        _execute(kernel, self.OP_TYPE, x1, x1)\n")),
        "paths",
    ),
]

ORIGINALS = {
    "AnnotatedAddCustom": ADD_OPS,
    "ScaleCustom": ROOT / "ops" / "custom" / "scale_custom.py",
    "ReduceSumCustom": ROOT / "ops" / "custom" / "reduce_sum_custom.py",
}


def gen_ops_test(op: str, opp_path: str, *extra: str) -> tuple[int, dict]:
    env = dict(os.environ, ASCEND_CUSTOM_OPP_PATH=opp_path, PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run(
        [str(GEN_OPS), "test", "--specs", "specs", "--ops", op, "--format", "json"]
        + list(extra),
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_mutant_is_caught(mutant: Mutant, tmp_path: Path) -> None:
    module = tmp_path / "mutant.py"
    module.write_text(mutant.source)
    status, report = gen_ops_test(mutant.op, str(module), "--no-shrink")
    assert status == 1, report
    (result,) = report["ops"]
    assert result["status"] == "fail", result
    assert result["failure"]["property"] == mutant.caught_by, result["failure"]
    assert result["failure"]["replay"].startswith("gen-ops test --specs specs")


# The math library's broadcast plan with explicit size-1 dims not stretched
# (only the dims an input lacks are): Add's kernels read the wrong elements.
_BROADCAST = """
import inspect, sys
from ge.custom_op import bootstrap
from gen_ops import optest

bootstrap.load_custom_op_plugins({math!r})
module = next(
    m for n, m in list(sys.modules.items())
    if n.endswith("._elementwise") and hasattr(m, "broadcast_plan")
)
source = inspect.getsource(module.broadcast_plan)
old = "result[i] = 0 if padded[i] == 1 else step"
assert old in source
exec(source.replace(old, "result[i] = 0 if i < rank - len(shape) else step"), module.__dict__)
sys.exit(optest.main({argv!r}))
"""


@pytest.mark.parametrize("mutate", [False, True], ids=["original", "mutant"])
def test_wrong_broadcast_of_size_one_dims(mutate: bool) -> None:
    script = _BROADCAST.format(
        math=str(ROOT / "ops" / "math"),
        argv=["--ops", "Add", "--format", "json", "--no-shrink", "--max-cases", "8"],
    )
    if not mutate:
        script = script.replace("exec(source.replace", "(source.replace")
    env = {k: v for k, v in os.environ.items() if k != "ASCEND_CUSTOM_OPP_PATH"}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.stdout, done.stderr
    (result,) = json.loads(done.stdout)["ops"]
    if mutate:
        assert done.returncode == 1, result
        assert result["failure"]["property"] in ("reference", "memory"), result
    else:
        assert done.returncode == 0 and result["status"] == "ok", result


@pytest.mark.parametrize("op", sorted(ORIGINALS))
def test_original_passes(op: str) -> None:
    status, report = gen_ops_test(op, str(ORIGINALS[op]))
    assert status == 0, report
    (result,) = report["ops"]
    assert result["status"] == "ok" and result["cases"] > 0, result
