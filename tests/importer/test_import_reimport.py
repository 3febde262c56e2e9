"""Importing again into specs the team has edited (issue 22): the import
record (Note [Import record]) and the three-way merge (Note [Three-way
re-import]). Edits the header does not touch are kept, the header's changes
are applied around them, a field both changed is a located I209 with the
file left as it is, a deleted spec stays deleted unless
``--restore-deleted``, and a record that cannot be trusted is I210 with
nothing written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gen_ops.importer.reimport import RECORD, merge, read_record, record_text

HEADER = """\
namespace ge {{
/** @brief Rectified linear unit. */
REG_OP(Relu)
    .INPUT(x, TensorType({{{x}}}))
    .OUTPUT(y, TensorType({{DT_FLOAT}}))
    .ATTR(alpha, Float, {alpha})
    .OP_END_FACTORY_REG(Relu)

REG_OP(Sigmoid)
    .INPUT(x, TensorType({{DT_FLOAT}}))
    .OUTPUT(y, TensorType({{DT_FLOAT}}))
    .OP_END_FACTORY_REG(Sigmoid)
}}  // namespace ge
"""


def header(work: Path, x: str = "DT_FLOAT", alpha: str = "0.5") -> None:
    (work / "ops.h").write_text(HEADER.format(x=x, alpha=alpha), encoding="utf-8")


def gen_ops(
    work: Path, *args: str, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    """``gen-ops import ops.h --out specs ARGS``, in this process: (status,
    what it printed)."""
    from gen_ops.cli import main

    status = main(["import", "ops.h", "--out", "specs", "--jobs", "1", *args])
    captured = capsys.readouterr()
    return status, captured.err + captured.out


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink() and p.name != ".gen-ops.lock"
    }


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GEN_OPS_FAULT", raising=False)
    header(tmp_path)
    return tmp_path


@pytest.fixture
def imported(work: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """``work`` after a first import."""
    status, printed = gen_ops(work, capsys=capsys)
    assert status == 0, printed
    return work


RELU = "specs/custom/relu.yaml"
SIGMOID = "specs/custom/sigmoid.yaml"


def edit(work: Path, path: str, old: str, new: str) -> str:
    text = (work / path).read_text(encoding="utf-8")
    assert old in text, text
    text = text.replace(old, new, 1)
    (work / path).write_text(text, encoding="utf-8")
    return text


def recorded(work: Path) -> dict[str, str]:
    return dict(read_record(work / "specs").specs)


# -- the record ------------------------------------------------------------------


def test_the_record_holds_what_the_import_wrote(imported: Path) -> None:
    specs = recorded(imported)
    assert sorted(specs) == ["custom/relu.yaml", "custom/sigmoid.yaml"]
    for path, text in specs.items():
        assert (imported / "specs" / path).read_text(encoding="utf-8") == text
    data = json.loads((imported / "specs" / RECORD).read_text(encoding="utf-8"))
    assert data["format"] == 1


def test_an_identical_import_writes_nothing(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(imported / "specs")
    status, printed = gen_ops(imported, capsys=capsys)
    assert status == 0
    assert "0 file(s) written, 2 unchanged" in printed
    assert snapshot(imported / "specs") == before


def test_record_and_specs_are_one_transaction(
    work: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two specs and the record are staged; a failure staging the record
    # (the third) leaves neither spec.
    monkeypatch.setenv("GEN_OPS_FAULT", "stage:3:ENOSPC")
    status, printed = gen_ops(work, capsys=capsys)
    assert status == 3, printed
    assert not (work / "specs").exists()


# -- the team's edits ----------------------------------------------------------------


def test_an_edited_doc_is_kept(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = edit(
        imported, RELU, "Rectified linear unit.", "Rectified linear unit.\n\n  Ours."
    )
    status, printed = gen_ops(imported, capsys=capsys)
    assert status == 0, printed
    assert "0 file(s) written, 2 unchanged" in printed
    assert (imported / RELU).read_text(encoding="utf-8") == text
    # the header changes something else: its change lands, the doc stays
    header(imported, alpha="0.25")
    status, printed = gen_ops(imported, capsys=capsys)
    assert status == 0, printed
    assert "1 file(s) written (1 merged with your edits), 1 unchanged" in printed
    merged = (imported / RELU).read_text(encoding="utf-8")
    assert merged == text.replace("default: 0.5", "default: 0.25")


def test_a_header_dtype_change_lands_beside_the_teams_edits(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The team documents x, adds an impl section and an example, and
    # writes its own comment; the header adds float16 to x.
    text = edit(
        imported,
        RELU,
        "  - {name: x, dtype: float32}",
        "  # the team's comment\n  - {name: x, dtype: float32, doc: The team's doc.}",
    )
    text += "impl:\n  capabilities: [execute]\nexamples:\n  - relu(x)\n"
    (imported / RELU).write_text(text, encoding="utf-8")
    header(imported, x="DT_FLOAT, DT_FLOAT16")
    status, printed = gen_ops(imported, capsys=capsys)
    assert status == 0, printed
    merged = (imported / RELU).read_text(encoding="utf-8")
    assert merged == text.replace(
        "{name: x, dtype: float32, doc:", "{name: x, dtype: [float32, float16], doc:"
    )
    # the record now holds the new import: importing again changes nothing
    assert "dtype: [float32, float16]}" in recorded(imported)["custom/relu.yaml"]
    status, printed = gen_ops(imported, capsys=capsys)
    assert (status, "0 file(s) written" in printed) == (0, True), printed


def test_block_entries_keep_their_lines(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = edit(
        imported,
        RELU,
        "  - {name: x, dtype: float32}\n",
        "  - name: x\n    dtype: float32\n    doc: >-\n      Written over\n"
        "      two lines.\n",
    )
    header(imported, x="DT_INT8")
    status, printed = gen_ops(imported, capsys=capsys)
    assert status == 0, printed
    assert (imported / RELU).read_text(encoding="utf-8") == text.replace(
        "    dtype: float32\n", "    dtype: int8\n"
    )


def test_entries_the_header_adds_and_removes(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = edit(imported, RELU, "Rectified linear unit.", "Ours.")
    (imported / "ops.h").write_text(
        HEADER.format(x="DT_FLOAT", alpha="0.5")
        .replace(".ATTR(alpha, Float, 0.5)", ".ATTR(beta, Int, 2)")
        .replace(
            ".OUTPUT(y, TensorType({DT_FLOAT}))\n    .ATTR",
            ".OUTPUT(y, "
            "TensorType({DT_FLOAT}))\n    .OUTPUT(z, TensorType({DT_INT32}))\n"
            "    .ATTR",
            1,
        ),
        encoding="utf-8",
    )
    status, printed = gen_ops(imported, capsys=capsys)
    assert status == 0, printed
    merged = (imported / RELU).read_text(encoding="utf-8")
    assert "doc: |\n  Ours.\n" in merged
    assert "  - {name: y, dtype: float32}\n  - {name: z, dtype: int32}\n" in merged
    assert "alpha" not in merged and "  - {name: beta, type: int, default: 2}" in merged
    assert (
        merged.replace("  - {name: z, dtype: int32}\n", "").replace(
            "{name: beta, type: int, default: 2}",
            "{name: alpha, type: float, default: 0.5}",
        )
        == text
    )


# -- conflicts -----------------------------------------------------------------------


def test_a_conflict_is_reported_and_nothing_is_lost(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ours = edit(imported, RELU, "{name: x, dtype: float32}", "{name: x, dtype: int8}")
    ours = edit(imported, RELU, "Rectified linear unit.", "Ours.")
    base = recorded(imported)["custom/relu.yaml"]
    edit(
        imported, "ops.h", "DT_FLOAT}))\n    .OUTPUT(y", "DT_FLOAT16}))\n    .OUTPUT(y"
    )
    edit(
        imported,
        "ops.h",
        "REG_OP(Sigmoid)\n    .INPUT(x, TensorType({DT_FLOAT}",
        "REG_OP(Sigmoid)\n    .INPUT(x, TensorType({DT_INT32}",
    )
    status, printed = gen_ops(imported, capsys=capsys)
    assert status == 2
    assert (
        f"{RELU}:8:15: error[I209]: Relu: inputs[x].dtype: changed both in the file "
        "(float32 to int8) and in the header at ops.h:3:8 (float32 to float16) since the "
        "last import; the file is left as it is"
    ) in printed
    assert "hint: to take the header's, write float16 as inputs[x].dtype" in printed
    assert "1 not imported" in printed
    assert (imported / RELU).read_text(encoding="utf-8") == ours  # untouched
    assert recorded(imported)["custom/relu.yaml"] == base  # still the base
    # the other op is written
    assert "dtype: int32" in (imported / SIGMOID).read_text(encoding="utf-8")
    # again: the same conflict, until the file says what it should
    status, printed = gen_ops(imported, capsys=capsys)
    assert status == 2 and "error[I209]" in printed
    edit(imported, RELU, "{name: x, dtype: int8}", "{name: x, dtype: float16}")
    status, printed = gen_ops(imported, capsys=capsys)
    assert status == 0, printed
    assert "doc: |\n  Ours.\n" in (imported / RELU).read_text(encoding="utf-8")


def test_overwrite_takes_the_whole_import(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit(imported, RELU, "{name: x, dtype: float32}", "{name: x, dtype: int8}")
    header(imported, x="DT_FLOAT16")
    status, printed = gen_ops(imported, "--overwrite", capsys=capsys)
    assert status == 0, printed
    assert (imported / RELU).read_text(encoding="utf-8") == recorded(imported)[
        "custom/relu.yaml"
    ]


def test_a_file_that_is_no_longer_yaml_is_left_alone(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ours = edit(imported, RELU, "inputs:", "inputs: [")
    header(imported, alpha="2.5")
    status, printed = gen_ops(imported, capsys=capsys)
    assert status == 2
    assert f"{RELU}:8:3: error[I209]: Relu: the file was edited" in printed
    assert "the file cannot be read as a spec (E102 at line" in printed
    assert (imported / RELU).read_text(encoding="utf-8") == ours


def test_merge_refuses_a_reordering_on_both_sides() -> None:
    base = "op: A\ninputs:\n  - {name: a}\n  - {name: b}\n  - {name: c}\n"
    ours = "op: A\ninputs:\n  - {name: b}\n  - {name: a}\n  - {name: c}\n"
    theirs = "op: A\ninputs:\n  - {name: a}\n  - {name: c}\n  - {name: b}\n"
    outcome = merge(base, ours, theirs, "a.yaml")
    assert outcome.text is None
    assert [c.name for c, _, _ in outcome.conflicts] == ["inputs"]
    # one side's reordering alone is taken
    same = merge(base, ours, base.replace("{name: c}", "{name: c, doc: C}"), "a.yaml")
    assert same.text == ours.replace("{name: c}", "{name: c, doc: C}")


def test_merge_tells_true_from_one_and_nan_from_nan() -> None:
    base = "op: A\nattrs:\n  - {name: f, type: bool, default: true}\n  - {name: g, type: float, default: .nan}\n"
    ours = base.replace("default: true", "default: 1") + "doc: Ours.\n"
    theirs = base.replace("default: .nan", "default: .NaN")
    outcome = merge(base, ours, theirs, "a.yaml")
    # .NaN is .nan: the header did not change; the team's file stays
    assert outcome.text == ours


# -- deleted specs ------------------------------------------------------------------


def test_a_deleted_spec_is_not_brought_back(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (imported / SIGMOID).unlink()
    header(imported, alpha="0.75")
    status, printed = gen_ops(imported, capsys=capsys)
    assert status == 0, printed
    assert not (imported / SIGMOID).exists()
    assert (
        "1 op(s) imported; 1 file(s) written, 0 unchanged, 1 deleted since the last "
        "import (not restored: --restore-deleted)"
    ) in printed
    assert "custom/sigmoid.yaml" in recorded(imported)  # remembered as deleted
    status, printed = gen_ops(imported, capsys=capsys)
    assert not (imported / SIGMOID).exists()
    status, printed = gen_ops(imported, "--restore-deleted", capsys=capsys)
    assert status == 0, printed
    assert (imported / SIGMOID).read_text(encoding="utf-8") == recorded(imported)[
        "custom/sigmoid.yaml"
    ]


# -- specs from before the record -------------------------------------------------------


def test_specs_without_a_record_are_i207_until_adopted(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (imported / "specs" / RECORD).unlink()
    ours = edit(imported, RELU, "Rectified linear unit.", "Ours.")
    status, printed = gen_ops(imported, capsys=capsys)
    assert status == 2
    assert (
        "ops.h:3:8: error[I207]: Relu: specs/custom/relu.yaml exists and differs "
        "from the import, and there is no import record (.gen-ops-import.json; "
        "specs imported before gen-ops kept one)"
    ) in printed
    assert "hint: pass --adopt to keep the file" in printed
    assert (imported / RELU).read_text(encoding="utf-8") == ours
    status, printed = gen_ops(imported, "--adopt", capsys=capsys)
    assert status == 0, printed
    assert (imported / RELU).read_text(encoding="utf-8") == ours
    assert sorted(recorded(imported)) == ["custom/relu.yaml", "custom/sigmoid.yaml"]
    header(imported, x="DT_FLOAT16")  # from now on, imports merge
    status, printed = gen_ops(imported, capsys=capsys)
    assert status == 0, printed
    assert (imported / RELU).read_text(encoding="utf-8") == ours.replace(
        "{name: x, dtype: float32}", "{name: x, dtype: float16}"
    )


# -- a record that cannot be trusted ------------------------------------------------------


def _refused(work: Path, capsys: pytest.CaptureFixture[str], why: str) -> None:
    before = snapshot(work / "specs")
    header(work, x="DT_FLOAT16")
    status, printed = gen_ops(work, capsys=capsys)
    assert status == 2, printed
    assert f"specs/{RECORD}:" in printed and "error[I210]" in printed, printed
    assert why in printed, printed
    assert "Traceback" not in printed
    assert snapshot(work / "specs") == before  # nothing written


def test_a_record_edited_by_hand_is_refused(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = imported / "specs" / RECORD
    path.write_text(
        path.read_text(encoding="utf-8").replace("Rectified", "Rectifier"),
        encoding="utf-8",
    )
    _refused(imported, capsys, "its text does not have its sha256")


def test_a_symlinked_record_is_refused(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = imported / "specs" / RECORD
    os.replace(path, imported / "elsewhere.json")
    os.symlink(imported / "elsewhere.json", path)
    _refused(imported, capsys, "it is a symbolic link")
    assert path.is_symlink()


def test_a_huge_record_is_refused_before_it_is_read(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with open(imported / "specs" / RECORD, "ab") as handle:
        handle.truncate(65 * 1024 * 1024)  # sparse: nothing is read
    _refused(imported, capsys, "it is larger than gen-ops reads here")


@pytest.mark.parametrize(
    "planted, why",
    [
        (
            {
                "format": 1,
                "specs": {"../../etc/x.yaml": {"sha256": "0" * 64, "text": ""}},
            },
            "is not the path of a spec",
        ),
        ({"format": 2, "specs": {}}, "not an import record of format 1"),
        (
            {"format": 1, "specs": {"custom/relu.yaml": "op: Relu\n"}},
            "must be an object",
        ),
        (
            {"format": 1, "specs": {"custom/relu.yaml": {"text": 1}}},
            "must be an object",
        ),
        ({"format": 10**50, "specs": {}}, "an integer of 51 digits"),
    ],
)
def test_a_planted_record_is_refused(
    imported: Path, capsys: pytest.CaptureFixture[str], planted: object, why: str
) -> None:
    (imported / "specs" / RECORD).write_text(json.dumps(planted), encoding="utf-8")
    _refused(imported, capsys, why)


def test_a_fifo_record_is_refused_without_hanging(imported: Path) -> None:
    path = imported / "specs" / RECORD
    path.unlink()
    os.mkfifo(path)
    run = subprocess.run(
        [sys.executable, "-m", "gen_ops", "import", "ops.h", "--out", "specs"],
        cwd=imported,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 2, run.stderr
    assert (
        f"specs/{RECORD}:1:1: error[I210]: the import record cannot be used: it is a FIFO"
        in run.stderr
    )


def test_record_text_is_deterministic() -> None:
    one = record_text({"b/b.yaml": "op: B\n", "a/a.yaml": "op: A\n"})
    two = record_text({"a/a.yaml": "op: A\n", "b/b.yaml": "op: B\n"})
    assert one == two and one.endswith("\n")


# -- concurrent imports -------------------------------------------------------------------


DECL = """\
REG_OP(Imp{h}x{n})
    .INPUT(x, TensorType({{DT_FLOAT}}))
    .OUTPUT(y, TensorType({{DT_FLOAT}}))
    .OP_END_FACTORY_REG(Imp{h}x{n})
"""


def test_concurrent_imports_all_land_in_the_record(tmp_path: Path) -> None:
    """Each run reads the record, merges its entries and writes it under the
    tree lock (Note [Tree lock]): no run's entries are lost."""
    names = []
    for h in range(4):
        body = "".join(DECL.format(h=h, n=n) for n in range(3))
        (tmp_path / f"h{h}.h").write_text(f"namespace ge {{\n{body}}}\n")
        names.append(f"h{h}.h")
    env = {k: v for k, v in os.environ.items() if k != "GEN_OPS_FAULT"}
    runs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gen_ops",
                "import",
                h,
                "--out",
                "out",
                "--jobs",
                "1",
            ],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for h in names
    ]
    for run in runs:
        _, err = run.communicate(timeout=240)
        assert run.returncode == 0, err
    specs = read_record(tmp_path / "out").specs
    assert len(specs) == 12
    for path, text in specs.items():
        assert (tmp_path / "out" / path).read_text(encoding="utf-8") == text


# -- the merge on its own ------------------------------------------------------------

TYPED = """\
op: A
dtypes:
  T1: [float32, int8]
  T2: float32
inputs:
  - {name: x, dtype: T1}
  - {name: y, dtype: T2}
attrs:
  - {name: a, type: int, default: 1}
"""


def test_merge_dtypes_key_by_key() -> None:
    ours = TYPED.replace("T1: [float32, int8]", "T1: [float32, int8, int16]  # ours")
    theirs = TYPED.replace("T2: float32", "T2: [float32, float16]")
    assert merge(TYPED, ours, theirs, "a.yaml").text == ours.replace(
        "T2: float32", "T2: [float32, float16]"
    )


def test_merge_a_field_the_header_adds_to_an_entry_the_team_edited() -> None:
    theirs = TYPED.replace(
        "{name: y, dtype: T2}", "{name: y, dtype: T2, optional: true}"
    )
    block = TYPED.replace(
        "  - {name: y, dtype: T2}\n", "  - name: y\n    dtype: T2\n    doc: Ours.\n"
    )
    assert merge(TYPED, block, theirs, "a.yaml").text == block.replace(
        "    dtype: T2\n", "    dtype: T2\n    optional: true\n"
    )
    flow = TYPED.replace("{name: y, dtype: T2}", "{name: y, dtype: T2, doc: Ours}")
    assert merge(TYPED, flow, theirs, "a.yaml").text == flow.replace(
        "dtype: T2, doc", "dtype: T2, optional: true, doc"
    )


def test_merge_re_indents_the_headers_entries_to_the_teams() -> None:
    ours = TYPED.replace(
        "\n  - {name: x, dtype: T1}", "\n- {name: x, dtype: T1, doc: X}"
    )
    ours = ours.replace("\n  - {name: y", "\n- {name: y")
    added = "  - name: z\n    dtype: T2\n    doc: A long doc\n      over two lines.\n"
    theirs = TYPED.replace(
        "  - {name: y, dtype: T2}\n", "  - {name: y, dtype: T2}\n" + added
    )
    merged = merge(TYPED, ours, theirs, "a.yaml").text
    assert merged == ours.replace(
        "- {name: y, dtype: T2}\n",
        "- {name: y, dtype: T2}\n- name: z\n  dtype: T2\n  doc: A long doc\n"
        "    over two lines.\n",
    )


def test_merge_an_entry_the_header_removes_and_the_team_edited_conflicts() -> None:
    from gen_ops.importer.reimport import change, take

    ours = TYPED.replace("default: 1}", "default: 1, doc: Ours}")
    theirs = TYPED.replace("attrs:\n  - {name: a, type: int, default: 1}\n", "")
    outcome = merge(TYPED, ours, theirs, "a.yaml")
    assert outcome.text is None
    [(conflict, line, col)] = outcome.conflicts
    assert (conflict.name, line, col) == ("attrs[a]", 9, 5)
    assert change(conflict.base, conflict.theirs).endswith(" removed")
    assert take(conflict) == "remove attrs[a] from the file"
    # an attr only the team has stays when the header drops the others
    kept = TYPED.replace(
        "default: 1}\n", "default: 1}\n  - {name: b, type: int, derive: len(x)}\n"
    )
    assert merge(TYPED, kept, theirs, "a.yaml").text == TYPED.replace(
        "  - {name: a, type: int, default: 1}\n",
        "  - {name: b, type: int, derive: len(x)}\n",
    )


def test_merge_refuses_what_it_cannot_edit() -> None:
    theirs = TYPED.replace("T2: float32", "T2: float16")
    import yaml

    ours = json.dumps({**yaml.safe_load(TYPED), "doc": "Ours"}) + "\n"  # flow style
    outcome = merge(TYPED, ours, theirs, "a.yaml")
    assert outcome.text is None and outcome.problem is not None
    assert "top-level mapping is in flow style" in outcome.problem[0]
