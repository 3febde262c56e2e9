"""Random valid specs: whatever hypothesis draws, gen-ops accepts it, the
Python it renders is black-stable, imports, has the right signature and
builds a node; the impl module imports and registers; the header passes
g++ -fsyntax-only against GE's external headers as tests/cpp/ge_external
declares them and against tests/cpp/graph/operator_reg.h."""

from __future__ import annotations

import inspect
import keyword
import shutil
import subprocess
from typing import Any

import pytest
from helpers import ROOT, import_file, load_ops, render_tree, spec_yaml, write_tree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ge.es import GraphBuilder
from ge.graph import DataType, Graph, NamedAttrs, Tensor
from ge.graph.attrs import AttrType
from ge.graph.types import dtype_from_spec_name
from gen_ops.emit.pyformat import black_format

GXX = shutil.which("g++")
# GE's external headers as the tests declare them, and the project's smaller
# stand-in (tests/generator/test_cpp_headers.py).
STAND_INS = ("tests/cpp/ge_external", "tests/cpp")
NUMPY_DTYPES = [
    "float32",
    "float16",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "bool",
]
OTHER_DTYPES = ["bfloat16", "complex64", "qint8", "float8_e5m2", "int4"]
NAMED_SETS = [
    "NumberType",
    "RealNumberType",
    "FloatingDataType",
    "IndexNumberType",
    "ALL",
]

identifier = st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True)
# Bidi formatting characters, refused in docs like controls (E303).
BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
# Docs: any printable text, newlines and tabs (control characters are E303).
doc_text = st.lists(
    st.text(
        alphabet=st.characters(
            blacklist_categories=("Cs", "Cc", "Zl", "Zp"),
            blacklist_characters="\x85" + BIDI,
        )
        | st.sampled_from(['"', "'", "\\", "\n", "\t"]),
        max_size=12,
    )
    | st.sampled_from(["*/", "{{ x }}", "\n#endif\n", '"""', "\\\n", "??/"]),
    max_size=5,
).map("".join)
floats32 = st.floats(width=32, allow_nan=False)
plain_str = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    max_size=12,
)

ATTR_VALUES: dict[AttrType, st.SearchStrategy[Any]] = {
    AttrType.INT: st.integers(-(2**63), 2**63 - 1),
    AttrType.FLOAT: floats32 | st.sampled_from([float("inf"), float("-inf")]),
    AttrType.BOOL: st.booleans(),
    AttrType.STR: plain_str,
    AttrType.DTYPE: st.sampled_from(NUMPY_DTYPES + OTHER_DTYPES),
    AttrType.BYTES: st.binary(max_size=8),
    AttrType.LIST_INT: st.lists(st.integers(-1000, 1000), max_size=4),
    AttrType.LIST_FLOAT: st.lists(floats32, max_size=4),
    AttrType.LIST_BOOL: st.lists(st.booleans(), max_size=4),
    AttrType.LIST_STR: st.lists(plain_str, max_size=3),
    AttrType.LIST_DTYPE: st.lists(st.sampled_from(NUMPY_DTYPES), max_size=3),
    AttrType.LIST_LIST_INT: st.lists(
        st.lists(st.integers(-9, 9), max_size=3), max_size=3
    ),
}
EMPTY_ONLY = {
    AttrType.TENSOR: None,
    AttrType.NAMED_ATTRS: None,
    AttrType.LIST_TENSOR: [],
    AttrType.LIST_NAMED_ATTRS: [],
}


def _python_value(kind: AttrType, value: Any) -> Any:
    """A YAML-side value as the builder takes it."""
    if kind is AttrType.DTYPE:
        return dtype_from_spec_name(value)
    if kind is AttrType.LIST_DTYPE:
        return [dtype_from_spec_name(v) for v in value]
    return value


@st.composite
def specs(draw: st.DrawFn) -> dict[str, Any]:
    """A random valid spec as a dict."""
    op = "Op" + draw(st.from_regex(r"[A-Z][a-zA-Z0-9]{0,8}", fullmatch=True))
    spec: dict[str, Any] = {
        "op": op,
        "module": draw(st.sampled_from(["prop", "alpha"])),
    }
    if draw(st.booleans()):
        spec["doc"] = draw(doc_text)
    use_var = draw(st.booleans())
    if use_var:
        spec["dtypes"] = {
            "T": draw(
                st.lists(
                    st.sampled_from(NUMPY_DTYPES), min_size=1, max_size=3, unique=True
                )
            )
        }
    n_inputs = draw(st.integers(0, 4))
    input_names = draw(
        st.lists(identifier, min_size=n_inputs, max_size=n_inputs, unique=True)
    )
    inputs = []
    for name in input_names:
        kind = draw(st.sampled_from(["required", "optional", "dynamic"]))
        item: dict[str, Any] = {
            "name": name,
            "dtype": (
                "T" if use_var else draw(st.sampled_from(NUMPY_DTYPES + NAMED_SETS))
            ),
        }
        if kind != "required":
            item[kind] = True
        if draw(st.booleans()):
            item["doc"] = draw(doc_text)
        inputs.append(item)
    if inputs:
        spec["inputs"] = inputs
    dynamic_inputs = [i["name"] for i in inputs if i.get("dynamic")]

    n_attrs = draw(st.integers(0, 5))
    attr_names = draw(
        st.lists(
            identifier.filter(lambda n: not keyword.iskeyword(n)),
            min_size=n_attrs,
            max_size=n_attrs,
            unique=True,
        )
    )
    attrs = []
    for name in attr_names:
        kind = draw(st.sampled_from(list(AttrType)))
        item = {"name": name, "type": kind.value}
        choice = draw(st.sampled_from(["required", "default", "derive"]))
        if choice == "derive" and kind is AttrType.INT and dynamic_inputs:
            item["derive"] = f"len({draw(st.sampled_from(dynamic_inputs))})"
        elif choice == "default":
            item["default"] = (
                EMPTY_ONLY[kind] if kind in EMPTY_ONLY else draw(ATTR_VALUES[kind])
            )
        attrs.append(item)
    if attrs:
        spec["attrs"] = attrs
    int_attrs = [
        a["name"]
        for a in attrs
        if a["type"] == "int" and "derive" not in a and a.get("default", 0) >= 0
    ]

    n_outputs = draw(st.integers(0, 3))
    output_names = draw(
        st.lists(
            identifier, min_size=n_outputs, max_size=n_outputs, unique=True
        ).filter(lambda ns: not set(ns) & set(input_names))
    )
    outputs = []
    for name in output_names:
        item = {
            "name": name,
            "dtype": "T" if use_var else draw(st.sampled_from(NUMPY_DTYPES)),
        }
        if draw(st.booleans()):
            item["dynamic"] = True
            rules = [f"len({d})" for d in dynamic_inputs] + [
                f"attr({a})" for a in int_attrs
            ]
            if rules and draw(st.booleans()):
                item["count"] = draw(st.sampled_from(rules))
        outputs.append(item)
    if outputs:
        spec["outputs"] = outputs
    graphs = draw(st.lists(identifier, max_size=2, unique=True))
    if graphs:
        spec["graphs"] = [{"name": g, "dynamic": draw(st.booleans())} for g in graphs]

    required_inputs = [
        i["name"] for i in inputs if "optional" not in i and "dynamic" not in i
    ]
    partial = False
    if outputs and required_inputs and draw(st.booleans()):
        spec["infer_meta"] = (
            {
                o["name"]: {
                    "shape": f"same_as({draw(st.sampled_from(required_inputs))})",
                    "dtype": draw(st.sampled_from(required_inputs)),
                }
                for o in outputs
            }
            if use_var
            else {
                o["name"]: {
                    "shape": draw(st.lists(st.integers(-1, 5), max_size=3)),
                    "dtype": o["dtype"],
                }
                for o in outputs
            }
        )
        # Note [Partial infer_meta]: a rule may give only one of the two.
        for rule in spec["infer_meta"].values():
            drop = draw(st.sampled_from([None, None, "shape", "dtype"]))
            if drop is not None:
                del rule[drop]
                partial = True
    if partial or draw(st.booleans()):
        caps = draw(
            st.lists(
                st.sampled_from(["execute", "compile", "declare_launch_args"]),
                min_size=1,
                unique=True,
            )
        )
        if caps == ["compile"]:
            caps.append("execute")
        impl: dict[str, Any] = {"capabilities": caps, "kernel": "k"}
        if "declare_launch_args" in caps:
            slots: list[dict[str, Any]] = [{"input": i} for i in input_names]
            slots += [{"output": o} for o in output_names]
            slots += [
                {"attr": a["name"]}
                for a in attrs
                if a["type"] in ("int", "float", "bool", "dtype")
            ]
            slots += [{"workspace": draw(st.integers(1, 4096))}]
            impl["launch_args"] = draw(st.permutations(slots))
        spec["impl"] = impl
    return spec


def _call_args(
    spec: dict[str, Any], module: Any, builder: GraphBuilder
) -> dict[str, Any]:
    """Arguments that fit the op: inputs of an allowed dtype, sample attrs."""
    signature = inspect.signature(getattr(module, spec["op"]))
    op_def = module._OP
    args: dict[str, Any] = {}
    params = iter(signature.parameters)
    index = 0
    for item in spec.get("inputs", []):
        param = next(params)
        allowed = sorted(op_def.input_constraints[item["name"]].allowed)
        dtype = (
            next(d for d in allowed if d.spec_name in NUMPY_DTYPES)
            if any(d.spec_name in NUMPY_DTYPES for d in allowed)
            else allowed[0]
        )

        def make(dtype: Any = dtype) -> Any:
            nonlocal index
            index += 1
            return builder.create_input(index - 1, data_type=dtype, shape=[2])

        args[param] = [make(), make()] if item.get("dynamic") else make()
    for param in signature.parameters.values():
        if param.name in args:
            continue
        if param.name in ("owner_builder", "owner_graph_builder"):
            args[param.name] = builder
        elif param.name.endswith("_num") and param.annotation == "int":
            args[param.name] = 2
        elif param.annotation == "Graph":
            args[param.name] = Graph("sub")
        elif param.annotation == "Sequence[Graph]":
            args[param.name] = [Graph("s0"), Graph("s1")]
    params_by_attr = {a.name: a.param or a.name for a in op_def.attrs}
    for attr in spec.get("attrs", []):
        if "default" in attr or "derive" in attr:
            continue
        kind = AttrType(attr["type"])
        samples = {
            AttrType.INT: 1,
            AttrType.FLOAT: 0.5,
            AttrType.BOOL: True,
            AttrType.STR: "s",
            AttrType.DTYPE: DataType.DT_INT8,
            AttrType.TENSOR: Tensor([1.0]),
            AttrType.NAMED_ATTRS: NamedAttrs("n", {"a": 1}),
            AttrType.BYTES: b"b",
            AttrType.LIST_INT: [1],
            AttrType.LIST_FLOAT: [1.5],
            AttrType.LIST_BOOL: [False],
            AttrType.LIST_STR: ["x"],
            AttrType.LIST_DTYPE: [DataType.DT_FLOAT],
            AttrType.LIST_LIST_INT: [[1], []],
            AttrType.LIST_TENSOR: [Tensor([2])],
            AttrType.LIST_NAMED_ATTRS: [NamedAttrs("m")],
        }
        args[params_by_attr[attr["name"]]] = samples[kind]
    for output in op_def.outputs:
        if output.count is not None and output.count.kind == "attr":
            args[params_by_attr[output.count.ref]] = 2
    return args


@settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(spec=specs())
def test_random_valid_specs_generate_working_code(
    spec: dict[str, Any],
    tmp_path_factory: pytest.TempPathFactory,
    clean_registries: None,
) -> None:
    from ge.custom_op import clear_registered_op_impls, clear_registered_op_protos

    clear_registered_op_protos()  # one function call runs many examples
    clear_registered_op_impls()
    work = tmp_path_factory.mktemp("prop")
    (work / "specs").mkdir()
    (work / "specs" / "op.yaml").write_text(spec_yaml(spec))
    ops, sink = load_ops(work / "specs")
    assert not sink.has_errors, "\n".join(d.format() for d in sink.sorted())
    (op,) = ops
    files = render_tree(work / "specs")
    for path, text in files.items():
        if path.endswith(".py"):
            assert black_format(text) == text, path
    write_tree(files, work / "out")

    module = import_file(work / "out" / f"python/ge/es/{op.module}/{op.file_stem}.py")
    builder = GraphBuilder()
    args = _call_args(spec, module, builder)
    result = getattr(module, op.op_type)(**args)
    node = (
        result[0]
        if isinstance(result, list)
        else (
            result[0][0]
            if isinstance(result, tuple) and isinstance(result[0], list)
            else result[0] if isinstance(result, tuple) else result
        )
    ).node
    assert node.type == op.op_type
    given = {params for params in args}
    for attr in op.attrs:
        param = next(a.param or a.name for a in module._OP.attrs if a.name == attr.name)
        if (
            attr.default is not None
            and attr.default.value is not None
            and param not in given
        ):
            # Note [Defaults stay off the node]: the default is left off the
            # node; the op table holds it, exactly.
            assert attr.name not in node.attrs
            table = next(a for a in module._OP.attrs if a.name == attr.name)
            if attr.type.value not in ("tensor", "named_attrs"):
                value = table.default
                assert value == attr.default.value or value != value  # NaN

    impl = work / "out" / f"python/ge_impl/{op.module}/{op.file_stem}.py"
    if impl.exists():
        import_file(impl)

    if GXX:
        header = work / "out" / f"include/{op.module}/{op.file_stem}.h"
        for stand_in in STAND_INS:
            result_gxx = subprocess.run(
                [
                    GXX,
                    "-std=c++17",
                    "-fsyntax-only",
                    "-Wall",
                    "-Werror",
                    f"-I{ROOT / stand_in}",
                    f"-I{work / 'out/include'}",
                    "-x",
                    "c++",
                    str(header),
                ],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert result_gxx.returncode == 0, f"{stand_in}:\n{result_gxx.stderr}"
