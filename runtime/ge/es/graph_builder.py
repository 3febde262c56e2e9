"""``GraphBuilder``: builds a ``ge.graph.Graph`` node by node (GE's ES API)."""

from __future__ import annotations

import contextlib
import enum
import threading
import weakref
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from ge.es.tensor_holder import TensorHolder
from ge.es.tensor_like import literal_array
from ge.graph.attrs import AttrType, check_attr_value
from ge.graph.graph import Edge, Graph, IrInput, IrOutput, Node, TensorMeta
from ge.graph.named_attrs import infer_attr_type
from ge.graph.tensor import Tensor
from ge.graph.types import DataType, Format
from ge_ir.dtype_rules import DtypeRules

__all__ = ["GraphBuilder", "InputType", "attr_scope", "control_dependency_scope"]


class InputType(str, enum.Enum):  # noqa: UP042 - GE's class; str() as GE prints it
    DATA = "Data"
    REF_DATA = "RefData"
    AIPP_DATA = "AippData"
    ANY_DATA = "AnyData"


_scope = threading.local()


@contextlib.contextmanager
def attr_scope(attrs: Mapping[str, Any]) -> Iterator[None]:
    """Every node created inside gets these attributes (scopes nest; inner
    values win), except where the node already has an attr of that name:
    an op's own attrs (and a Data node's index) are never overridden."""
    if not isinstance(attrs, Mapping):
        raise TypeError(f"attr_scope expects a dict, got {type(attrs).__name__}")
    for key in attrs:
        if not isinstance(key, str):
            raise TypeError("attr_scope keys must be str")
    stack: list[Mapping[str, Any]] = getattr(_scope, "stack", [])
    _scope.stack = stack + [dict(attrs)]
    try:
        yield
    finally:
        _scope.stack = stack


@contextlib.contextmanager
def control_dependency_scope(tensors: Sequence[TensorHolder]) -> Iterator[None]:
    """Every node created inside runs after the nodes that produce
    ``tensors`` (a control edge from each; scopes nest and add up). A node is
    created in a builder: every tensor of the scopes must belong to it
    (ValueError when the node is created otherwise)."""
    if isinstance(tensors, (str, bytes)) or not isinstance(tensors, Sequence):
        raise TypeError(
            "control_dependency_scope expects a list of TensorHolder, got "
            f"{type(tensors).__name__}"
        )
    for i, tensor in enumerate(tensors):
        if not isinstance(tensor, TensorHolder):
            raise TypeError(
                f"control_dependency_scope: tensors[{i}] must be a TensorHolder, "
                f"got {type(tensor).__name__}"
            )
    stack: list[TensorHolder] = getattr(_scope, "control", [])
    _scope.control = stack + list(tensors)
    try:
        yield
    finally:
        _scope.control = stack


def _scoped_control(builder: GraphBuilder) -> list[Node]:
    """The producers of the control_dependency_scope tensors, checked to
    belong to ``builder`` (each once, in scope order)."""
    nodes: list[Node] = []
    for tensor in getattr(_scope, "control", []):
        if tensor._builder is not builder:
            raise ValueError(
                f"control_dependency_scope tensor {tensor!r} belongs to graph "
                f"builder {tensor._builder.name!r}, but the node being created "
                f"belongs to {builder.name!r}; a control edge joins nodes of one "
                "graph"
            )
        if not any(node is tensor._node for node in nodes):
            nodes.append(tensor._node)
    return nodes


def _scoped_attrs() -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for layer in getattr(_scope, "stack", []):
        merged.update(layer)
    return merged


def _check_int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be an int, got {type(value).__name__}")
    return int(value)


class GraphBuilder:
    """Builds one graph; unusable once ``build_and_reset`` returned it."""

    def __init__(self, name: str | None = None) -> None:
        if name is not None and not isinstance(name, str):
            raise TypeError(f"GraphBuilder name must be str, got {type(name).__name__}")
        self._graph: Graph | None = Graph(name or "graph")
        self._names: set[str] = set()
        self._counters: dict[str, int] = {}
        self._outputs: dict[int, TensorHolder] = {}
        self._name = name or "graph"

    def __copy__(self) -> GraphBuilder:
        raise TypeError("a GraphBuilder cannot be copied")

    def __deepcopy__(self, memo: Any) -> GraphBuilder:
        raise TypeError("a GraphBuilder cannot be copied")

    @property
    def name(self) -> str:
        return self._name

    def _check_usable(self) -> Graph:
        if self._graph is None:
            raise RuntimeError("GraphBuilder has already been built")
        return self._graph

    # -- nodes ---------------------------------------------------------------------

    def _unique_name(self, name: str | None, op_type: str) -> str:
        if name is not None:
            if not isinstance(name, str) or not name:
                raise TypeError("node name must be a non-empty str")
            if name in self._names:
                raise ValueError(
                    f"graph {self._name!r} already has a node named {name!r}"
                )
            self._names.add(name)
            return name
        while True:
            count = self._counters.get(op_type, 0)
            self._counters[op_type] = count + 1
            candidate = f"{op_type}_{count}"
            if candidate not in self._names:
                self._names.add(candidate)
                return candidate

    def _add_node(
        self,
        op_type: str,
        name: str | None,
        *,
        ir_inputs: tuple[IrInput, ...] = (),
        inputs: Sequence[TensorHolder | None] = (),
        ir_outputs: tuple[IrOutput, ...] = (),
        outputs: Sequence[TensorMeta] = (),
        attrs: Mapping[str, tuple[AttrType, Any]] | None = None,
        subgraphs: Mapping[str, tuple[Graph, ...]] | None = None,
        dtype_rules: DtypeRules | None = None,
    ) -> Node:
        graph = self._check_usable()
        # Scoped attrs are checked before the name is taken, so a bad scope
        # value leaves the builder as it was.
        scoped = {
            key: (kind, check_attr_value(kind, value))
            for key, value in _scoped_attrs().items()
            for kind in (infer_attr_type(value),)
        }
        control = _scoped_control(self)
        node = Node(
            name=self._unique_name(name, op_type),
            type=op_type,
            ir_inputs=ir_inputs,
            ir_outputs=ir_outputs,
            inputs=[None if h is None else Edge(h._node, h._index) for h in inputs],
            outputs=list(outputs),
            attrs=dict(attrs or {}),
            subgraphs=dict(subgraphs or {}),
            dtype_rules=dtype_rules,
        )
        for key, value in scoped.items():  # the op's own attrs win
            node.attrs.setdefault(key, value)
        node.control_inputs.extend(control)
        graph.nodes.append(node)
        return node

    def _holder(self, node: Node, index: int) -> TensorHolder:
        return TensorHolder._create(self, node, index)

    def _own(self, holder: Any, what: str) -> TensorHolder:
        if not isinstance(holder, TensorHolder):
            raise TypeError(
                f"{what} must be a TensorHolder, got {type(holder).__name__}"
            )
        if holder._builder is not self:
            raise ValueError(
                f"{what} belongs to graph builder {holder._builder.name!r}, "
                f"not to {self._name!r}"
            )
        return holder

    # -- inputs ----------------------------------------------------------------------

    def create_input(
        self,
        index: int,
        *,
        name: str | None = None,
        type_str: InputType | str = InputType.DATA,
        data_type: DataType | None = None,
        format: Format = Format.FORMAT_ND,
        shape: Sequence[int] | None = None,
    ) -> TensorHolder:
        """A graph input (a Data node) at ``index``; shape None is a scalar, -1
        dims unknown; data_type None: DT_FLOAT (Note [Inputs of the default dtype])."""
        graph = self._check_usable()
        defaulted, data_type = data_type is None, _float_if_none(data_type)
        index = _check_int(index, "index")
        if index < 0:
            raise ValueError(f"input index must be >= 0, got {index}")
        if any(n.get_attr("index") == index for n in graph.input_nodes):
            raise ValueError(f"graph {self._name!r} already has input {index}")
        kind = InputType(type_str).value
        if not isinstance(data_type, DataType):
            raise TypeError(
                f"data_type must be a DataType, got {type(data_type).__name__}"
            )
        if not isinstance(format, Format):
            raise TypeError(f"format must be a Format, got {type(format).__name__}")
        dims: tuple[int, ...] = ()
        if shape is not None:
            dims = tuple(_check_int(d, "shape dim") for d in shape)
            if any(d < -2 for d in dims):
                raise ValueError(f"invalid shape {list(dims)}")
        node = self._add_node(
            kind,
            name if name is not None else f"input_{index}",
            ir_outputs=(IrOutput("y", False, 1),),
            outputs=[TensorMeta(dims, data_type, format)],
            attrs={"index": (AttrType.INT, index)},
        )
        if defaulted:
            _DEFAULT_TYPED.add(node)
        return self._holder(node, 0)

    def create_inputs(self, num: int, start_index: int = 0) -> list[TensorHolder]:
        num = _check_int(num, "num")
        start_index = _check_int(start_index, "start_index")
        if num < 0:
            raise ValueError("num must be >= 0")
        return [self.create_input(start_index + i) for i in range(num)]

    # -- constants ---------------------------------------------------------------------

    def create_const(self, tensor: Tensor, *, name: str | None = None) -> TensorHolder:
        """A Const node holding ``tensor`` (any dtype)."""
        if not isinstance(tensor, Tensor):
            raise TypeError(
                f"create_const expects a ge.graph.Tensor, got {type(tensor).__name__}"
            )
        node = self._add_node(
            "Const",
            name,
            ir_outputs=(IrOutput("y", False, 1),),
            outputs=[TensorMeta(tuple(tensor.shape), tensor.data_type, tensor.format)],
            attrs={"value": (AttrType.TENSOR, tensor)},
        )
        return self._holder(node, 0)

    def _const(
        self, value: Any, shape: Sequence[int] | None, dtype: DataType
    ) -> TensorHolder:
        if isinstance(value, (list, tuple)):
            array = literal_array(value)
        elif isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
            array = np.asarray(value)
        else:
            raise TypeError(
                f"const value must be a number or a list, got {type(value).__name__}"
            )
        if array.dtype.kind == "f" and dtype.spec_name.startswith(("int", "uint")):
            whole = np.isfinite(array) & (array == np.trunc(array))
            if not whole.all():
                bad = array.reshape(-1)[~whole.reshape(-1)][0]
                raise ValueError(
                    f"{float(bad)} is not a whole number; {dtype.spec_name} "
                    "constants take integers"
                )
        if shape is not None:
            dims = [_check_int(d, "shape dim") for d in shape]
            count = int(np.prod(dims)) if dims else 1
            if array.size == 1 and count != 1:
                array = np.full(dims, array.reshape(-1)[0])
            elif array.size != count:
                raise ValueError(f"{array.size} values do not fill shape {dims}")
            array = array.reshape(dims)
        return self.create_const(Tensor(array, data_type=dtype))

    def create_const_int64(
        self, value: Any, shape: Sequence[int] | None = None
    ) -> TensorHolder:
        return self._const(value, shape, DataType.DT_INT64)

    def create_const_int32(
        self, value: Any, shape: Sequence[int] | None = None
    ) -> TensorHolder:
        return self._const(value, shape, DataType.DT_INT32)

    def create_const_uint64(
        self, value: Any, shape: Sequence[int] | None = None
    ) -> TensorHolder:
        return self._const(value, shape, DataType.DT_UINT64)

    def create_const_uint32(
        self, value: Any, shape: Sequence[int] | None = None
    ) -> TensorHolder:
        return self._const(value, shape, DataType.DT_UINT32)

    def create_const_float(
        self, value: Any, shape: Sequence[int] | None = None
    ) -> TensorHolder:
        return self._const(value, shape, DataType.DT_FLOAT)

    def create_vector_int64(self, value: Sequence[int]) -> TensorHolder:
        if not isinstance(value, (list, tuple)):
            raise TypeError("create_vector_int64 expects a list of ints")
        return self._const(list(value), [len(value)], DataType.DT_INT64)

    def _scalar(self, value: Any, dtype: DataType) -> TensorHolder:
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
            raise TypeError(f"scalar must be a number, got {type(value).__name__}")
        return self._const(value, None, dtype)

    def create_scalar_int64(self, value: int) -> TensorHolder:
        return self._scalar(value, DataType.DT_INT64)

    def create_scalar_int32(self, value: int) -> TensorHolder:
        return self._scalar(value, DataType.DT_INT32)

    def create_scalar_uint64(self, value: int) -> TensorHolder:
        return self._scalar(value, DataType.DT_UINT64)

    def create_scalar_uint32(self, value: int) -> TensorHolder:
        return self._scalar(value, DataType.DT_UINT32)

    def create_scalar_float(self, value: float) -> TensorHolder:
        return self._scalar(value, DataType.DT_FLOAT)

    # -- variables ----------------------------------------------------------------

    def create_variable(
        self, index: int, name: str, *, value: Tensor | None = None
    ) -> TensorHolder:
        """A Variable node named ``name`` (GE's ``EsCreateVariable``): a
        tensor that keeps its value across the runs of one Session and is
        shared by name between the session's graphs (Note [Variables] in
        ``ge.engine.variables``). Its dtype and shape are ``value``'s when
        given (also its initial value), else float32 scalar until
        ``set_data_type``/``set_shape``; it starts as zeros then. Update it with
        ``ge.es.state.Assign(ref=variable, value=...)``."""
        graph = self._check_usable()
        index = _check_int(index, "index")
        if index < 0:
            raise ValueError(f"variable index must be >= 0, got {index}")
        if not isinstance(name, str) or not name:
            raise TypeError(
                f"variable name must be a non-empty str, got {type(name).__name__}"
            )
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(
                "create_variable value must be a ge.graph.Tensor (the initial "
                f"value), got {type(value).__name__}"
            )
        for node in graph.nodes:
            if node.type == "Variable" and node.get_attr("index") == index:
                raise ValueError(
                    f"graph {self._name!r} already has variable index {index} "
                    f"({node.name!r}); give each variable its own index"
                )
        attrs: dict[str, tuple[AttrType, Any]] = {"index": (AttrType.INT, index)}
        meta = TensorMeta((), DataType.DT_FLOAT, Format.FORMAT_ND)
        if value is not None:
            attrs["value"] = (AttrType.TENSOR, value)
            meta = TensorMeta(tuple(value.shape), value.data_type, value.format)
        node = self._add_node(
            "Variable",
            name,
            ir_outputs=(IrOutput("y", False, 1),),
            outputs=[meta],
            attrs=attrs,
        )
        return self._holder(node, 0)

    # -- outputs, attributes, control ---------------------------------------------------

    def set_graph_output(self, tensor: TensorHolder, output_index: int) -> None:
        self._check_usable()
        holder = self._own(tensor, "graph output")
        index = _check_int(output_index, "output_index")
        if index < 0:
            raise ValueError("output_index must be >= 0")
        if holder._index < 0:
            raise ValueError(f"node {holder.name!r} has no data output")
        self._outputs[index] = holder

    def _set_attr(
        self, target: Node | Graph, name: str, value: Any, kind: AttrType
    ) -> None:
        if not isinstance(name, str) or not name:
            raise TypeError("attr name must be a non-empty str")
        target.attrs[name] = (kind, check_attr_value(kind, value))

    def set_graph_attr_int64(self, name: str, value: int) -> None:
        self._set_attr(self._check_usable(), name, value, AttrType.INT)

    def set_graph_attr_string(self, name: str, value: str) -> None:
        self._set_attr(self._check_usable(), name, value, AttrType.STR)

    def set_graph_attr_bool(self, name: str, value: bool) -> None:
        self._set_attr(self._check_usable(), name, value, AttrType.BOOL)

    def set_node_attr_int64(self, tensor: TensorHolder, name: str, value: int) -> None:
        self._check_usable()
        self._set_attr(self._own(tensor, "tensor")._node, name, value, AttrType.INT)

    def set_node_attr_string(self, tensor: TensorHolder, name: str, value: str) -> None:
        self._check_usable()
        self._set_attr(self._own(tensor, "tensor")._node, name, value, AttrType.STR)

    def set_node_attr_bool(self, tensor: TensorHolder, name: str, value: bool) -> None:
        self._check_usable()
        self._set_attr(self._own(tensor, "tensor")._node, name, value, AttrType.BOOL)

    # Tensor attrs live on the producing node under "<output index>:<name>".
    def set_tensor_attr_int64(
        self, tensor: TensorHolder, name: str, value: int
    ) -> None:
        self._check_usable()
        holder = self._own(tensor, "tensor")
        self._set_attr(holder._node, f"{holder._index}:{name}", value, AttrType.INT)

    def set_tensor_attr_string(
        self, tensor: TensorHolder, name: str, value: str
    ) -> None:
        self._check_usable()
        holder = self._own(tensor, "tensor")
        self._set_attr(holder._node, f"{holder._index}:{name}", value, AttrType.STR)

    def set_tensor_attr_bool(
        self, tensor: TensorHolder, name: str, value: bool
    ) -> None:
        self._check_usable()
        holder = self._own(tensor, "tensor")
        self._set_attr(holder._node, f"{holder._index}:{name}", value, AttrType.BOOL)

    def add_control_dependency(
        self, dst_tensor: TensorHolder, src_tensors: Sequence[TensorHolder]
    ) -> None:
        """``dst_tensor``'s node runs after every node of ``src_tensors``."""
        self._check_usable()
        dst = self._own(dst_tensor, "dst_tensor")._node
        if not isinstance(src_tensors, (list, tuple)):
            raise TypeError("src_tensors must be a list of TensorHolder")
        for i, src in enumerate(src_tensors):
            node = self._own(src, f"src_tensors[{i}]")._node
            if node is dst:
                raise ValueError("a node cannot depend on itself")
            if node not in dst.control_inputs:
                dst.control_inputs.append(node)

    # -- build ---------------------------------------------------------------------------

    def build_and_reset(self, outputs: Sequence[TensorHolder] | None = None) -> Graph:
        """The built graph; the builder is unusable afterwards."""
        graph = self._check_usable()
        # Everything is checked before anything changes: a failed call
        # leaves the builder (and the outputs set so far) as it was.
        pending = dict(self._outputs)
        if outputs is not None:
            if not isinstance(outputs, (list, tuple)):
                raise TypeError("outputs must be a list of TensorHolder")
            for i, holder in enumerate(outputs):
                if self._own(holder, f"outputs[{i}]")._index < 0:
                    raise ValueError(f"node {holder.name!r} has no data output")
                pending[i] = holder
        indices = sorted(pending)
        if indices != list(range(len(indices))):
            raise ValueError(f"graph outputs must be numbered 0..n-1, got {indices}")
        inputs = [n.get_attr("index") for n in graph.input_nodes]
        if inputs != list(range(len(inputs))):
            raise ValueError(f"graph inputs must be numbered 0..n-1, got {inputs}")
        self._outputs = pending
        graph.outputs = [(h._node, h._index) for _, h in sorted(pending.items())]
        self._graph = None
        return graph

    def __repr__(self) -> str:
        state = "built" if self._graph is None else f"{len(self._graph.nodes)} nodes"
        return f"GraphBuilder({self._name!r}, {state})"


# Note [Inputs of the default dtype]: create_input's data_type is DT_FLOAT
# when not given, as GE's. GE's builders do not check dtypes, and GE's
# samples rely on that: a replacement graph's inputs are made with
# create_inputs(n) (all DT_FLOAT) and one of them may feed an int32 slot
# (ConcatV2's concat_dim), since the rewriter connects the real tensor to
# it. So a Data node made without a data_type binds an op's type variables
# only where float fits: a dtype rule it breaks is not raised when the op
# is built, and the compiler checks the node with the dtype the input has
# then (the boundary's tensor in a replacement, the Data node's dtype in a
# graph that is compiled as built). An input given a data_type is checked
# when the op is built, as before.


_DEFAULT_TYPED: weakref.WeakSet[Node] = weakref.WeakSet()


def _float_if_none(data_type: DataType | None) -> DataType:
    return DataType.DT_FLOAT if data_type is None else data_type


def is_default_typed(node: Node) -> bool:
    """Whether ``node`` is a Data node made without a data_type that still
    has the default dtype (Note [Inputs of the default dtype])."""
    return node in _DEFAULT_TYPED and bool(
        node.outputs and node.outputs[0].dtype is DataType.DT_FLOAT
    )
