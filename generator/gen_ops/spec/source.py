"""Load one spec file: YAML to plain Python values plus where each value stands.

YAML is read with YAML 1.2 core-schema scalars (``yes``/``on`` stay strings,
``1e-8`` is a float), duplicate keys are reported, and every value and key is
mapped to its line and column so later passes can point at it. Loading never
raises: problems become diagnostics.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from gen_ops.base.diagnostics import Sink, Span

# A spec is a few hundred bytes; anything this large is not one.
MAX_SPEC_BYTES = 1 << 20
# Specs nest about five levels deep; deeper input is refused before it costs.
MAX_DEPTH = 64
# Values in one document, counting each use of a YAML alias (no alias bombs).
MAX_VALUES = 200_000
# Digits of an integer: int64's and uint64's limits have 20; Python's own
# limit (4,300) ends in a ValueError, and shorter ones in long messages.
MAX_INT_DIGITS = 40

if TYPE_CHECKING:
    _BaseLoader = yaml.SafeLoader
else:  # libyaml's loader where there is one
    _BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_BINARY = "tag:yaml.org,2002:binary"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"

# The YAML 1.2 core schema's plain scalars, in PyYAML's order of trying them
# (null, bool, int, float), each with the characters it can start with (as
# PyYAML keys its resolvers); anything else is a string. Each pattern must
# match the whole scalar (or be empty, for null).
_IMPLICIT = [
    (_NULL, r"~|null|Null|NULL|", "~nN"),
    (_BOOL, r"true|True|TRUE|false|False|FALSE", "tTfF"),
    (_INT, r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+", "-+0123456789"),
    (
        _FLOAT,
        r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)",
        "-+.0123456789",
    ),
]
# One regex for all four (a named group each): one match per scalar instead
# of PyYAML's one per candidate resolver, which matters for 100,000-item lists.
_PLAIN = re.compile(
    "|".join(f"(?P<t{i}>{pattern})" for i, (_, pattern, _) in enumerate(_IMPLICIT))
)
_PLAIN_TAGS: dict[str | None, str] = {
    f"t{i}": tag for i, (tag, _, _) in enumerate(_IMPLICIT)
}
# A plain scalar starting with none of these is a string: most of a spec (its
# keys, names and docs) is never matched against _PLAIN.
_PLAIN_STARTS = frozenset("".join(starts for _, _, starts in _IMPLICIT))


def reads_as_string(text: str) -> bool:
    """Whether gen-ops' reader takes the plain (unquoted) scalar ``text``
    as a string, not as a null, bool, int or float: the one place that
    says so for writers of YAML too (gen-ops import, the tests)."""
    if text and text[0] not in _PLAIN_STARTS:
        return True
    return _PLAIN.fullmatch(text) is None


# The tag of every other node: specs use no path resolvers.
_DEFAULT_TAGS = {yaml.ScalarNode: _STR, yaml.SequenceNode: _SEQ, yaml.MappingNode: _MAP}


class _Loader(_BaseLoader):
    """Composes nodes only; tags follow the YAML 1.2 core schema."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        # The C composer calls this for every node: kept to the fewest steps.
        if (
            kind is yaml.ScalarNode
            and implicit[0]
            and (not value or value[0] in _PLAIN_STARTS)
        ):
            match = _PLAIN.fullmatch(value)
            if match:
                return _PLAIN_TAGS[match.lastgroup]
        return _DEFAULT_TAGS[kind]


_Loader.yaml_implicit_resolvers = {}

# Where a value stands in the YAML tree: the keys and list indices that lead
# to it from the document root, e.g. ("inputs", 1, "dtype").
YamlPath = tuple[str | int, ...]


@dataclass(frozen=True)
class Positions:
    """Where each value (and each mapping key) of a loaded file stands: its
    YAML node, whose 1-based line and column ``at`` and ``key`` read only when
    asked for (few values are ever named). A list of scalars is kept as the
    list of its nodes: a spec may hold a 100,000-item default."""

    path: str
    values: dict[YamlPath, yaml.Node] = field(default_factory=dict)
    keys: dict[YamlPath, yaml.Node] = field(default_factory=dict)
    scalar_lists: dict[YamlPath, list[yaml.ScalarNode]] = field(default_factory=dict)

    def _item(self, where: YamlPath) -> yaml.ScalarNode | None:
        if where and isinstance(where[-1], int):
            items = self.scalar_lists.get(where[:-1])
            if items is not None and 0 <= where[-1] < len(items):
                return items[where[-1]]
        return None

    def at(self, where: YamlPath) -> Span:
        """The value at ``where``, or the nearest enclosing value that exists."""
        node = self.values.get(where) or self._item(where)
        if node is not None:  # the common case: a value that is there
            return _span(self.path, node.start_mark)
        for end in range(len(where) - 1, -1, -1):
            node = self.values.get(where[:end])
            if node is not None:
                return _span(self.path, node.start_mark)
        return Span(self.path, 1, 1)

    def text(self, where: YamlPath) -> str | None:
        """The source text of the number at ``where``, if it is one, so that
        1e-8 stays 1e-8."""
        node = self._item(where) or self.values.get(where)
        return node.value if node is not None and node.tag in (_INT, _FLOAT) else None

    def key(self, where: YamlPath) -> Span:
        """The key that introduces ``where`` (falls back to the value)."""
        node = self.keys.get(where)
        return _span(self.path, node.start_mark) if node is not None else self.at(where)


@dataclass(frozen=True)
class LoadedSpec:
    path: str
    data: Any
    positions: Positions
    label: str = ""
    project: Path = Path(".")  # Note [Project root] (discovery)


def _span(path: str, mark: Any) -> Span:
    return Span(path, mark.line + 1, mark.column + 1)


def _scalar(node: yaml.ScalarNode) -> Any:
    text = node.value
    tag = node.tag
    if tag == _STR:
        return text
    if tag == _NULL:
        return None
    if tag == _BOOL:
        return text.lower() == "true"
    if tag == _INT:
        if len(text) > MAX_INT_DIGITS + 2:  # a sign, or 0o / 0x
            raise _Unsupported(
                f"an integer of {len(text):,} characters; a spec's integers "
                f"have at most {MAX_INT_DIGITS} digits"
            )
        if text.startswith("0o"):
            return int(text[2:], 8)
        if text.startswith("0x"):
            return int(text[2:], 16)
        return int(text)
    if tag == _FLOAT:
        lowered = text.lower()
        if lowered.endswith(".inf"):
            return float("-inf") if lowered.startswith("-") else float("inf")
        if lowered == ".nan":
            return float("nan")
        return float(text)
    if tag == _BINARY:
        return base64.b64decode("".join(text.split()), validate=True)
    raise _Unsupported(f"YAML tag {tag!r} is not supported in specs")


class _Unsupported(Exception):
    """A YAML construct specs do not use; carries where it stands."""

    def __init__(self, message: str, span: Span | None = None) -> None:
        super().__init__(message)
        self.span = span


class _Builder:
    """Turns a composed node tree into values, recording positions."""

    def __init__(self, path: str, sink: Sink) -> None:
        self.path = path
        self.sink = sink
        self.positions = Positions(path)
        self.active: set[int] = set()
        self.count = 0

    def build(self, node: yaml.Node, where: YamlPath) -> Any:
        self.positions.values[where] = node
        self.count += 1
        if self.count > MAX_VALUES or len(where) > MAX_DEPTH:
            self._refuse(node, where)
        if not isinstance(node, yaml.ScalarNode):
            return self._collection(node, where)
        if node.tag == _STR:
            return node.value  # the common case, inline
        return self._value(node, where)

    def _value(self, node: yaml.ScalarNode, where: YamlPath) -> Any:
        """The value of the scalar at ``where``."""
        try:
            return _scalar(node)
        except _Unsupported as exc:
            raise _Unsupported(str(exc), self.positions.at(where)) from None
        except (ValueError, binascii.Error) as exc:
            raise _Unsupported(
                f"cannot read {node.tag} value: {exc}", self.positions.at(where)
            ) from None

    def _refuse(self, node: yaml.Node, where: YamlPath) -> None:
        span = self.positions.at(where)
        if self.count > MAX_VALUES:
            raise _Unsupported(
                f"document expands to more than {MAX_VALUES} values " "(YAML aliases?)",
                span,
            )
        if len(where) > MAX_DEPTH:
            raise _Unsupported(f"nesting deeper than {MAX_DEPTH} levels", span)
        raise _Unsupported("a YAML alias refers to its own ancestor", span)

    def _collection(self, node: yaml.Node, where: YamlPath) -> Any:
        if id(node) in self.active:
            self._refuse(node, where)
        self.active.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                if node.tag != _SEQ:
                    raise _Unsupported(
                        f"YAML tag {node.tag!r} is not supported",
                        self.positions.at(where),
                    )
                items = node.value
                if (
                    all(type(item) is yaml.ScalarNode for item in items)
                    and self.count + len(items) <= MAX_VALUES
                    and len(where) < MAX_DEPTH
                ):
                    return self._scalars(items, where)
                return [self.build(item, where + (i,)) for i, item in enumerate(items)]
            if node.tag != _MAP:
                raise _Unsupported(
                    f"YAML tag {node.tag!r} is not supported", self.positions.at(where)
                )
            # The composer makes only scalar, sequence and mapping nodes.
            assert isinstance(node, yaml.MappingNode)
            return self._mapping(node, where)
        finally:
            self.active.discard(id(node))

    def _scalars(self, items: list[yaml.ScalarNode], where: YamlPath) -> list[Any]:
        """``build`` of a list of scalars, with no work per item but its value
        (a default may hold 100,000 of them): the limits are checked for all
        at once, and positions are read from the nodes when asked for
        (Positions.scalar_lists)."""
        self.count += len(items)
        self.positions.scalar_lists[where] = items
        out = []
        for i, item in enumerate(items):
            value = item.value
            if item.tag == _INT and value.isdigit() and len(value) <= MAX_INT_DIGITS:
                out.append(int(value))
            else:
                out.append(self._value(item, where + (i,)))
        return out

    def _mapping(self, node: yaml.MappingNode, where: YamlPath) -> dict[str, Any]:
        result: dict[str, Any] = {}
        keys = self.positions.keys
        for key_node, value_node in node.value:
            key = self._key(key_node)
            if key is None:
                continue
            inner = where + (key,)
            if key in result:
                self.sink.emit(
                    "E103",
                    _span(self.path, key_node.start_mark),
                    f"duplicate key '{key}' (first defined at line "
                    f"{keys[inner].start_mark.line + 1})",
                    "remove one of the two entries",
                )
                continue
            keys[inner] = key_node
            result[key] = self.build(value_node, inner)
        return result

    def _key(self, node: yaml.Node) -> str | None:
        """A mapping key's name; None, after E203, for a key that is not one."""
        if isinstance(node, yaml.ScalarNode) and node.tag == _STR:
            name: str = node.value  # the common case
            return name
        span = _span(self.path, node.start_mark)
        if not isinstance(node, yaml.ScalarNode):
            raise _Unsupported("mapping keys must be plain names", span)
        try:
            key = _scalar(node)
        except (_Unsupported, ValueError, binascii.Error):
            raise _Unsupported("mapping keys must be plain names", span) from None
        if not isinstance(key, str):
            # YAML 1.2 would read `1:` or `true:` as non-strings; specs use
            # names only, so say so instead of guessing.
            self.sink.emit(
                "E203",
                span,
                f"mapping key {node.value!r} is not a name",
                "quote it if it is meant as text",
            )
            return None
        return key


def _decode_error_span(path: str, raw: bytes, offset: int) -> Span:
    before = raw[:offset]
    line = before.count(b"\n") + 1
    col = offset - (before.rfind(b"\n") + 1) + 1
    return Span(path, line, col)


def load_spec(file: Path, display: str, sink: Sink) -> LoadedSpec | None:
    """Read and parse one spec; None (with diagnostics) when it cannot be read."""
    raw = read_spec(file, display, sink)
    return None if raw is None else load_spec_text(raw, display, sink)


def read_spec(file: Path, display: str, sink: Sink) -> bytes | None:
    """The bytes of one spec; None (with diagnostics) when it cannot be read."""
    origin = Span(display, 1, 1)
    try:
        # Non-blocking, so that a FIFO swapped in after discovery cannot hang
        # the run; at most one byte more than a spec may hold is read.
        handle = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(handle, "rb") as stream:
            status = os.fstat(handle)
            if not stat.S_ISREG(status.st_mode):
                sink.emit(
                    "E101",
                    origin,
                    "not a regular file",
                    "a spec is a regular YAML file",
                )
                return None
            # A read of up to 1 MiB allocates the 1 MiB: read the file's size
            # first (and on, should it have grown since).
            size = min(status.st_size, MAX_SPEC_BYTES) + 1
            raw = stream.read(size)
            if len(raw) == size:
                raw += stream.read(MAX_SPEC_BYTES + 1 - size)
    except OSError as exc:
        sink.emit("E101", origin, f"cannot read file: {exc.strerror or exc}")
        return None
    if len(raw) > MAX_SPEC_BYTES:
        sink.emit(
            "E101",
            origin,
            f"file is larger than {MAX_SPEC_BYTES} bytes; a spec is a short "
            "YAML file",
        )
        return None
    return raw


def load_spec_text(raw: bytes, display: str, sink: Sink) -> LoadedSpec | None:
    """Parse spec bytes (UTF-8) into values and positions."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        sink.emit(
            "E101",
            _decode_error_span(display, raw, exc.start),
            "file is not UTF-8 text",
            "save the spec as UTF-8",
        )
        return None
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.reader.ReaderError as exc:
        before = text[: exc.position]
        span = Span(
            display, before.count("\n") + 1, exc.position - (before.rfind("\n") + 1) + 1
        )
        character = (
            exc.character if isinstance(exc.character, str) else chr(exc.character)
        )
        sink.emit(
            "E102",
            span,
            f"YAML syntax error: character U+{ord(character):04X} is not allowed in YAML text",
            "remove it, or write it as an escape inside a double-quoted string",
        )
        return None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        span = _span(display, mark) if mark else Span(display, 1, 1)
        problem = exc.problem or exc.context or "invalid YAML"
        sink.emit("E102", span, f"YAML syntax error: {problem}")
        return None
    except yaml.YAMLError as exc:
        sink.emit("E102", Span(display, 1, 1), f"YAML syntax error: {exc}")
        return None
    builder = _Builder(display, sink)
    if node is None:
        sink.emit(
            "E203",
            Span(display, 1, 1),
            "file holds no spec",
            "a spec is a mapping that starts with `op: <Name>`",
        )
        return None
    try:
        data = builder.build(node, ())
    except _Unsupported as exc:
        sink.emit("E104", exc.span or Span(display, 1, 1), str(exc))
        return None
    return LoadedSpec(display, data, builder.positions)
