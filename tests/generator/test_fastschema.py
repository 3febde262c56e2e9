"""The fast schema path (Note [Fast schema path] in gen_ops.spec.fastschema)
never says yes to a spec the JSON Schema refuses: every spec of the
repository and every diagnostic case, and variants of the golden specs with
one value broken, are checked both ways."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from helpers import ROOT
from test_diagnostics import CASES

from gen_ops.base.diagnostics import Sink
from gen_ops.spec import schema_check
from gen_ops.spec.source import load_spec_text


def _loaded(text: str | bytes) -> Any:
    raw = text.encode("utf-8") if isinstance(text, str) else text
    spec = load_spec_text(raw, "spec.yaml", Sink())
    return None if spec is None else spec.data


def _jsonschema_accepts(data: Any) -> bool:
    return not any(True for _ in schema_check._validator().iter_errors(data))


def _all_texts() -> list[tuple[str, str | bytes]]:
    texts: list[tuple[str, str | bytes]] = []
    for root in ("specs", "tests", "examples"):
        for path in sorted((ROOT / root).rglob("*.yaml")):
            texts.append((path.relative_to(ROOT).as_posix(), path.read_bytes()))
    for case in CASES:
        for name, body in case.files.items():
            texts.append((f"{case.id}:{name}", body))
    return texts


def _breakages(data: Any) -> list[Any]:
    """Copies of ``data`` with one value replaced by something of another
    kind, one key dropped or one unknown key added, at every place."""
    out: list[Any] = []

    def walk(node: Any, replace: Any) -> None:
        if isinstance(node, dict):
            for key in list(node):
                for bad in (None, 7, "x", [], {}, True, 1.5):
                    out.append(replace({**node, key: bad}))
                out.append(replace({k: v for k, v in node.items() if k != key}))
                walk(node[key], lambda v, key=key: replace({**node, key: v}))
            out.append(replace({**node, "unknown_key": 1}))
        elif isinstance(node, list):
            for i, item in enumerate(node):
                for bad in (None, 7, "", ["x"]):
                    out.append(replace(node[:i] + [bad] + node[i + 1 :]))
                walk(item, lambda v, i=i: replace(node[:i] + [v] + node[i + 1 :]))

    walk(copy.deepcopy(data), lambda v: v)
    return out


def test_fast_yes_is_jsonschema_yes() -> None:
    fast = schema_check.surely_valid()
    checked = accepted = 0
    for name, text in _all_texts():
        data = _loaded(text)
        if data is None:
            continue
        checked += 1
        if fast(data):
            accepted += 1
            assert _jsonschema_accepts(data), name
    assert checked > 100 and accepted > 20


@pytest.mark.parametrize(
    "spec", sorted(p.name for p in (ROOT / "tests/golden/specs").glob("*.yaml"))
)
def test_fast_path_refuses_every_broken_variant(spec: str) -> None:
    fast = schema_check.surely_valid()
    data = _loaded((ROOT / "tests/golden/specs" / spec).read_bytes())
    assert fast(data)
    for variant in _breakages(data):
        if fast(variant):
            assert _jsonschema_accepts(variant), variant


def test_golden_specs_take_the_fast_path() -> None:
    fast = schema_check.surely_valid()
    for path in sorted((ROOT / "tests/golden/specs").glob("*.yaml")):
        assert fast(_loaded(path.read_bytes())), path.name


def test_the_shipped_schema_is_a_valid_draft_2020_12_schema() -> None:
    import jsonschema

    jsonschema.Draft202012Validator.check_schema(schema_check._schema())


def test_a_run_over_valid_specs_never_imports_jsonschema() -> None:
    """jsonschema's import is a tenth of a second of every run; only a spec
    the fast path does not pass needs it."""
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from gen_ops.cli import main\n"
        f"code = main(['validate', '--specs', {str(ROOT / 'specs')!r}, '-q'])\n"
        "print(code, 'jsonschema' in sys.modules)\n"
    )
    shown = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert shown.stdout.split() == ["0", "False"], shown.stderr


@pytest.mark.parametrize("count", [32, 33])
def test_max_items_is_the_schemas(count: int) -> None:
    """``library.call_args`` holds at most 32 pointers: the fast path says
    yes to 32 (so the TileLang specs need no jsonschema) and no to 33."""
    text = (ROOT / "specs/add_custom_online.yaml").read_text()
    data = _loaded(text)
    data["impl"]["library"]["call_args"] = [{"input": "x"}] * count
    fast = schema_check.surely_valid()(data)
    assert fast == _jsonschema_accepts(data) == (count == 32)
