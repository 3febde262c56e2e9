"""Module names that would shadow ``ge.es`` (Note [Reserved module names] in
ge_ir.names; issue 21, finding 7): the table is complete against the real
``ge.es``, and the plugin loader refuses a plugin that would replace or be
hidden by one of its names."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import ge.es
from ge_ir.names import (
    BUILTIN_MODULE_NAMES,
    RESERVED_MODULE_NAMES,
    library_module_refusal,
    module_name_refusal,
)
from tests.runtime.test_es_builder import _write_dist

ES_DIR = Path(ge.es.__file__).resolve().parent


def test_every_file_of_ge_es_is_reserved() -> None:
    stems = {
        p.stem if p.suffix == ".py" else p.name
        for p in ES_DIR.iterdir()
        if p.name != "__init__.py"
        and p.name != "__pycache__"
        and (p.suffix == ".py" or p.is_dir())
    }
    assert stems <= RESERVED_MODULE_NAMES, stems - RESERVED_MODULE_NAMES


def test_every_name_of_ge_es_is_reserved_or_private() -> None:
    # A fresh process: only what ``import ge.es`` itself defines, without
    # generated modules or plugins other tests import.
    script = "import ge.es, json; print(json.dumps(sorted(set(dir(ge.es)) - set(ge.es.list_plugins()))))"
    names = json.loads(
        subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True
        ).stdout
    )
    public = {n for n in names if not n.startswith("_")}
    assert public <= RESERVED_MODULE_NAMES, public - RESERVED_MODULE_NAMES
    for name in names:
        assert module_name_refusal(name) is not None, name


def test_reserved_and_private_names_are_refused_with_a_reason() -> None:
    for name in (
        "_calls",
        "_mine",
        "control_dependency_scope",
        "GraphBuilder",
        "tensor_holder",
    ):
        reason = module_name_refusal(name)
        assert reason is not None and f"'{name}'" in reason
    for name in ("custom", "nn_ops", "Custom2"):
        assert module_name_refusal(name) is None


def test_plugins_named_like_ge_es_are_refused(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _write_dist(
        site,
        {
            "_calls": "es_plugin_pkg_t",
            "_private": "es_plugin_pkg_t",
            "control_dependency_scope": "es_plugin_pkg_t",
            "tensor_like": "es_plugin_pkg_t",
            "math": "es_plugin_pkg_t",
            "mod": "es_plugin_pkg_t",
        },
    )
    script = textwrap.dedent("""
        import json, sys
        import ge.es
        import ge.es._calls
        import ge.es.math
        print(json.dumps({
            "plugins": ge.es.list_plugins(),
            "calls": ge.es._calls.__name__,
            "scope": callable(ge.es.control_dependency_scope),
            "private": hasattr(ge.es, "_private"),
            "math": ge.es.math.__name__,
        }))
        """)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(site)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report == {
        "plugins": ["mod"],
        "calls": "ge.es._calls",
        "scope": True,
        "private": False,
        "math": "ge.es.math",
    }
    errors = [line for line in result.stderr.splitlines() if line.startswith("[ERROR]")]
    assert len(errors) == 5, result.stderr
    for line in errors:
        assert "(from the distribution es-plugin-dist-t)" in line
        assert "rename the entry point" in line and line.endswith("skipped")


def test_the_built_in_module_is_refused_to_libraries_only() -> None:
    # This repository's specs declare ge.es.math; nothing brought in may.
    assert BUILTIN_MODULE_NAMES == {"math"}
    assert module_name_refusal("math") is None
    reason = library_module_refusal("math")
    assert reason is not None and "built-in op library (ge.es.math)" in reason
    assert library_module_refusal("_calls") == module_name_refusal("_calls")
    assert library_module_refusal("teamops") is None
