"""Every diagnostic gen-ops can report, each pinned to the place it points at.

CASES holds one or more small invalid (or, for W9xx, merely noteworthy) specs
per code in ``gen_ops.base.diagnostics.CODES``. Each case is written into a
temporary directory and run through the library API (``pipeline.discover``
then ``pipeline.load_and_check``). Three tests run every case: the code must
be reported at exactly ``path:line:col`` (1-based), a per-op message must name
the op, and a spec with an error must yield no model. WORDINGS pins messages
and hints, and the docs tests run every example of docs/diagnostics.md.

Cases marked ``bug=``, ``op_bug=`` or ``model_bug=`` (and wordings marked
``bug=``) document known defects. They are strict xfails: a fix makes them
fail until the mark is removed."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from textwrap import dedent
from typing import Any

import pytest

from gen_ops import cli, pipeline
from gen_ops.base.diagnostics import CODES, Diagnostic, Severity, Sink
from gen_ops.commands.base import Exit
from gen_ops.spec.model import OpSpec
from gen_ops.spec.source import MAX_SPEC_BYTES

REPO = Path(__file__).resolve().parents[2]
# The codes of spec checks; gen-ops import's I-codes are tested in
# tests/importer/test_diagnostics.py.
SPEC_CODES = {code for code in CODES if code[0] in "EW"}

Files = dict[str, str | bytes]


@dataclass(frozen=True)
class Case:
    """One spec (or a few), and the diagnostic it must produce."""

    code: str
    line: int
    col: int
    what: str  # the situation; part of the test id
    files: Files  # relative to the working directory (tmp_path)
    where: str = "spec.yaml"  # the path the diagnostic names
    roots: tuple[str, ...] = ("spec.yaml",)  # what discover() is given
    op: str = "A"  # the op a per-op message must name
    dirs: tuple[str, ...] = ()  # empty directories to create
    vanish: bool = False  # delete the files between discover and load
    bug: str | None = None  # the diagnostic is wrong or missing (xfail)
    op_bug: str | None = None  # the message does not name the op (xfail)
    model_bug: str | None = None  # a model is returned despite the error (xfail)

    @property
    def id(self) -> str:
        return f"{self.code}-{re.sub(r'[^A-Za-z0-9]+', '-', self.what).strip('-')}"


def case(code: str, pos: str, what: str, text: str | Files, **extra: object) -> Case:
    """``text`` is one spec (written to spec.yaml) or {path: content}; str
    contents are dedented, so specs can be indented in the table."""
    files: Files = {"spec.yaml": text} if isinstance(text, str) else dict(text)
    files = {
        name: dedent(body).lstrip("\n") if isinstance(body, str) else body
        for name, body in files.items()
    }
    line, col = (int(part) for part in pos.split(":"))
    return Case(code, line, col, what, files, **extra)  # type: ignore[arg-type]


FLOW_OPS = """
    op: A
    inputs:
      - {name: x, dtype: float32}
      - {name: xs, dtype: float32, dynamic: true}
      - {name: b, dtype: float32, optional: true}
"""


def with_ops(rest: str) -> str:
    """FLOW_OPS (required x, dynamic xs, optional b: lines 1-5) plus ``rest``."""
    return dedent(FLOW_OPS).lstrip("\n") + dedent(rest).lstrip("\n")


# 200001 values are reached at the 9th `x` of &a (line 1, col 32), while the
# first *e is being expanded.
ALIAS_BOMB = """
    a: &a [x, x, x, x, x, x, x, x, x, x]
    b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
    c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
    d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
    e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
    f: [*e, *e]
"""

# fmt: off
CASES: list[Case] = [
    # -- E1xx: files and YAML ----------------------------------------------
    case("E101", "1:1", "missing path", {},
         roots=("missing.yaml",), where="missing.yaml"),
    case("E101", "2:9", "not UTF-8", {"spec.yaml": b"op: A\ndoc: caf\xe9\n"}),
    case("E101", "1:1", "larger than 1 MiB",
         "op: A\ndoc: " + "x" * MAX_SPEC_BYTES + "\n"),
    case("E101", "1:1", "removed after discovery", "op: A\n", vanish=True),
    case("E102", "3:1", "tab indentation", "op: A\ninputs:\n\t- {name: x}\n"),
    case("E102", "4:1", "unclosed flow mapping", """
        op: A
        inputs:
          - {name: x, dtype: float32
    """),
    case("E102", "3:1", "unclosed quote", """
        op: A
        doc: "no end
    """),
    case("E102", "2:1", "two documents", """
        op: A
        ---
        op: B
    """),
    case("E102", "2:7", "raw control character", "op: A\ndoc: a\x01b\n"),
    case("E103", "3:1", "duplicate top-level key", """
        op: A
        doc: one
        doc: two
    """),
    case("E103", "3:31", "duplicate key in flow mapping", """
        op: A
        inputs:
          - {name: x, dtype: float32, name: y}
    """),
    case("E104", "2:6", "python object tag", """
        op: A
        doc: !!python/object/apply:os.system [echo hi]
    """),
    case("E104", "1:5", "local tag", "op: !Op A\n"),
    case("E104", "1:32", "alias bomb", ALIAS_BOMB),
    case("E104", "2:9", "recursive alias", """
        op: A
        inputs: &x [*x]
    """),
    case("E104", "2:3", "complex mapping key", """
        op: A
        ? [a, b]
        : c
    """),
    case("E104", "2:70", "nesting too deep", "op: A\ndoc: " + "[" * 65 + "]" * 65),
    case("E104", "2:6", "bad binary", "op: A\ndoc: !!binary '@@@'\n"),
    case("E105", "1:1", "empty directory", {},
         dirs=("specs",), roots=("specs",), where="specs"),
    case("E105", "1:1", "directory without yaml", {"specs/notes.txt": "op: A\n"},
         roots=("specs",), where="specs"),
    case("E106", "1:1", "file name with a newline", {"specs/a\nb.yaml": "op: A\n"},
         roots=("specs",), where="specs/a\nb.yaml"),
    case("E106", "1:1", "file name with a bidi override",
         {"specs/a\u202eb.yaml": "op: A\n"}, roots=("specs",),
         where="specs/a\u202eb.yaml"),
    case("E106", "1:1", "file name that is not UTF-8",
         {"specs/\udcff.yaml": "op: A\n"}, roots=("specs",),
         where="specs/\udcff.yaml"),
    case("E106", "1:1", "directory name with a newline", {"s\nx/a.yaml": "op: A\n"},
         roots=("s\nx",), where="s\nx/a.yaml"),
    # -- E2xx: structure ---------------------------------------------------
    case("E201", "2:1", "top-level key", """
        op: A
        modul: custom
    """),
    case("E201", "3:31", "input key", """
        op: A
        inputs:
          - {name: x, dtype: float32, optinal: true}
    """),
    case("E201", "3:41", "comma in flow value", """
        op: A
        inputs:
          - {name: x, dtype: float32, doc: one, two}
    """),
    case("E202", "1:1", "no op", "module: custom\n"),
    case("E202", "3:5", "input without dtype", """
        op: A
        inputs:
          - {name: x}
    """),
    case("E202", "3:3", "impl without capabilities", """
        op: A
        impl:
          kernel: k
    """),
    case("E203", "1:1", "empty file", ""),
    case("E203", "1:1", "spec is a list", "- op: A\n"),
    case("E203", "2:9", "inputs is a string", """
        op: A
        inputs: x
    """),
    case("E203", "3:22", "dtype is a number", """
        op: A
        inputs:
          - {name: x, dtype: 3}
    """),
    case("E203", "3:41", "yes is not a boolean", """
        op: A
        inputs:
          - {name: x, dtype: float32, optional: yes}
    """),
    case("E203", "5:14", "shape is a number", """
        op: A
        outputs:
          - {name: y, dtype: float32}
        infer_meta:
          y: {shape: 3, dtype: float32}
    """),
    case("E203", "2:1", "key is not a name", """
        op: A
        1: one
    """),
    case("E204", "1:5", "op pattern", "op: add-custom\n"),
    case("E204", "3:3", "type variable name", """
        op: A
        dtypes:
          1T: [float32]
    """),
    case("E204", "3:21", "attr type", """
        op: A
        attrs:
          - {name: n, type: integer}
    """),
    case("E204", "3:6", "empty dtype list", """
        op: A
        dtypes:
          T: []
    """),
    case("E204", "5:18", "dim below -1", """
        op: A
        outputs:
          - {name: y, dtype: float32}
        infer_meta:
          y: {shape: [2, -3], dtype: float32}
    """),
    case("E204", "3:17", "capability twice", """
        op: A
        impl:
          capabilities: [execute, execute]
    """),
    case("E204", "4:11", "kernel name", """
        op: A
        impl:
          capabilities: [execute]
          kernel: my-kernel
    """),
    case("E204", "6:7", "launch argument with two keys", """
        op: A
        impl:
          capabilities: [declare_launch_args]
          kernel: k
          launch_args:
            - {workspace: 8, attr: n}
    """),
    case("E204", "6:18", "workspace of 0 bytes", """
        op: A
        impl:
          capabilities: [declare_launch_args]
          kernel: k
          launch_args:
            - workspace: 0
    """),
    # Patterns match the whole value: a trailing newline is not "the end".
    case("E204", "1:5", "op ends in a newline", 'op: "RelNl\\n"\n'),
    case("E204", "2:9", "module ends in a newline", 'op: A\nmodule: "cu\\n"\n'),
    case("E204", "3:12", "input name ends in a newline", """
        op: A
        inputs:
          - {name: "x\\n", dtype: float32}
    """),
    case("E204", "3:3", "type variable ends in a newline", """
        op: A
        dtypes:
          "T\\n": [float32]
    """),
    case("E204", "5:3", "infer_meta key ends in a newline", """
        op: A
        outputs:
          - {name: y, dtype: float32}
        infer_meta:
          "y\\n": {shape: [1], dtype: float32}
    """),
    case("E204", "4:11", "kernel ends in a newline", """
        op: A
        impl:
          capabilities: [execute]
          kernel: "k\\n"
    """),
    case("E204", "4:11", "author ends in a newline", """
        op: A
        impl:
          capabilities: [execute]
          author: "a.py\\n"
    """),
    case("E204", "6:14", "launch argument names with a newline", """
        op: A
        impl:
          capabilities: [declare_launch_args]
          kernel: k
          launch_args:
            - {attr: "n\\n"}
    """),
    case("E204", "2:8", "since holds a newline", 'op: A\nsince: "1.0\\n# x"\n'),
    case("E204", "2:13", "deprecated holds a bidi override", """
        op: A
        deprecated: "2.0\\u202e"
    """),
    case("E301", "4:12", "input twice", """
        op: A
        inputs:
          - {name: x, dtype: float32}
          - {name: x, dtype: float32}
    """),
    case("E301", "4:12", "output twice", """
        op: A
        outputs:
          - {name: y, dtype: float32}
          - {name: y, dtype: float32}
    """),
    case("E301", "4:12", "attr twice", """
        op: A
        attrs:
          - {name: n, type: int}
          - {name: n, type: int}
    """),
    case("E301", "4:12", "graph twice", """
        op: A
        graphs:
          - {name: g}
          - {name: g}
    """),
    case("E303", "2:6", "op doc", """
        op: A
        doc: "bell \\x07"
    """),
    case("E303", "3:36", "input doc", """
        op: A
        inputs:
          - {name: x, dtype: float32, doc: "a\\rb"}
    """),
    case("E303", "2:6", "bidi override in the op doc", """
        op: A
        doc: "abc \\u202e def"
    """),
    case("E303", "3:36", "bidi isolate in an input doc", """
        op: A
        inputs:
          - {name: x, dtype: float32, doc: "a\\u2066b\\u2069"}
    """),
    case("E303", "2:6", "C1 control in a doc", """
        op: A
        doc: "next\\x85line"
    """),
    case("E304", "2:9", "module is a keyword", """
        op: A
        module: class
    """),
    case("E304", "2:9", "module is the runtime's", """
        op: A
        module: graph_builder
    """),
    case("E304", "1:5", "op type a GE name every REG_OP may use", "op: Tensor\n",
         op="Tensor"),
    case("E304", "1:5", "op type a DataType enumerator", "op: DT_FLOAT\n",
         op="DT_FLOAT"),
    case("E304", "1:5", "op type the Op<Type> of its own attr", """
        op: OpInt
        attrs:
          - {name: n, type: int, default: 1}
    """, op="OpInt"),
    case("E304", "1:5", "op type imported by its builder module", """
        op: GraphBuilder
        outputs:
          - {name: y, dtype: float32}
    """, op="GraphBuilder"),
    case("E304", "1:5", "op type imported by its author module", """
        op: TensorDesc
        outputs:
          - {name: y, dtype: float32}
        impl:
          capabilities: [execute]
    """, op="TensorDesc"),
    case("E304", "5:12", "attr a name the generated bodies use", """
        op: A
        outputs:
          - {name: y, dtype: float32}
        attrs:
          - {name: _y_shape, type: int}
        impl:
          capabilities: [execute]
    """),
    case("E304", "5:12", "attr keyword with impl", """
        op: A
        outputs:
          - {name: y, dtype: float32}
        attrs:
          - {name: lambda, type: int}
        impl:
          capabilities: [execute]
    """),
    case("E304", "5:12", "attr self with impl", """
        op: A
        outputs:
          - {name: y, dtype: float32}
        attrs:
          - {name: self, type: int}
        impl:
          capabilities: [execute]
    """),
    case("E305", "3:56", "flow", """
        op: A
        inputs:
          - {name: x, dtype: float32, optional: true, dynamic: true}
    """),
    case("E305", "6:14", "block", """
        op: A
        inputs:
          - name: x
            dtype: float32
            optional: true
            dynamic: true
    """),
    case("E306", "6:12", "graph accessors clash", """
        op: A
        outputs:
          - {name: y, dtype: float32}
        graphs:
          - {name: g}
          - {name: builder_g}
    """),
    case("E306", "4:12", "dynamic graph accessors clash", """
        op: A
        graphs:
          - {name: g, dynamic: true}
          - {name: builder_g, dynamic: true}
    """),
    case("E307", "1:5", "op type pastes into a glibc macro", """
        op: LEAF
        outputs:
          - {name: y, dtype: float32}
    """, op="LEAF"),
    case("E307", "3:12", "attr pastes into a glibc macro", """
        op: A
        attrs:
          - {name: access, type: int, default: 0}
    """),
    case("E304", "1:5", "op type shadows a GE C++ type", """
        op: TensorType
        outputs:
          - {name: y, dtype: float32}
    """, op="TensorType"),
    case("E308", "1:5", "Data", "op: Data\n", op="Data"),
    case("E308", "1:5", "Const", "op: Const\n", op="Const"),
    case("E308", "1:5", "RefData", "op: RefData\n", op="RefData"),
    case("E308", "1:5", "NetOutput", "op: NetOutput\n", op="NetOutput"),
    case("E308", "1:5", "Variable", "op: Variable\n", op="Variable"),
    # -- E4xx: dtypes ------------------------------------------------------
    case("E401", "3:32", "in an input's list", """
        op: A
        inputs:
          - {name: x, dtype: [float32, flaot16]}
    """),
    case("E401", "3:16", "in a type variable's list", """
        op: A
        dtypes:
          T: [float32, f16]
        inputs:
          - {name: x, dtype: T}
    """),
    case("E401", "3:6", "type variable set to a misspelt dtype", """
        op: A
        dtypes:
          T: floatt
        inputs:
          - {name: x, dtype: T}
    """),
    case("E401", "3:34", "unknown name in a union with a named set", """
        op: A
        inputs:
          - {name: x, dtype: [BasicType, boool]}
    """),
    case("E401", "3:14", "unknown name in a list type variable", """
        op: A
        dtypes:
          T: {list: [flaot32]}
        inputs:
          - {name: x, dtype: T, dynamic: true}
    """),
    case("E402", "3:22", "undeclared type variable", """
        op: A
        inputs:
          - {name: x, dtype: T}
    """),
    case("E402", "3:22", "misspelt dtype", """
        op: A
        outputs:
          - {name: y, dtype: flot32}
    """),
    case("E403", "3:3", "dtype name", """
        op: A
        dtypes:
          float32: [float16]
        inputs:
          - {name: x, dtype: float32}
    """),
    case("E403", "3:3", "named set name", """
        op: A
        dtypes:
          ALL: [float16]
        inputs:
          - {name: x, dtype: ALL}
    """),
    case("E404", "4:20", "promotes an undeclared name", """
        op: A
        dtypes:
          T: [float32]
          P: {promote: [T, U]}
        inputs:
          - {name: x, dtype: T}
        outputs:
          - {name: y, dtype: P}
    """),
    case("E404", "5:20", "promotes a list type variable", """
        op: A
        dtypes:
          T: [float32]
          L: {list: [float32]}
          P: {promote: [T, L]}
        inputs:
          - {name: x, dtype: T}
          - {name: xs, dtype: L, dynamic: true}
        outputs:
          - {name: y, dtype: P}
    """),
    case("E404", "6:17", "promotes a promoted type variable", """
        op: A
        dtypes:
          T: [float32]
          U: [int32]
          P: {promote: [T, U]}
          Q: {promote: [P, T]}
        inputs:
          - {name: x, dtype: T}
          - {name: u, dtype: U}
        outputs:
          - {name: y, dtype: Q}
    """),
    case("E404", "5:20", "promotes a variable only an optional input has", """
        op: A
        dtypes:
          T: [float32]
          U: [int32]
          P: {promote: [T, U]}
        inputs:
          - {name: x, dtype: T}
          - {name: b, dtype: U, optional: true}
        outputs:
          - {name: y, dtype: P}
    """),
    case("E405", "5:22", "list type variable on a static input", """
        op: A
        dtypes:
          L: {list: [float32, int32]}
        inputs:
          - {name: x, dtype: L}
    """),
    case("E405", "5:22", "list type variable on a static output", """
        op: A
        dtypes:
          L: {list: [float32, int32]}
        outputs:
          - {name: y, dtype: L}
    """),
    case("E405", "9:22", "promoted type variable on an input", """
        op: A
        dtypes:
          T: [float32]
          U: [int32]
          P: {promote: [T, U]}
        inputs:
          - {name: x, dtype: T}
          - {name: u, dtype: U}
          - {name: z, dtype: P}
    """),
    case("E406", "5:16", "no pair of dtypes promotes", """
        op: A
        dtypes:
          T: [uint16]
          U: [int8, float32]
          P: {promote: [T, U]}
        inputs:
          - {name: x, dtype: T}
          - {name: u, dtype: U}
        outputs:
          - {name: y, dtype: P}
    """),
    # -- E5xx: attrs -------------------------------------------------------
    case("E501", "3:42", "undefined in a list_dtype default", """
        op: A
        attrs:
          - {name: l, type: list_dtype, default: [float32, undefined]}
    """),
    case("E501", "3:35", "int from text", """
        op: A
        attrs:
          - {name: n, type: int, default: abc}
    """),
    case("E501", "3:35", "int beyond int64", """
        op: A
        attrs:
          - {name: n, type: int, default: 9223372036854775808}
    """),
    case("E501", "3:36", "bool from int", """
        op: A
        attrs:
          - {name: b, type: bool, default: 1}
    """),
    case("E501", "3:37", "quoted float", """
        op: A
        attrs:
          - {name: f, type: float, default: '1.5'}
    """),
    case("E501", "3:37", "float beyond float32", """
        op: A
        attrs:
          - {name: f, type: float, default: 1.0e+39}
    """),
    case("E501", "3:37", "float that rounds to 0 in float32", """
        op: A
        attrs:
          - {name: f, type: float, default: 1.0e-50}
    """),
    case("E501", "3:37", "unknown dtype", """
        op: A
        attrs:
          - {name: d, type: dtype, default: flaot32}
    """),
    case("E501", "3:38", "tensor not empty", """
        op: A
        attrs:
          - {name: t, type: tensor, default: [1]}
    """),
    case("E501", "3:40", "list_int element", """
        op: A
        attrs:
          - {name: l, type: list_int, default: [1, a]}
    """),
    case("E502", "5:46", "default and derive", """
        op: A
        inputs:
          - {name: x, dtype: float32, dynamic: true}
        attrs:
          - {name: n, type: int, default: 0, derive: len(x)}
    """),
    # -- E6xx: count, derive and infer_meta rules --------------------------
    case("E601", "3:53", "count is not a call", """
        op: A
        outputs:
          - {name: y, dtype: float32, dynamic: true, count: three}
    """),
    case("E601", "3:53", "count calls an unknown rule", """
        op: A
        outputs:
          - {name: y, dtype: float32, dynamic: true, count: size(x)}
    """),
    case("E601", "3:53", "count with two names", """
        op: A
        outputs:
          - {name: y, dtype: float32, dynamic: true, count: 'len(a, b)'}
    """),
    case("E601", "3:53", "count argument not a name", """
        op: A
        outputs:
          - {name: y, dtype: float32, dynamic: true, count: len(1)}
    """),
    case("E601", "3:34", "derive calls an unknown rule", """
        op: A
        attrs:
          - {name: n, type: int, derive: count(x)}
    """),
    case("E601", "5:14", "shape calls an unknown rule", """
        op: A
        outputs:
          - {name: y, dtype: float32}
        infer_meta:
          y: {shape: same(x), dtype: float32}
    """),
    case("E601", "5:14", "broadcast of nothing", """
        op: A
        outputs:
          - {name: y, dtype: float32}
        infer_meta:
          y: {shape: broadcast(), dtype: float32}
    """),
    case("E601", "5:26", "dtype calls an unknown rule", """
        op: A
        outputs:
          - {name: y, dtype: float32}
        infer_meta:
          y: {shape: [1], dtype: dtype(x)}
    """),
    case("E601", "9:27", "unquoted rule split by flow style", with_ops("""
        outputs:
          - {name: y, dtype: float32}
        infer_meta:
          y: {shape: broadcast(x, b), dtype: x}
    """)),
    case("E602", "3:53", "count len of unknown input", """
        op: A
        outputs:
          - {name: y, dtype: float32, dynamic: true, count: len(x)}
    """),
    case("E602", "3:53", "count attr of unknown attr", """
        op: A
        outputs:
          - {name: y, dtype: float32, dynamic: true, count: attr(n)}
    """),
    case("E602", "3:34", "derive of unknown input", """
        op: A
        attrs:
          - {name: n, type: int, derive: len(x)}
    """),
    case("E602", "6:3", "infer_meta for unknown output", """
        op: A
        outputs:
          - {name: y, dtype: float32}
        infer_meta:
          y: {shape: [1], dtype: float32}
          z: {shape: [1], dtype: float32}
    """),
    case("E602", "9:14", "shape of unknown input", with_ops("""
        outputs:
          - {name: y, dtype: float32}
        infer_meta:
          y: {shape: same_as(w), dtype: float32}
    """)),
    case("E602", "9:14", "shape of unknown attr", with_ops("""
        outputs:
          - {name: y, dtype: float32}
        infer_meta:
          y: {shape: attr(dims), dtype: float32}
    """)),
    case("E602", "9:26", "dtype of unknown attr", with_ops("""
        outputs:
          - {name: y, dtype: float32}
        infer_meta:
          y: {shape: [1], dtype: attr(t)}
    """)),
    case("E602", "9:26", "dtype neither input nor dtype", with_ops("""
        outputs:
          - {name: y, dtype: float32}
        infer_meta:
          y: {shape: [1], dtype: w}
    """)),
    case("W907", "7:12", "output named like an input, one side dynamic", with_ops("""
        outputs:
          - {name: xs, dtype: float32}
    """)),
    case("E607", "7:53", "count len of non-dynamic input", with_ops("""
        outputs:
          - {name: y, dtype: float32, dynamic: true, count: len(x)}
    """)),
    case("E609", "9:53", "count attr of float attr", with_ops("""
        attrs:
          - {name: n, type: float}
        outputs:
          - {name: y, dtype: float32, dynamic: true, count: attr(n)}
    """)),
    case("E608", "7:36", "derive len into float attr", with_ops("""
        attrs:
          - {name: n, type: float, derive: len(xs)}
    """)),
    case("E607", "7:34", "derive len of non-dynamic input", with_ops("""
        attrs:
          - {name: n, type: int, derive: len(x)}
    """)),
    case("E608", "7:34", "derive dtype into int attr", with_ops("""
        attrs:
          - {name: n, type: int, derive: dtype(x)}
    """)),
    case("E612", "7:36", "derive dtype of optional input", with_ops("""
        attrs:
          - {name: t, type: dtype, derive: dtype(b)}
    """)),
    case("E609", "11:14", "shape attr not list_int", with_ops("""
        attrs:
          - {name: n, type: int}
        outputs:
          - {name: y, dtype: float32}
        infer_meta:
          y: {shape: attr(n), dtype: float32}
    """)),
    case("E610", "9:53", "count attr defaults below zero", with_ops("""
        attrs:
          - {name: n, type: int, default: -1}
        outputs:
          - {name: y, dtype: float32, dynamic: true, count: attr(n)}
    """)),
    case("E611", "9:14", "same_as dynamic input", with_ops("""
        outputs:
          - {name: y, dtype: float32}
        infer_meta:
          y: {shape: same_as(xs), dtype: float32}
    """)),
    case("E612", "9:14", "same_as optional input", with_ops("""
        outputs:
          - {name: y, dtype: float32}
        infer_meta:
          y: {shape: same_as(b), dtype: float32}
    """)),
    case("E609", "11:26", "dtype attr not dtype", with_ops("""
        attrs:
          - {name: n, type: int}
        outputs:
          - {name: y, dtype: float32}
        infer_meta:
          y: {shape: [1], dtype: attr(n)}
    """)),
    case("E612", "9:26", "dtype of optional input", with_ops("""
        outputs:
          - {name: y, dtype: float32}
        infer_meta:
          y: {shape: [1], dtype: b}
    """)),
    case("E613", "7:26", "dtype sets do not overlap", """
        op: A
        inputs:
          - {name: x, dtype: int32}
        outputs:
          - {name: y, dtype: float32}
        infer_meta:
          y: {shape: [1], dtype: x}
    """),
    case("E613", "5:26", "fixed dtype not allowed", """
        op: A
        outputs:
          - {name: y, dtype: float32}
        infer_meta:
          y: {shape: [1], dtype: int32}
    """),
    case("E604", "6:3", "one output without a rule", """
        op: A
        outputs:
          - {name: y, dtype: float32}
          - {name: z, dtype: float32}
        infer_meta:
          y: {shape: [1], dtype: float32}
    """),
    case("E604", "4:13", "empty infer_meta", """
        op: A
        outputs:
          - {name: y, dtype: float32}
        infer_meta: {}
    """),
    case("E606", "5:3", "dtype-only rule without impl", """
        op: A
        outputs:
          - {name: y, dtype: float32}
        infer_meta:
          y: {dtype: float32}
    """),
    case("E606", "9:3", "shape-only rule without impl", with_ops("""
        outputs:
          - {name: y, dtype: float32}
        infer_meta:
          y: {shape: same_as(x)}
    """)),
    case("E204", "5:6", "infer_meta entry with neither rule", """
        op: A
        outputs:
          - {name: y, dtype: float32}
        infer_meta:
          y: {}
    """),
    case("E605", "5:38", "count without dynamic", """
        op: A
        attrs:
          - {name: n, type: int}
        outputs:
          - {name: y, dtype: float32, count: attr(n)}
    """),
    case("E614", "12:33", "dtype rule of a promoted output", """
        op: A
        dtypes:
          T: [float32, int32]
          U: [float16]
          P: {promote: [T, U]}
        inputs:
          - {name: x, dtype: T}
          - {name: u, dtype: U}
        outputs:
          - {name: y, dtype: P}
        infer_meta:
          y: {shape: same_as(x), dtype: x}
        impl:
          capabilities: [execute]
    """),
    case("E614", "9:27", "dtype rule of a list output", """
        op: A
        dtypes:
          L: {list: [float32, int32]}
        inputs:
          - {name: xs, dtype: L, dynamic: true}
        outputs:
          - {name: ys, dtype: L, dynamic: true, count: len(xs)}
        infer_meta:
          ys: {shape: [2], dtype: float32}
    """),
    # -- E7xx: impl --------------------------------------------------------
    case("E701", "6:14", "unknown input", """
        op: A
        impl:
          capabilities: [declare_launch_args]
          kernel: k
          launch_args:
            - input: x
    """),
    case("E701", "6:15", "unknown output", """
        op: A
        impl:
          capabilities: [declare_launch_args]
          kernel: k
          launch_args:
            - output: y
    """),
    case("E701", "8:13", "unknown attr", """
        op: A
        attrs:
          - {name: n, type: int}
        impl:
          capabilities: [declare_launch_args]
          kernel: k
          launch_args:
            - attr: m
    """),
    case("E702", "8:13", "str attr", """
        op: A
        attrs:
          - {name: s, type: str}
        impl:
          capabilities: [declare_launch_args]
          kernel: k
          launch_args:
            - attr: s
    """),
    case("E702", "8:13", "list_int attr", """
        op: A
        attrs:
          - {name: l, type: list_int}
        impl:
          capabilities: [declare_launch_args]
          kernel: k
          launch_args:
            - attr: l
    """),
    case("E703", "6:5", "no declare_launch_args", """
        op: A
        impl:
          capabilities: [execute]
          kernel: k
          launch_args:
            - workspace: 8
    """),
    case("E703", "5:5", "no kernel", """
        op: A
        impl:
          capabilities: [declare_launch_args]
          launch_args:
            - workspace: 8
    """),
    case("E701", "7:16", "unknown call argument", """
        op: A
        impl:
          capabilities: [declare_launch_args]
          library:
            function: call
            call_args:
              - input: x
    """),
case("E703", "6:11", "library and kernel", """
        op: A
        outputs:
          - {name: z, dtype: float32}
        impl:
          capabilities: [declare_launch_args]
          kernel: k
          library:
            call_args:
              - output: z
    """),
    case("E703", "7:5", "library with execute", """
        op: A
        outputs:
          - {name: z, dtype: float32}
        impl:
          capabilities: [execute, declare_launch_args]
          library:
            call_args:
              - output: z
    """),
    case("E705", "10:16", "optional input in call_args", """
        op: A
        inputs:
          - {name: x, dtype: float32, optional: true}
        outputs:
          - {name: z, dtype: float32}
        impl:
          capabilities: [declare_launch_args]
          library:
            call_args:
              - input: x
              - output: z
    """),
    case("E705", "11:17", "output passed twice", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs:
          - {name: z, dtype: float32}
        impl:
          capabilities: [declare_launch_args]
          library:
            call_args:
              - output: z
              - output: z
    """),
    case("E704", "4:11", "absolute author path", """
        op: A
        impl:
          capabilities: [execute]
          author: /tmp/evil.py
    """),
    case("E704", "4:11", "author path climbs with ..", """
        op: A
        impl:
          capabilities: [execute]
          author: ops/../../evil.py
    """),
    case("E704", "4:11", "author path with a backslash", """
        op: A
        impl:
          capabilities: [execute]
          author: 'ops\\evil.py'
    """),
    case("E704", "4:11", "author path with a drive letter", """
        op: A
        impl:
          capabilities: [execute]
          author: 'C:/evil.py'
    """),
    case("E704", "4:11", "author path with a bidi override", """
        op: A
        impl:
          capabilities: [execute]
          author: "ops/\\u202eyp.evil.py"
    """),
    case("E704", "4:11", "author path with a tab", """
        op: A
        impl:
          capabilities: [execute]
          author: "ops/a\\tb.py"
    """),
    # -- E8xx: across specs ------------------------------------------------
    case("E801", "1:5", "same op in two files", {
        "specs/a.yaml": "op: AddCustom\n",
        "specs/b.yaml": "op: AddCustom\n",
    }, roots=("specs",), where="specs/b.yaml", op="AddCustom"),
    case("E801", "2:5", "same op in two modules", {
        "specs/a.yaml": "op: AddCustom\n",
        "specs/b.yaml": "module: other\nop: AddCustom\n",
    }, roots=("specs",), where="specs/b.yaml", op="AddCustom"),
    case("E802", "1:5", "AddCustom and Add_Custom share a file", {
        "specs/a.yaml": "op: AddCustom\n",
        "specs/b.yaml": "op: Add_Custom\n",
    }, roots=("specs",), where="specs/b.yaml", op="Add_Custom"),
    case("E802", "1:5", "ADDCustom and AddCustom share a file", {
        "specs/a.yaml": "op: AddCustom\n",
        "specs/b.yaml": "op: ADDCustom\n",
    }, roots=("specs",), where="specs/b.yaml", op="ADDCustom"),
    case("E802", "1:5", "op named like the aggregate header", "op: CustomOps\n",
         op="CustomOps"),
    case("E802", "1:5", "FooOutput clashes with the result class of Foo", {
        "specs/a.yaml": """
            op: Foo
            outputs:
              - {name: y, dtype: float32}
              - {name: z, dtype: float32}
        """,
        "specs/b.yaml": "op: FooOutput\n",
    }, roots=("specs",), where="specs/b.yaml", op="FooOutput"),
    # -- W9xx: notes -------------------------------------------------------
    case("W901", "3:12", "input", """
        op: A
        inputs:
          - {name: lambda, dtype: float32}
    """),
    case("W901", "3:12", "output", """
        op: A
        outputs:
          - {name: return, dtype: float32}
          - {name: y, dtype: float32}
    """),
    case("W901", "3:12", "graph", """
        op: A
        graphs:
          - {name: if}
    """),
    case("W901", "3:12", "attr without infer_meta and impl", """
        op: A
        attrs:
          - {name: lambda, type: int}
    """),
    case("W902", "3:12", "input", """
        op: A
        inputs:
          - {name: new, dtype: float32}
    """),
    case("W902", "3:12", "output", """
        op: A
        outputs:
          - {name: delete, dtype: float32}
    """),
    case("W902", "3:12", "attr", """
        op: A
        attrs:
          - {name: int, type: int}
    """),
    case("W903", "3:3", "unused type variable", """
        op: A
        dtypes:
          T: [float32]
        inputs:
          - {name: x, dtype: [float32]}
    """),
    case("W904", "3:12", "input called name", """
        op: A
        inputs:
          - {name: name, dtype: float32}
    """),
    case("W904", "5:12", "attr called owner_builder of an all-optional op", """
        op: A
        inputs:
          - {name: x, dtype: float32, optional: true}
        attrs:
          - {name: owner_builder, type: int}
    """),
    case("W904", "3:12", "attr called owner_graph_builder of an op without inputs", """
        op: A
        attrs:
          - {name: owner_graph_builder, type: int}
    """),
    case("W904", "5:12", "attr called name takes the node-name keyword's name", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        attrs:
          - {name: name, type: int}
    """),
    case("W904", "5:12", "attr named like an input", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        attrs:
          - {name: x, type: int}
    """),
    case("W904", "5:12", "ref output", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs:
          - {name: x, dtype: float32}
          - {name: y, dtype: float32}
    """),
    case("E310", "3:43", "required input deprecated", """
        op: A
        inputs:
          - {name: x, dtype: float32, deprecated: 1.1.0}
    """),
    case("E310", "5:18", "dynamic input deprecated", """
        op: A
        inputs:
          - {name: x, dtype: float32}
          - {name: xs, dtype: float32, dynamic: true,
             deprecated: 1.1.0}
    """),
    case("E310", "3:38", "required attr deprecated", """
        op: A
        attrs:
          - {name: n, type: int, deprecated: 1.1.0}
    """),
    case("E310", "5:54", "derived attr deprecated", """
        op: A
        inputs:
          - {name: x, dtype: float32, dynamic: true}
        attrs:
          - {name: n, type: int, derive: len(x), deprecated: 1.1.0}
    """),
    case("E311", "5:60", "earlier name is another parameter", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        attrs:
          - {name: k, type: int, default: 0, renamed_from: [{name: x, release: 1.1.0}]}
    """),
    case("E311", "4:28", "earlier name is the current name", """
        op: A
        attrs:
          - {name: k, type: int, default: 0,
             renamed_from: [{name: k, release: 1.1.0}]}
    """),
    case("E311", "4:28", "earlier name is a Python keyword", """
        op: A
        attrs:
          - {name: k, type: int, default: 0,
             renamed_from: [{name: lambda, release: 1.1.0}]}
    """),
    case("E311", "6:28", "earlier name kept twice", """
        op: A
        attrs:
          - {name: k, type: int, default: 0,
             renamed_from: [{name: old, release: 1.1.0}]}
          - {name: j, type: int, default: 0,
             renamed_from: [{name: old, release: 1.2.0}]}
    """),
    case("E311", "6:28", "earlier name of a derived attr", """
        op: A
        inputs:
          - {name: x, dtype: float32, dynamic: true}
        attrs:
          - {name: n, type: int, derive: len(x),
             renamed_from: [{name: count, release: 1.1.0}]}
    """),
    # -- reuse_input (semantics/reuse.py) ------------------------------------
    case("E615", "5:44", "reuse_input of an unknown input", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs:
          - {name: y, dtype: float32, reuse_input: xx}
        infer_meta:
          y: {shape: same_as(x), dtype: x}
    """),
    case("E616", "5:55", "reuse_input of an input of another dtype", """
        op: A
        inputs:
          - {name: x, dtype: [float32, float16]}
        outputs:
          - {name: y, dtype: [float32, float16], reuse_input: x}
    """),
    case("E617", "5:59", "reuse_input on a dynamic output", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs:
          - {name: y, dtype: float32, dynamic: true, reuse_input: x}
    """),
    case("E617", "6:44", "reuse_input of a dynamic input", """
        op: A
        inputs:
          - {name: x, dtype: float32}
          - {name: xs, dtype: float32, dynamic: true}
        outputs:
          - {name: y, dtype: float32, reuse_input: xs}
    """),
    case("E617", "5:44", "reuse_input on a ref output", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs:
          - {name: x, dtype: float32, reuse_input: x}
    """),
    case("E617", "6:44", "one input reused by two outputs", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs:
          - {name: y, dtype: float32, reuse_input: x}
          - {name: z, dtype: float32, reuse_input: x}
    """),
    case("E621", "5:12", "reference reads an unknown name", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs: [{name: y, dtype: float32}]
        reference: x * alpha
    """),
    case("E621", "5:12", "reference does not parse", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs: [{name: y, dtype: float32}]
        reference: x *
    """),
    case("E631", "6:14", "elementwise uses an operator outside the grammar", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs: [{name: y, dtype: float32}]
        infer_meta: {y: {shape: same_as(x), dtype: x}}
        elementwise: x ** 2
    """),
    case("E631", "6:14", "elementwise calls an unknown function", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs: [{name: y, dtype: float32}]
        infer_meta: {y: {shape: same_as(x), dtype: x}}
        elementwise: erf(x)
    """),
    case("E632", "6:14", "elementwise reads an unknown name", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs: [{name: y, dtype: float32}]
        infer_meta: {y: {shape: same_as(x), dtype: x}}
        elementwise: x * scale
    """),
    case("E632", "9:14", "elementwise reads an optional input unguarded", """
        op: A
        inputs:
          - {name: x, dtype: float32}
          - {name: b, dtype: float32, optional: true}
        outputs: [{name: y, dtype: float32}]
        attrs:
          - {name: alpha, type: float, default: 1.0}
        infer_meta: {y: {shape: same_as(x), dtype: x}}
        elementwise: x * alpha + b
    """),
    case("E632", "8:14", "elementwise reads a str attr", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs: [{name: y, dtype: float32}]
        attrs:
          - {name: mode, type: str, default: a}
        infer_meta: {y: {shape: same_as(x), dtype: x}}
        elementwise: x * mode
    """),
    case("E633", "7:14", "elementwise op of integer dtypes", """
        op: A
        dtypes: {T: [float32, int32]}
        inputs:
          - {name: x, dtype: T}
        outputs: [{name: y, dtype: T}]
        infer_meta: {y: {shape: same_as(x), dtype: x}}
        elementwise: x + x
    """),
    case("E633", "8:14", "elementwise op whose inputs differ in dtype", """
        op: A
        dtypes: {T: [float32], U: [float16]}
        inputs:
          - {name: x, dtype: T}
          - {name: z, dtype: U}
        outputs: [{name: y, dtype: T}]
        infer_meta: {y: {shape: same_as(x), dtype: x}}
        elementwise: x + z
    """),
    case("E633", "5:14", "elementwise op without a shape rule", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs: [{name: y, dtype: float32}]
        elementwise: x + x
    """),
    case("E622", "7:16", "shape rule names an unknown input", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs: [{name: y, dtype: float32}]
        samples:
          shapes:
            - {x: [n], z: [n]}
    """),
    case("E622", "7:7", "shape rule leaves out a required input", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs: [{name: y, dtype: float32}]
        samples:
          shapes:
            - {}
    """),
    case("E622", "9:12", "dim reads a float attr", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs: [{name: y, dtype: float32}]
        attrs:
          - {name: alpha, type: float, default: 1.0}
        samples:
          shapes:
            - {x: [alpha]}
    """),
    case("E623", "8:24", "attr grid value of the wrong type", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs: [{name: y, dtype: float32}]
        attrs:
          - {name: alpha, type: float, default: 1.0}
        samples:
          attrs: {alpha: [1.0, one]}
    """),
    case("E623", "6:11", "attr grid of an unknown attr", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs: [{name: y, dtype: float32}]
        samples:
          attrs: {beta: [1]}
    """),
    case("E624", "6:3", "tolerance for a dtype the op never takes", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs: [{name: y, dtype: float32}]
        tolerance:
          float16: {atol: 0.001, rtol: 0.001}
    """),
    case("E624", "6:27", "unknown special value", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs: [{name: y, dtype: float32}]
        samples:
          values: {special: [nan, infinity]}
    """),
    case("E625", "7:34", "error case expects a non-exception", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs: [{name: y, dtype: float32}]
        samples:
          errors:
            - {shapes: {x: [3]}, raises: Oops}
    """),
    case("E625", "7:20", "error case gives an unknown dtype", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs: [{name: y, dtype: float32}]
        samples:
          errors:
            - {dtypes: {x: float99}, raises: TypeError}
    """),
    case("E628", "6:11", "samples.graphs for an op without graphs", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs: [{name: y, dtype: float32}]
        samples:
          graphs: ops.control._samples:if_custom
    """),
    case("E628", "7:1", "a subgraph op with a reference and no samples.graphs", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs: [{name: y, dtype: float32}]
        graphs:
          - {name: body}
        reference: x
    """),
    case("W906", "5:44", "reuse_input without a generated prototype", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        outputs:
          - {name: y, dtype: float32, reuse_input: x}
    """),
    case("W905", "3:21", "named_attrs attr", """
        op: A
        attrs:
          - {name: f, type: named_attrs}
    """),
    case("W905", "4:21", "list_named_attrs attr with a default", """
        op: A
        attrs:
          - {name: i, type: int}
          - {name: l, type: list_named_attrs, default: []}
    """),
]
# fmt: on


def run(case: Case, root: Path) -> tuple[Sink, list[OpSpec]]:
    """Write the case's files under ``root`` (the working directory) and run
    discovery, loading and checking on them."""
    for name in case.dirs:
        (root / name).mkdir(parents=True)
    for name, body in case.files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(body, bytes):
            path.write_bytes(body)
        else:
            path.write_text(body, encoding="utf-8")
    sink = Sink()
    files = pipeline.discover([Path(r) for r in case.roots], sink)
    if case.vanish:
        for name in case.files:
            (root / name).unlink()
    models = pipeline.load_and_check(files, sink)
    return sink, models


def listing(sink: Sink) -> str:
    return "\n".join(d.format() for d in sink.sorted()) or "(no diagnostics)"


def per_op(code: str) -> bool:
    """Semantic codes (E3xx-E7xx, W9xx) start their messages with the op."""
    return code[1] in "34567" or code.startswith("W")


def names_op(code: str) -> bool:
    """Codes whose message must name the op: the per-op semantic codes and
    the E8xx conflicts (which quote the op)."""
    return per_op(code) or code.startswith("E8")


def marked(aspect: str, only: Callable[[Case], bool] = lambda c: True) -> list[Any]:
    """CASES as pytest params, xfail where ``aspect`` (bug, op_bug, model_bug)
    names a known defect."""
    params = []
    for c in CASES:
        if not only(c):
            continue
        reason = getattr(c, aspect)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(c, id=c.id, marks=marks))
    return params


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Diagnostics name paths relative to the working directory."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("case", marked("bug"))
def test_diagnostic_position(case: Case, workdir: Path) -> None:
    sink, _ = run(case, workdir)
    place = f"{case.where}:{case.line}:{case.col}"
    found = [d for d in sink.items if d.code == case.code and str(d.span) == place]
    assert found, f"no {case.code} at {place}; got:\n{listing(sink)}"
    assert all("\n" not in d.message for d in found), found
    for d in found:  # one line (and a hint), nothing a terminal would act on
        text = d.format().replace("\n  hint: ", " ")
        assert text.isprintable(), repr(text)


@pytest.mark.parametrize("case", marked("op_bug", lambda c: names_op(c.code)))
def test_message_names_op(case: Case, workdir: Path) -> None:
    sink, _ = run(case, workdir)
    messages = [d.message for d in sink.items if d.code == case.code]
    assert messages, listing(sink)
    if per_op(case.code):
        assert all(m.startswith(f"{case.op}: ") for m in messages), messages
    else:
        assert all(f"'{case.op}'" in m for m in messages), messages


@pytest.mark.parametrize("case", marked("model_bug"))
def test_model_only_without_errors(case: Case, workdir: Path) -> None:
    """A spec with an error yields no model; warnings alone keep it."""
    sink, models = run(case, workdir)
    from_spec = [m.op_type for m in models if m.spec_path == case.where]
    if CODES[case.code].severity is Severity.ERROR:
        assert not from_spec, f"model(s) {from_spec} despite:\n{listing(sink)}"
    else:
        assert not sink.has_errors, listing(sink)
        assert from_spec == [case.op]


def test_every_code_has_a_case() -> None:
    assert {c.code for c in CASES} == SPEC_CODES


def test_case_ids_are_unique() -> None:
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))


@dataclass(frozen=True)
class Wording:
    """A spec and a text its formatted diagnostic must (or must not) hold."""

    code: str
    what: str
    spec: str
    holds: str | None = None
    lacks: str | None = None
    bug: str | None = None


# fmt: off
WORDINGS: list[Wording] = [
    Wording("E201", "suggests the key", "op: A\nmodul: x\n",
            holds="hint: did you mean 'module'?"),
    Wording("E103", "names the first line", "op: A\ndoc: a\ndoc: b\n",
            holds="(first defined at line 2)"),
    Wording("E401", "suggests a named set too", """
        op: A
        inputs:
          - {name: x, dtype: [BasicTyp, bool]}
    """, holds="hint: did you mean 'BasicType'?"),
    Wording("E402", "suggests declaring it", """
        op: A
        inputs:
          - {name: x, dtype: T}
    """, holds="hint: declare it under dtypes, e.g. dtypes: {T: [float32]}"),
    Wording("E701", "lists what exists", """
        op: A
        inputs:
          - {name: x, dtype: float32}
        impl:
          capabilities: [declare_launch_args]
          kernel: k
          launch_args:
            - input: y
    """, holds="hint: inputs of A: x"),
    Wording("E801", "names the first definition", "op: A\n",
            holds="is already defined in"),
    Wording("E102", "control character message is one line", "op: A\ndoc: a\x01b\n",
            lacks="<unicode string>"),
    Wording("E501", "unknown dtype is quoted", """
        op: A
        attrs:
          - {name: d, type: dtype, default: flaot32}
    """, holds="unknown dtype 'flaot32'"),
    Wording("E501", "a word for a float asks for a number", """
        op: A
        attrs:
          - {name: f, type: float, default: six}
    """, holds="hint: write a number, e.g. 1.0"),
    Wording("E501", "no hint suggesting the value itself", """
        op: A
        attrs:
          - {name: l, type: list_dtype, default: float32}
    """, lacks="did you mean 'float32'?"),
    Wording("E601", "three names split by flow style", """
        op: A
        inputs:
          - {name: a, dtype: float32}
          - {name: b, dtype: float32}
          - {name: c, dtype: float32}
        outputs:
          - {name: y, dtype: float32}
        infer_meta:
          y: {shape: broadcast(a, b, c), dtype: a}
    """, holds="'broadcast(a, b, c)'"),
    Wording("W904", "output count is no keyword", """
        op: A
        outputs:
          - {name: count, dtype: float32}
          - {name: y, dtype: float32}
    """, holds="output 'count' is called 'out_count'", lacks="is a Python keyword"),
    Wording("W904", "names the count parameter", """
        op: A
        inputs:
          - {name: y_num, dtype: float32}
        outputs:
          - {name: y, dtype: float32, dynamic: true}
    """, holds="the count parameter of output 'y' is called 'out_y_num'"),
]
# fmt: on


@pytest.mark.parametrize(
    "wording",
    [
        pytest.param(
            w,
            id=f"{w.code}-{w.what.replace(' ', '-')}",
            marks=[pytest.mark.xfail(strict=True, reason=w.bug)] if w.bug else [],
        )
        for w in WORDINGS
    ],
)
def test_wording(wording: Wording, workdir: Path) -> None:
    files = {"spec.yaml": wording.spec}
    roots = ("spec.yaml",)
    if wording.code == "E801":
        files, roots = {"s/a.yaml": wording.spec, "s/b.yaml": wording.spec}, ("s",)
    sink, _ = run(case(wording.code, "1:1", wording.what, files, roots=roots), workdir)
    texts = [d.format() for d in sink.items if d.code == wording.code]
    if wording.holds is not None:
        assert any(wording.holds in t for t in texts), listing(sink)
    if wording.lacks is not None:
        assert sink.items and wording.lacks not in listing(sink), listing(sink)


def write_specs(root: Path, specs: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    for name, text in specs.items():
        (root / name).write_text(dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def test_one_run_reports_every_spec(workdir: Path) -> None:
    write_specs(
        workdir / "specs",
        {
            "a.yaml": "op: A\nmodul: custom\n",
            "b.yaml": "op: B\ninputs:\n  - {name: x, dtype: flaot32}\n",
            "c.yaml": "op: C\nattrs:\n  - {name: n, type: int, default: x}\n",
            "d.yaml": "op: D\ninputs:\n  - {name: x, dtype: float32}\n",
            "e.yaml": "op: E\ndtypes:\n  T: [float32]\n",
        },
    )
    sink = Sink()
    models = pipeline.load_and_check(pipeline.discover([Path("specs")], sink), sink)
    found = {(str(d.span), d.code) for d in sink.items}
    assert found == {
        ("specs/a.yaml:2:1", "E201"),
        ("specs/b.yaml:3:22", "E402"),
        ("specs/c.yaml:3:35", "E501"),
        ("specs/e.yaml:3:3", "W903"),
    }, listing(sink)
    assert [m.op_type for m in models] == ["D", "E"]


def test_cli_invalid_spec_writes_nothing(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    specs = write_specs(
        workdir / "specs",
        {
            "bad.yaml": """
                op: Bad
                inputs:
                  - {name: x, dtype: float32, optinal: true}
            """,
            "good.yaml": "op: Good\n",
        },
    )
    out = workdir / "out"
    status = cli.main(["--specs", str(specs), "--out", str(out), "--no-scaffold"])
    captured = capsys.readouterr()
    assert status == Exit.INVALID == 2
    assert not out.exists() or not any(out.iterdir())
    assert captured.err.splitlines() == [
        "specs/bad.yaml:3:31: error[E201]: unknown key 'optinal' in inputs[0]",
        "  hint: did you mean 'optional'?",
        "gen-ops: 1 error(s), 0 warning(s) in 2 spec file(s)",
        "gen-ops: nothing was generated",
    ]
    assert captured.out == ""


def test_cli_validate_reports_every_error(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    specs = write_specs(
        workdir / "specs",
        {"a.yaml": "op: A\nmodul: x\n", "b.yaml": "op: b-1\n"},
    )
    assert cli.main(["validate", "--specs", str(specs)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "specs/a.yaml:2:1: error[E201]: unknown key 'modul' in the spec"
    assert "specs/b.yaml:1:5: error[E204]: op: 'b-1' is not valid" in err


def test_cli_warnings_alone_do_not_stop_generation(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    specs = write_specs(
        workdir / "specs",
        {"scale.yaml": """
                op: ScaleCustom
                dtypes:
                  T: [float32]
                  U: [float16]
                inputs:
                  - {name: x, dtype: T}
                outputs:
                  - {name: y, dtype: T}
            """},
    )
    out = workdir / "out"
    status = cli.main(["--specs", str(specs), "--out", str(out), "--no-scaffold"])
    captured = capsys.readouterr()
    assert status == Exit.OK == 0
    assert captured.err.splitlines()[:2] == [
        "specs/scale.yaml:4:3: warning[W903]: ScaleCustom: type variable 'U' is not "
        "used by any input or output",
        "  hint: remove it or use it as a dtype",
    ]
    written = [p for p in out.rglob("*") if p.is_file()]
    assert any(p.name == "scale_custom.py" for p in written), written


DOCS = REPO / "docs" / "diagnostics.md"


def doc_sections() -> dict[str, str]:
    """The body of each ``### <code> <title>`` section of the docs, by code."""
    parts = re.split(r"^### ([EWI]\d{3})\b.*$", DOCS.read_text("utf-8"), flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def test_docs_have_a_section_per_code() -> None:
    text = DOCS.read_text(encoding="utf-8")
    headings = re.findall(r"^#+ +([EW]\d{3})\b(.*)$", text, flags=re.MULTILINE)
    codes = [code for code, _ in headings]
    assert len(codes) == len(set(codes)), "a code has two sections"
    assert set(codes) == SPEC_CODES
    for code, title in headings:
        assert f"### {code}{title}" == f"### {code} {CODES[code].title}"


@pytest.mark.parametrize("code", sorted(SPEC_CODES))
def test_docs_example_is_real(code: str, workdir: Path) -> None:
    """Each yaml example of the docs, run, gives the output shown under it. A
    first line ``# specs/x.yaml`` names the file and is not part of it."""
    section = doc_sections()[code]
    blocks = re.findall(r"^```(\w+)\n(.*?)^```$", section, flags=re.M | re.S)
    specs = [body for kind, body in blocks if kind == "yaml"]
    shown = [body for kind, body in blocks if kind == "text"]
    if not specs:  # E101 and E105 show a command line instead
        assert any(kind == "console" for kind, _ in blocks), code
        return
    files: Files = {}
    for body in specs:
        first, _, rest = body.partition("\n")
        named = re.fullmatch(r"# (\S+\.yaml)", first)
        files[named.group(1) if named else "spec.yaml"] = rest if named else body
    roots = ("specs",) if len(files) > 1 else ("spec.yaml",)
    sink, _ = run(case(code, "1:1", "docs", files, roots=roots), workdir)
    assert len(shown) == 1, code
    assert listing(sink) + "\n" == shown[0]


def test_diagnostic_format() -> None:
    from gen_ops.base.diagnostics import Span

    plain = Diagnostic("E201", Span("s.yaml", 2, 1), "unknown key 'x' in the spec")
    assert plain.format() == "s.yaml:2:1: error[E201]: unknown key 'x' in the spec"
    noted = Diagnostic("W903", Span("s.yaml", 3, 3), "A: unused", "remove it")
    assert noted.format() == "s.yaml:3:3: warning[W903]: A: unused\n  hint: remove it"
