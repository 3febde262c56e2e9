"""ge.custom_op registration: register_op (prototype + infer_meta),
register_op_impl (capabilities by reflection), the registries, and the
schema-bound signature checks an implementation meets its prototype with
(docs/ge-compat.md, "register_op", "register_op_impl" and "Schema-bound signatures")."""

from __future__ import annotations

import abc
import importlib.util
import re
from collections.abc import Iterator
from pathlib import Path
from typing import List, Optional, Tuple

import pytest
from _rt_support import registries  # noqa: F401

from ge.custom_op import (
    OpImplDescriptor,
    bootstrap,
    clear_registered_op_impls,
    clear_registered_op_protos,
    get_registered_op_impl,
    get_registered_op_impl_by_descriptor_key,
    get_registered_op_impl_dicts,
    get_registered_op_impls,
    get_registered_op_proto_by_op_type,
    get_registered_op_protos,
    register_op,
    register_op_impl,
)
from ge.custom_op.proto import (
    ProtoAttr,
    ProtoInput,
    ProtoOutput,
    get_registered_op_proto_by_descriptor_key,
    get_registered_op_proto_dicts,
)
from ge.custom_op.registry import Capability
from ge.graph import DataType, NamedAttrs
from ge.graph import Tensor as GraphTensor
from ge.graph.attrs import AttrType
from ge.graph.graph import InputKind
from ge.runtime import Tensor, TensorDesc

MODULE = __name__


@pytest.fixture(autouse=True)
def _empty_registries(registries: None) -> Iterator[None]:
    yield


def proto(op_type: str):  # type: ignore[no-untyped-def]
    found = get_registered_op_proto_by_op_type(op_type)
    assert found is not None
    return found


# --- register_op: the prototype a signature declares ----------------------------


def test_register_op_reads_inputs_attrs_and_outputs() -> None:
    def infer(
        x: TensorDesc,
        bias: Optional[TensorDesc],
        rest: List[TensorDesc],
        *,
        axis: int,
        alpha: float = 1.0,
        keep: bool = False,
        mode: str = "fast",
        dst: DataType = DataType.DT_FLOAT16,
        value: GraphTensor = None,
        axes: List[int] = (0, 1),
        scales: List[float] = [0.5],  # noqa: B006 - GE's own spelling, accepted
        flags: List[bool] = (),
        names: List[str] = ("a",),
        dtypes: List[DataType] = (DataType.DT_INT8,),
        pads: List[List[int]] = ((1, 2), ()),
        limit: Optional[int] = None,
    ) -> Tuple[TensorDesc, List[TensorDesc]]:
        return x, rest

    assert register_op(op_type="Everything")(infer) is infer  # a plain decorator
    found = proto("Everything")
    assert found.op_type == "Everything"
    assert found.inputs == (
        ProtoInput("x", InputKind.REQUIRED),
        ProtoInput("bias", InputKind.OPTIONAL),
        ProtoInput("rest", InputKind.DYNAMIC),
    )
    assert found.outputs == (
        ProtoOutput("output0", False),
        ProtoOutput("output1", True),
    )
    assert found.attrs == (
        ProtoAttr("axis", AttrType.INT, True),
        ProtoAttr("alpha", AttrType.FLOAT, False, 1.0),
        ProtoAttr("keep", AttrType.BOOL, False, False),
        ProtoAttr("mode", AttrType.STR, False, "fast"),
        ProtoAttr("dst", AttrType.DTYPE, False, DataType.DT_FLOAT16),
        ProtoAttr("value", AttrType.TENSOR, False, None),
        ProtoAttr("axes", AttrType.LIST_INT, False, (0, 1)),
        ProtoAttr("scales", AttrType.LIST_FLOAT, False, (0.5,)),
        ProtoAttr("flags", AttrType.LIST_BOOL, False, ()),
        ProtoAttr("names", AttrType.LIST_STR, False, ("a",)),
        ProtoAttr("dtypes", AttrType.LIST_DTYPE, False, (DataType.DT_INT8,)),
        ProtoAttr("pads", AttrType.LIST_LIST_INT, False, ((1, 2), ())),
        ProtoAttr("limit", AttrType.INT, False, None),
    )
    assert found.returns_tuple
    assert found.infer_meta is infer
    key = f"{MODULE}:test_register_op_reads_inputs_attrs_and_outputs.<locals>.infer:Everything"
    assert found.descriptor_key == key
    file, line = found.source.rsplit(":", 1)
    assert Path(file).resolve() == Path(__file__).resolve() and int(line) > 0
    assert found.as_dict()["attrs"][0] == {
        "name": "axis",
        "type": "VT_INT",
        "required": True,
    }
    assert [a["type"] for a in found.as_dict()["attrs"]][-2:] == [
        "VT_LIST_LIST_INT",
        "VT_INT",
    ]


def test_builtin_and_typing_annotations_mean_the_same() -> None:
    def typing_form(
        x: Optional[TensorDesc], y: List[TensorDesc], *, a: Optional[List[int]] = None
    ) -> Tuple[TensorDesc, List[TensorDesc]]: ...

    def builtin_form(
        x: TensorDesc | None, y: list[TensorDesc], *, a: list[int] | None = None
    ) -> tuple[TensorDesc, list[TensorDesc]]: ...

    register_op(op_type="TypingForm")(typing_form)
    register_op(op_type="BuiltinForm")(builtin_form)
    first, second = proto("TypingForm"), proto("BuiltinForm")
    assert first.inputs == second.inputs
    assert first.outputs == second.outputs
    assert first.attrs == second.attrs
    assert first.returns_tuple and second.returns_tuple


def test_string_annotations_are_resolved() -> None:
    def infer(x: TensorDesc, *, n: int = 2) -> TensorDesc: ...

    register_op(op_type="Strings")(infer)
    assert proto("Strings").attrs == (ProtoAttr("n", AttrType.INT, False, 2),)

    def broken(x: NoSuchName) -> TensorDesc: ...  # type: ignore[name-defined]  # noqa: F821

    with pytest.raises(
        TypeError,
        match="register_op op_type 'Broken' failed: cannot read the annotations: "
        "name 'NoSuchName' is not defined",
    ):
        register_op(op_type="Broken")(broken)


@pytest.mark.parametrize(
    ("annotation", "outputs", "returns_tuple"),
    [
        (None, (), False),
        (TensorDesc, (ProtoOutput("output0", False),), False),
        (List[TensorDesc], (ProtoOutput("output0", True),), False),
        (Tuple[TensorDesc], (ProtoOutput("output0", False),), True),
        (
            Tuple[List[TensorDesc], TensorDesc],
            (ProtoOutput("output0", True), ProtoOutput("output1", False)),
            True,
        ),
    ],
)
def test_return_annotation_gives_the_outputs(annotation, outputs, returns_tuple: bool) -> None:  # type: ignore[no-untyped-def]
    def infer(x: TensorDesc): ...  # type: ignore[no-untyped-def]

    infer.__annotations__["return"] = annotation
    register_op(op_type="Returns")(infer)
    assert proto("Returns").outputs == outputs
    assert proto("Returns").returns_tuple is returns_tuple


def test_output_names_avoid_input_names() -> None:
    def infer(
        output0: TensorDesc, output1_1: TensorDesc
    ) -> Tuple[TensorDesc, TensorDesc]: ...

    register_op(op_type="Clash")(infer)
    assert [o.name for o in proto("Clash").outputs] == ["output0_1", "output1"]


def test_output_names_extension() -> None:
    def infer(x: TensorDesc) -> Tuple[TensorDesc, List[TensorDesc]]: ...

    register_op(op_type="Named", output_names=("y", "parts"))(infer)
    assert proto("Named").outputs == (
        ProtoOutput("y", False),
        ProtoOutput("parts", True),
    )
    for names, message in [
        (("y",), "output_names has 1 names for 2 output(s)"),
        (("y", "y"), "output_names repeats a name"),
        (("y", "2b"), "output name '2b' is not an identifier"),
        (("y", 3), "output name 3 is not an identifier"),
    ]:
        with pytest.raises(ValueError, match=re.escape(message)):
            register_op(op_type="NamedBad", output_names=names)(infer)
    assert get_registered_op_proto_by_op_type("NamedBad") is None


# --- register_op: what it refuses ---------------------------------------------------


def _fails(op_type: str, function, error: type, message: str, **kwargs) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(
        error, match=re.escape(f"register_op op_type '{op_type}' failed: {message}")
    ):
        register_op(op_type=op_type, **kwargs)(function)
    assert get_registered_op_proto_by_op_type(op_type) is None


def test_inputs_need_tensor_desc_annotations_and_no_defaults() -> None:
    def missing(x) -> TensorDesc: ...  # type: ignore[no-untyped-def]

    def wrong(x: int) -> TensorDesc: ...

    def optional_default(x: Optional[TensorDesc] = None) -> TensorDesc: ...

    def list_of_int(x: List[int]) -> TensorDesc: ...

    _fails(
        "In1",
        missing,
        TypeError,
        "input 'x' needs an annotation (TensorDesc, Optional[TensorDesc] or List[TensorDesc])",
    )
    _fails("In2", wrong, TypeError, "input 'x' is annotated <class 'int'>; inputs are")
    _fails(
        "In3", optional_default, TypeError, "input 'x' has a default; inputs take none"
    )
    _fails("In4", list_of_int, TypeError, "input 'x' is annotated typing.List[int]")


def test_star_parameters_are_refused() -> None:
    def star(*xs: TensorDesc) -> TensorDesc: ...

    def double_star(x: TensorDesc, **attrs: int) -> TensorDesc: ...

    _fails("Star", star, TypeError, "*xs is not allowed; list each input and attr")
    _fails(
        "Star2",
        double_star,
        TypeError,
        "**attrs is not allowed; list each input and attr",
    )


def test_return_annotation_is_required_and_checked() -> None:
    def none(x: TensorDesc): ...  # type: ignore[no-untyped-def]

    def wrong(x: TensorDesc) -> int: ...

    def bad_item(x: TensorDesc) -> Tuple[TensorDesc, int]: ...

    _fails(
        "Ret1",
        none,
        TypeError,
        "the return annotation is required (None, TensorDesc, List[TensorDesc] or a Tuple of them)",
    )
    _fails(
        "Ret2",
        wrong,
        TypeError,
        "return annotation <class 'int'> is not None, TensorDesc",
    )
    _fails(
        "Ret3",
        bad_item,
        TypeError,
        "tuple item <class 'int'> is not TensorDesc or List[TensorDesc]",
    )


@pytest.mark.parametrize(
    ("source", "error", "message"),
    [
        ("a", TypeError, "attr 'a' needs an annotation"),
        (
            "a: dict",
            TypeError,
            "attr 'a' is annotated <class 'dict'>, which is not an attr type",
        ),
        (
            "a: List[dict]",
            TypeError,
            "attr 'a' is annotated typing.List[dict], which is not",
        ),
        ("a: float = 1", ValueError, "default of attr 'a' must be float, got int"),
        ("a: int = True", ValueError, "default of attr 'a' must be int, got bool"),
        ("a: int = 1.0", ValueError, "default of attr 'a' must be int, got float"),
        ("a: bool = 1", ValueError, "default of attr 'a' must be bool, got int"),
        ("a: str = b'x'", ValueError, "default of attr 'a' must be str, got bytes"),
        (
            "a: DataType = 0",
            ValueError,
            "default of attr 'a' must be DataType, got int",
        ),
        (
            "a: DataType = DataType.DT_MAX",
            ValueError,
            "default of attr 'a' cannot be DataType.DT_MAX",
        ),
        (
            "a: List[float] = [1.0, 2]",
            ValueError,
            "default of attr 'a' must be float, got int",
        ),
        ("a: List[int] = 1", ValueError, "default of attr 'a' must be a list, got int"),
        (
            "a: List[List[int]] = [1]",
            ValueError,
            "default of attr 'a' must be a list, got int",
        ),
        (
            "a: int = 2**63",
            ValueError,
            "default of attr 'a': 9223372036854775808 does not fit in int64",
        ),
        (
            "a: float = 1e39",
            ValueError,
            "default of attr 'a': 1e+39 does not fit in a float32 attr",
        ),
        (
            "a: str = 'a\\x00'",
            ValueError,
            "default of attr 'a': strings may not contain NUL",
        ),
        (
            "a: GraphTensor = GraphTensor([1.0])",
            ValueError,
            "attr 'a' (tensor) may only default to None",
        ),
        (
            "a: int = None",
            TypeError,
            "attr 'a' defaults to None; annotate it Optional[...]",
        ),
        ("a: Optional[int]", TypeError, "attr 'a' is Optional but has no default None"),
    ],
)
def test_attr_annotation_and_default_rules(
    source: str, error: type, message: str
) -> None:
    namespace = {
        "TensorDesc": TensorDesc,
        "List": List,
        "Optional": Optional,
        "DataType": DataType,
        "GraphTensor": GraphTensor,
    }
    exec(f"def infer(x: TensorDesc, *, {source}) -> TensorDesc: ...", namespace)
    _fails("AttrRule", namespace["infer"], error, message)


def test_defaults_of_exactly_the_annotated_type_are_accepted() -> None:
    def infer(
        x: TensorDesc,
        *,
        f: float = 2.0,
        i: int = -1,
        b: bool = True,
        lf: List[float] = (0.1, 0.2),
        lli: List[List[int]] = [[], [2, 3], []],  # noqa: B006 - as GE writes it
        t: Optional[GraphTensor] = None,
        n: Optional[NamedAttrs] = None,
    ) -> TensorDesc: ...

    register_op(op_type="Defaults")(infer)
    defaults = {a.name: a.default for a in proto("Defaults").attrs}
    assert defaults == {
        "f": 2.0,
        "i": -1,
        "b": True,
        "lf": (0.1, 0.2),
        "lli": ((), (2, 3), ()),
        "t": None,
        "n": None,
    }
    assert all(not a.required for a in proto("Defaults").attrs)


@pytest.mark.parametrize(
    ("op_type", "error", "message"),
    [
        ("", TypeError, "register_op: op_type must be a non-empty str"),
        (3, TypeError, "register_op: op_type must be a non-empty str"),
        (None, TypeError, "register_op: op_type must be a non-empty str"),
        ("a-b", ValueError, "register_op: 'a-b' is not a valid op type"),
        ("has space", ValueError, "is not a valid op type"),
        ("class", ValueError, "register_op: 'class' is not a valid op type"),
        # The rule gen-ops applies to a spec's op (ge_ir.names.OP_TYPE);
        # lower-case types are GE's too (phony_1i_1o).
        ("_9x", ValueError, "'_9x' is not a valid op type"),
        ("Nl\n", ValueError, "is not a valid op type"),
        ("9Lives", ValueError, "is not a valid op type"),
    ],
)
def test_op_type_checks(op_type, error: type, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error, match=re.escape(message)):
        register_op(op_type=op_type)


def test_register_op_is_keyword_only_and_decorates_functions() -> None:
    with pytest.raises(TypeError):
        register_op("Positional")  # type: ignore[misc]

    class NotAFunction:
        pass

    _fails("Klass", NotAFunction, TypeError, "register_op decorates a function")


# --- mutates_args ------------------------------------------------------------------------


def _two_in_two_out(x: TensorDesc, y: TensorDesc) -> Tuple[TensorDesc, TensorDesc]: ...


def test_mutates_args_sequential_form() -> None:
    register_op(op_type="MutSeq", mutates_args=("y", "x"))(_two_in_two_out)
    assert proto("MutSeq").outputs == (
        ProtoOutput("y", False, "y"),
        ProtoOutput("x", False, "x"),
    )


def test_mutates_args_explicit_form() -> None:
    register_op(op_type="MutExplicit", mutates_args=(("x", 1),))(_two_in_two_out)
    assert proto("MutExplicit").outputs == (
        ProtoOutput("output0", False),
        ProtoOutput("x", False, "x"),
    )
    register_op(op_type="MutList", mutates_args=[["y", 0]])(_two_in_two_out)
    assert proto("MutList").outputs[0] == ProtoOutput("y", False, "y")


@pytest.mark.parametrize(
    ("mutates_args", "message"),
    [
        (("x", ("y", 1)), "mutates_args mixes the sequential and explicit forms"),
        (("q",), "mutates_args names unknown input 'q'"),
        ((("q", 0),), "mutates_args names unknown input 'q'"),
        ((("x", 2),), "mutates_args output index 2 is out of range for 2 output(s)"),
        ((("x", -1),), "mutates_args output index -1 is out of range"),
        ((("x", True),), "mutates_args output index True is out of range"),
        ((("x", "0"),), "mutates_args output index '0' is out of range"),
        (
            ("x", "y", "x"),
            "mutates_args output index 2 is out of range for 2 output(s)",
        ),
        ((("x", 0), ("y", 0)), "output 0 is bound twice in mutates_args"),
        ("x", "mutates_args must be a tuple"),
        (
            (("x",),),
            "mutates_args item ('x',) is not an (input name, output index) pair",
        ),
        (
            (("x", 0, 1),),
            "mutates_args item ('x', 0, 1) is not an (input name, output index) pair",
        ),
    ],
)
def test_mutates_args_errors(mutates_args, message: str) -> None:  # type: ignore[no-untyped-def]
    _fails("MutBad", _two_in_two_out, ValueError, message, mutates_args=mutates_args)


# --- registry: idempotence, conflicts, queries -----------------------------------------


def test_identical_re_registration_is_idempotent() -> None:
    def infer(x: TensorDesc, *, k: int = 1) -> TensorDesc: ...

    register_op(op_type="Again")(infer)
    first = proto("Again")
    register_op(op_type="Again")(infer)
    assert len(get_registered_op_protos()) == 1
    assert proto("Again").content() == first.content()


def test_a_module_imported_twice_registers_once(tmp_path: Path) -> None:
    path = tmp_path / "twice_op_mod.py"
    path.write_text(
        "from ge.custom_op import register_op\n"
        "from ge.runtime import TensorDesc\n"
        "@register_op(op_type='Twice')\n"
        "def infer(x: TensorDesc) -> TensorDesc:\n"
        "    return x\n"
    )
    for name in ("twice_a_mod_for_test", "twice_b_mod_for_test"):
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    assert [p.op_type for p in get_registered_op_protos()] == ["Twice"]
    assert proto("Twice").descriptor_key == "twice_a_mod_for_test:infer:Twice"


def test_conflicting_re_registration_names_both_sources() -> None:
    def first(x: TensorDesc) -> TensorDesc: ...

    def second(x: TensorDesc, y: TensorDesc) -> TensorDesc: ...

    register_op(op_type="Conflict")(first)
    one = proto("Conflict")
    with pytest.raises(ValueError) as info:
        register_op(op_type="Conflict")(second)
    message = str(info.value)
    assert message.startswith(
        f"register_op op_type 'Conflict' failed: already registered by {one.descriptor_key} "
        f"({one.source}); conflicting registration by "
    )
    second_key = (
        f"{MODULE}:test_conflicting_re_registration_names_both_sources.<locals>.second"
        ":Conflict"
    )
    second_line = second.__code__.co_firstlineno
    assert message.endswith(f"{second_key} ({Path(__file__).resolve()}:{second_line})")
    assert proto("Conflict") is one  # the first stays


def test_same_function_with_changed_content_conflicts() -> None:
    def infer(x: TensorDesc, *, k: int = 1) -> TensorDesc: ...

    register_op(op_type="Changed")(infer)
    infer.__kwdefaults__ = {"k": 2}
    with pytest.raises(ValueError, match="already registered by"):
        register_op(op_type="Changed")(infer)
    assert proto("Changed").attrs[0].default == 1


def test_proto_registry_queries_and_clear() -> None:
    def b(x: TensorDesc) -> TensorDesc: ...

    def a(x: TensorDesc) -> None: ...

    register_op(op_type="Bop")(b)
    register_op(op_type="Aop")(a)
    assert [p.op_type for p in get_registered_op_protos()] == ["Aop", "Bop"]
    key = proto("Bop").descriptor_key
    assert get_registered_op_proto_by_descriptor_key(key) is proto("Bop")
    assert get_registered_op_proto_by_descriptor_key("nope") is None
    assert get_registered_op_proto_by_op_type("Cop") is None
    dicts = get_registered_op_proto_dicts()
    assert [d["op_type"] for d in dicts] == ["Aop", "Bop"]
    assert dicts[1] == {
        "descriptor_key": key,
        "op_type": "Bop",
        "inputs": [{"name": "x", "kind": "required"}],
        "outputs": [{"name": "output0", "dynamic": False, "ref_input": None}],
        "attrs": [],
        "source": proto("Bop").source,
    }
    assert bootstrap.get_registered_op_protos() == dicts
    clear_registered_op_protos()
    assert get_registered_op_protos() == [] and get_registered_op_proto_dicts() == []


def test_decorated_function_is_still_the_infer_meta() -> None:
    @register_op(op_type="Infer")
    def infer(x: TensorDesc, y: TensorDesc) -> TensorDesc:
        return TensorDesc(x.shape, y.data_type)

    out = infer(
        TensorDesc([2, 3], DataType.DT_FLOAT), TensorDesc([1], DataType.DT_INT8)
    )
    assert out == TensorDesc([2, 3], DataType.DT_INT8)


# --- register_op_impl -----------------------------------------------------------------------


def test_capabilities_by_reflection() -> None:
    class Base:
        def execute(self, x) -> None: ...  # type: ignore[no-untyped-def]

    @register_op_impl(op_type="Reflect")
    class Impl(Base):  # inherited methods count; no GE base class needed
        def declare_launch_args(self, x, y) -> None: ...  # type: ignore[no-untyped-def]

        def compile(self, x, y) -> None: ...  # type: ignore[no-untyped-def]

    descriptor = get_registered_op_impl("Reflect")
    assert isinstance(descriptor, OpImplDescriptor)
    assert descriptor.cls is Impl
    assert descriptor.interfaces == tuple(Capability)  # in GE's order
    assert [c.value for c in Capability] == [
        "execute",
        "compile",
        "declare_launch_args",
    ]
    assert descriptor.has(Capability.COMPILE)
    assert descriptor.module_name == MODULE
    assert descriptor.class_name == "test_capabilities_by_reflection.<locals>.Impl"
    assert descriptor.descriptor_key == f"{MODULE}:{descriptor.class_name}:Reflect"
    assert descriptor.as_dict() == {
        "descriptor_key": descriptor.descriptor_key,
        "op_type": "Reflect",
        "module_name": MODULE,
        "class_name": descriptor.class_name,
        "interfaces": ["eager_execute", "compilable", "annotated_args"],
    }


@pytest.mark.parametrize(
    ("methods", "interfaces"),
    [
        (("execute",), ["eager_execute"]),
        (("declare_launch_args",), ["annotated_args"]),
        (("compile", "declare_launch_args"), ["compilable", "annotated_args"]),
        (("compile", "execute"), ["eager_execute", "compilable"]),
    ],
)
def test_each_capability(methods: tuple[str, ...], interfaces: list[str]) -> None:
    namespace = {m: (lambda self: None) for m in methods}
    cls = type("Cap", (), namespace)
    register_op_impl(op_type="Cap")(cls)
    assert get_registered_op_impl_dicts()[0]["interfaces"] == interfaces


def test_abstract_class_is_refused() -> None:
    class Base(abc.ABC):
        @abc.abstractmethod
        def execute(self, x) -> None: ...  # type: ignore[no-untyped-def]

        @abc.abstractmethod
        def compile(self, x) -> None: ...  # type: ignore[no-untyped-def]

    with pytest.raises(
        TypeError,
        match=re.escape(
            "register_op_impl op_type 'Abstract': class "
            "test_abstract_class_is_refused.<locals>.Base is abstract (implement compile, execute)"
        ),
    ):
        register_op_impl(op_type="Abstract")(Base)
    assert get_registered_op_impls() == []


@pytest.mark.parametrize(
    ("namespace", "message"),
    [
        ({}, "class Empty has none of execute, compile, declare_launch_args"),
        (
            {"execute": None},
            "class Empty has none of execute, compile, declare_launch_args",
        ),
        (
            {"run": lambda self: None},
            "class Empty has none of execute, compile, declare_launch_args",
        ),
        ({"compile": 3}, "Empty.compile is not callable"),
        ({"execute": "run"}, "Empty.execute is not callable"),
        (
            {"declare_launch_args": lambda self: None, "execute": 1},
            "Empty.execute is not callable",
        ),
        ({"compile": lambda self: None}, "compile alone cannot run the op"),
    ],
)
def test_classes_without_a_usable_capability(namespace: dict, message: str) -> None:
    cls = type("Empty", (), namespace)
    with pytest.raises(
        TypeError, match=re.escape(f"register_op_impl op_type 'Cap': {message}")
    ):
        register_op_impl(op_type="Cap")(cls)
    assert get_registered_op_impl("Cap") is None


def test_register_op_impl_argument_checks() -> None:
    for op_type in ("", None, 5):
        with pytest.raises(
            TypeError, match="register_op_impl: op_type must be a non-empty str"
        ):
            register_op_impl(op_type=op_type)  # type: ignore[arg-type]

    class Impl:
        def execute(self) -> None: ...

    with pytest.raises(
        TypeError, match="register_op_impl decorates a class, got function"
    ):
        register_op_impl(op_type="Fn")(lambda: None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="register_op_impl decorates a class, got Impl"):
        register_op_impl(op_type="Inst")(Impl())  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        register_op_impl("Positional")  # type: ignore[misc]


def test_duplicate_op_type_is_a_value_error() -> None:
    @register_op_impl(op_type="Dup")
    class First:
        def execute(self) -> None: ...

    class Second:
        def execute(self) -> None: ...

    with pytest.raises(
        ValueError,
        match=re.escape(
            "register_op_impl op_type 'Dup' failed: already implemented by "
            f"{MODULE}:test_duplicate_op_type_is_a_value_error.<locals>.First:Dup; "
            "conflicting implementation "
            f"{MODULE}:test_duplicate_op_type_is_a_value_error.<locals>.Second:Dup"
        ),
    ):
        register_op_impl(op_type="Dup")(Second)
    assert get_registered_op_impl("Dup").cls is First  # type: ignore[union-attr]
    register_op_impl(op_type="Dup")(First)  # the same class again: no change
    assert len(get_registered_op_impls()) == 1


def test_one_class_may_implement_two_op_types() -> None:
    class Shared:
        def execute(self) -> None: ...

    register_op_impl(op_type="One")(Shared)
    register_op_impl(op_type="Two")(Shared)
    assert [d.op_type for d in get_registered_op_impls()] == ["One", "Two"]
    assert {d.descriptor_key.rsplit(":", 1)[1] for d in get_registered_op_impls()} == {
        "One",
        "Two",
    }


def test_impl_registry_queries_and_clear() -> None:
    @register_op_impl(op_type="Zed")
    class Zed:
        def execute(self) -> None: ...

    @register_op_impl(op_type="Alpha")
    class Alpha:
        def execute(self) -> None: ...

    assert [d.op_type for d in get_registered_op_impls()] == ["Alpha", "Zed"]
    key = get_registered_op_impl("Zed").descriptor_key  # type: ignore[union-attr]
    assert get_registered_op_impl_by_descriptor_key(key).cls is Zed  # type: ignore[union-attr]
    assert get_registered_op_impl_by_descriptor_key("x:y:z") is None
    assert [d["op_type"] for d in get_registered_op_impl_dicts()] == ["Alpha", "Zed"]
    assert bootstrap.get_registered_op_impls() == get_registered_op_impl_dicts()
    clear_registered_op_impls()
    assert get_registered_op_impls() == [] and get_registered_op_impl("Zed") is None


# --- schema-bound signatures ----------------------------------------------------------------


@pytest.fixture
def schema() -> str:
    """An op with every input and output kind and three attrs."""

    @register_op(op_type="Schema")
    def infer(
        x: TensorDesc,
        y: Optional[TensorDesc],
        z: List[TensorDesc],
        *,
        a: int,
        b: float = 1.0,
        c: List[int] = (1,),
    ) -> Tuple[TensorDesc, List[TensorDesc]]: ...

    return "Schema"


EXECUTE = (
    "invalid execute signature for op type Schema, expected (self, Tensor, "
    "Optional[Tensor], list[Tensor], *, a: int, b: float, c: list[int]), actual "
)
WITH_OUTPUTS = (
    "(self, Tensor, Optional[Tensor], list[Tensor], Tensor, list[Tensor], *, a: int, "
    "b: float, c: list[int]) -> None, actual "
)
COMPILE = "invalid compile signature for op type Schema, expected " + WITH_OUTPUTS
DECLARE = (
    "invalid declare_launch_args signature for op type Schema, expected " + WITH_OUTPUTS
)


def test_matching_signatures_with_and_without_annotations(schema: str) -> None:
    @register_op_impl(op_type=schema)
    class Annotated:
        def execute(
            self,
            x: Tensor,
            y: Optional[Tensor],
            z: List[Tensor],
            *,
            a: int,
            b: float,
            c: List[int],
        ) -> None: ...

        def compile(
            self,
            x: Tensor,
            y: Tensor | None,
            z: list[Tensor],
            out: Tensor,
            parts: list[Tensor],
            *,
            a: int,
            b: float,
            c: list[int],
        ) -> None: ...

        def declare_launch_args(self, p, q, r, s, t, *, a, b, c) -> None: ...  # type: ignore[no-untyped-def]

    assert get_registered_op_impl(schema).cls is Annotated  # type: ignore[union-attr]


def _check_refused(op_type: str, cls: type, message: str) -> None:
    with pytest.raises(TypeError) as info:
        register_op_impl(op_type=op_type)(cls)
    assert str(info.value) == message
    assert get_registered_op_impl(op_type) is None


@pytest.mark.parametrize(
    ("source", "actual"),
    [
        (
            "def execute(self, x, y, *, a, b, c): ...",
            "(self, x, y, *, a, b, c): 3 positional parameter(s) expected, got 2",
        ),
        (
            "def execute(self, x, y, z, w, *, a, b, c): ...",
            "(self, x, y, z, w, *, a, b, c): 3 positional parameter(s) expected, got 4",
        ),
        (
            "def execute(self, x, y, z, a, b, c): ...",
            "(self, x, y, z, a, b, c): 3 positional parameter(s) expected, got 6",
        ),
        (
            "def execute(self, x, y, z, *, a, c, b): ...",
            "(self, x, y, z, *, a, c, b): attrs must be keyword-only and named as the IR "
            "attrs, in IR order: a, b, c",
        ),
        (
            "def execute(self, x, y, z, *, a, b, cc): ...",
            "(self, x, y, z, *, a, b, cc): attrs must be keyword-only and named as the IR "
            "attrs, in IR order: a, b, c",
        ),
        (
            "def execute(self, x, y, z, *, a, b): ...",
            "(self, x, y, z, *, a, b): attrs must be keyword-only and named as the IR "
            "attrs, in IR order: a, b, c",
        ),
        (
            "def execute(self, x, y, z, *args, a, b, c): ...",
            "(self, x, y, z, *args, a, b, c): *args and **kwargs are not allowed",
        ),
        (
            "def execute(self, x, y, z, *, a, b, c, **kw): ...",
            "(self, x, y, z, *, a, b, c, **kw): *args and **kwargs are not allowed",
        ),
        (
            "def execute(self, x: Tensor, y: Tensor, z, *, a, b, c): ...",
            "(self, x: Tensor, y: Tensor, z, *, a, b, c): parameter 'y' must be annotated "
            "Optional[Tensor]",
        ),
        (
            "def execute(self, x: TensorDesc, y, z, *, a, b, c): ...",
            "(self, x: TensorDesc, y, z, *, a, b, c): parameter 'x' must be annotated Tensor",
        ),
        (
            "def execute(self, x, y, z: Tensor, *, a, b, c): ...",
            "(self, x, y, z: Tensor, *, a, b, c): parameter 'z' must be annotated list[Tensor]",
        ),
        (
            "def execute(self, x, y, z, *, a: float, b, c): ...",
            "(self, x, y, z, *, a: float, b, c): attr 'a' must be annotated int",
        ),
        (
            "def execute(self, x, y, z, *, a, b, c: List[float]): ...",
            "(self, x, y, z, *, a, b, c: List[float]): attr 'c' must be annotated list[int]",
        ),
        ("def execute(*args): ...", "(*args): the first parameter must be self"),
    ],
)
def test_execute_signature_failures(schema: str, source: str, actual: str) -> None:
    namespace = {"Tensor": Tensor, "TensorDesc": TensorDesc, "List": List}
    exec(source, namespace)
    cls = type("Impl", (), {"execute": namespace["execute"]})
    _check_refused(schema, cls, EXECUTE + actual)


@pytest.mark.parametrize(
    ("method", "source", "expected"),
    [
        (
            "compile",
            "def compile(self, x, y, z, o, p, *, a, b, c): ...",
            COMPILE
            + "(self, x, y, z, o, p, *, a, b, c): the return annotation -> None is required",
        ),
        (
            "compile",
            "def compile(self, x, y, z, o, p, *, a, b, c) -> int: ...",
            COMPILE + "(self, x, y, z, o, p, *, a, b, c) -> int: it must return None",
        ),
        (
            "compile",
            "def compile(self, x, y, z, *, a, b, c) -> None: ...",
            COMPILE
            + "(self, x, y, z, *, a, b, c) -> None: 5 positional parameter(s) expected, got 3",
        ),
        (
            "declare_launch_args",
            "def declare_launch_args(self, x, y, z, o, p, *, a, b, c): ...",
            DECLARE
            + "(self, x, y, z, o, p, *, a, b, c): the return annotation -> None is required",
        ),
        (
            "declare_launch_args",
            "def declare_launch_args(self, x, y, z, o, p: Tensor, *, a, b, c) -> None: ...",
            DECLARE
            + "(self, x, y, z, o, p: Tensor, *, a, b, c) -> None: parameter 'p' must be "
            "annotated list[Tensor]",
        ),
        (
            "declare_launch_args",
            "def declare_launch_args(self, x, y, z, o: List[Tensor], p, *, a, b, c) -> None: ...",
            DECLARE
            + "(self, x, y, z, o: List[Tensor], p, *, a, b, c) -> None: parameter 'o' must "
            "be annotated Tensor",
        ),
    ],
)
def test_compile_and_declare_signature_failures(
    schema: str, method: str, source: str, expected: str
) -> None:
    namespace = {"Tensor": Tensor, "List": List}
    exec(source, namespace)
    body = {method: namespace[method]}
    if method == "compile":
        body["execute"] = lambda self, x, y, z, *, a, b, c: None
    _check_refused(schema, type("Impl", (), body), expected)


def test_static_and_class_methods_are_refused(schema: str) -> None:
    expected = "invalid execute signature for op type Schema: it must be a plain method taking self"
    static = type("S", (), {"execute": staticmethod(lambda x, y, z, *, a, b, c: None)})
    _check_refused(schema, static, expected)
    klass = type(
        "K", (), {"execute": classmethod(lambda cls, x, y, z, *, a, b, c: None)}
    )
    _check_refused(schema, klass, expected)


def test_execute_does_not_take_outputs_and_needs_no_return_annotation(
    schema: str,
) -> None:
    class WithOutputs:
        def execute(self, x, y, z, out, parts, *, a, b, c): ...  # type: ignore[no-untyped-def]

    _check_refused(
        schema,
        WithOutputs,
        EXECUTE
        + "(self, x, y, z, out, parts, *, a, b, c): 3 positional parameter(s) expected, got 5",
    )


def test_ops_without_attrs_spell_none(schema: str) -> None:
    @register_op(op_type="NoAttrs")
    def infer(x: TensorDesc) -> TensorDesc: ...

    class Impl:
        def execute(self, x, *, extra): ...  # type: ignore[no-untyped-def]

    _check_refused(
        "NoAttrs",
        Impl,
        "invalid execute signature for op type NoAttrs, expected (self, Tensor), actual "
        "(self, x, *, extra): attrs must be keyword-only and named as the IR attrs, in IR "
        "order: (none)",
    )


def test_an_implementation_registered_first_is_checked_when_its_prototype_comes() -> (
    None
):
    @register_op_impl(op_type="Later")
    class Impl:
        def execute(self, x) -> None: ...  # type: ignore[no-untyped-def]

    def infer(x: TensorDesc, y: TensorDesc) -> TensorDesc: ...

    with pytest.raises(
        TypeError,
        match=re.escape(
            "invalid execute signature for op type Later, expected (self, Tensor, Tensor), "
            "actual (self, x) -> None: 2 positional parameter(s) expected, got 1"
        ),
    ):
        register_op(op_type="Later")(infer)
    # The failed registration left nothing behind; a matching prototype works.
    assert get_registered_op_proto_by_op_type("Later") is None

    @register_op(op_type="Later")
    def good(x: TensorDesc) -> TensorDesc: ...

    assert proto("Later").infer_meta is good


# --- infer_meta helpers (ge.custom_op.infer, used by generated prototypes) -------------------


def _desc(dims: list[int], dtype: DataType = DataType.DT_FLOAT) -> TensorDesc:
    return TensorDesc(dims, dtype)


def test_infer_helpers() -> None:
    from ge.custom_op.infer import broadcast, dtype_of, same_as
    from ge.runtime import StorageShape

    assert same_as(TensorDesc(StorageShape([2, 3], [6]), DataType.DT_FLOAT)) == [2, 3]
    assert broadcast(_desc([2, 1]), _desc([1, 3])) == [2, 3]
    assert broadcast(_desc([3]), None, [_desc([2, 1]), _desc([1])]) == [2, 3]
    assert broadcast(_desc([]), _desc([4])) == [4]
    assert broadcast(_desc([-1]), _desc([1])) == [-1]
    with pytest.raises(
        ValueError, match=r"shapes \[\[2\], \[3\]\] do not broadcast \(axis 0\)"
    ):
        broadcast(_desc([2]), _desc([3]))
    with pytest.raises(ValueError, match="broadcast of no shapes"):
        broadcast(None, [])
    assert dtype_of(_desc([1], DataType.DT_INT8)) is DataType.DT_INT8
    assert dtype_of([_desc([1]), _desc([2])]) is DataType.DT_FLOAT
    with pytest.raises(ValueError, match="got no instances"):
        dtype_of([])
    with pytest.raises(ValueError, match="got DT_FLOAT, DT_INT8"):
        dtype_of([_desc([1]), _desc([1], DataType.DT_INT8)])
