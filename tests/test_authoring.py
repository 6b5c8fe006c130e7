"""Authoring comforts: `escoba new` writes a skeleton that checks; the pre-commit hook runs `escoba check`."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from escoba.cli import main as cli
from escoba.data import schemas_dir
from escoba.rules import load_resolved

ROOT = Path(__file__).parents[1]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def uncommented(text: str) -> str:
    """The skeleton with every commented-out YAML line after the header made live."""
    head, body = text.split("\ntitle:", 1)
    lines = [re.sub(r"^# (?=[a-z_]+:$|  )", "", line) for line in body.splitlines()]
    return head + "\ntitle:" + "\n".join(lines) + "\n"


@pytest.mark.parametrize("parent", ["base", "da", "sv", "de", "fr", "ru", "escoba-doble"])
def test_new_writes_a_skeleton_that_checks(capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parent: str) -> None:
    """`escoba new NAME --extends ID` writes NAME.yaml, a house rule on ID that `escoba check` accepts."""
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "new", "mine", "--extends", parent)
    assert (code, out) == (0, f"wrote mine.yaml (a house rule extending {parent}); check it with: escoba check mine.yaml\n")
    text = Path("mine.yaml").read_text(encoding="utf-8")
    assert text.startswith("# yaml-language-server: $schema=")
    assert run(capsys, "check", "mine.yaml") == (0, "ok  mine.yaml (mine)\n", "")
    resolved = load_resolved("mine.yaml")
    assert resolved.doc["resolved_from"][-2:] == [parent, "mine"]
    assert resolved.kind == "house"


@pytest.mark.parametrize("parent", ["base", "da", "de", "fr"])
def test_new_skeletons_commented_values_are_the_parents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parent: str) -> None:
    """Uncommenting every suggestion gives a valid ruleset that plays as the parent (plus the sample category)."""
    monkeypatch.chdir(tmp_path)
    assert cli.main(["new", "mine", "--extends", parent]) == 0
    Path("live.yaml").write_text(uncommented(Path("mine.yaml").read_text(encoding="utf-8")).replace("id: mine", "id: live"))
    live, original = load_resolved("live.yaml").doc, load_resolved(parent).doc
    added = [c for c in live["scoring"]["categories"] if c["id"] == "my-bonus"]
    assert len(added) == 1 and added[0]["award"] == {"policy": "bonus"}
    for section in ("opening_table", "capture", "leftovers", "match"):
        assert {k: v for k, v in live[section].items() if k != "provenance"} == {
            k: v for k, v in original[section].items() if k != "provenance"
        }, section
    points = {c["id"]: c.get("points", 1) for c in original["scoring"]["categories"]}
    assert {c["id"]: c.get("points", 1) for c in live["scoring"]["categories"] if c["id"] != "my-bonus"} == points


def test_new_modeline_names_the_installed_schema(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The skeleton's first line points, from the new file's folder, at the schema `escoba schema` prints."""
    (tmp_path / "rules").mkdir()
    monkeypatch.chdir(tmp_path)
    assert cli.main(["new", "rules/casa.yaml", "--extends", "sv"]) == 0
    first = Path("rules/casa.yaml").read_text(encoding="utf-8").splitlines()[0]
    target = first.split("$schema=", 1)[1]
    assert (Path("rules") / target).resolve() == (schemas_dir() / "ruleset-file.schema.json").resolve()


def test_new_passes_check_jsonschema(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """check-jsonschema, given the schema the modeline names, accepts the skeleton."""
    monkeypatch.chdir(tmp_path)
    assert cli.main(["new", "mine", "--extends", "de"]) == 0
    schema = Path("mine.yaml").read_text(encoding="utf-8").splitlines()[0].split("$schema=", 1)[1]
    result = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--schemafile", schema, "mine.yaml"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_new_extending_a_file_writes_its_path_from_the_new_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`--extends FILE` is written relative to the new file's folder, so that the new file resolves
    (with --rules-path for a parent outside that folder, as the command's hint says)."""
    (tmp_path / "rules").mkdir()
    monkeypatch.chdir(tmp_path)
    assert cli.main(["new", "base-casa", "--extends", "da"]) == 0
    capsys.readouterr()
    assert cli.main(["new", "rules/hija.yaml", "--extends", "base-casa.yaml"]) == 0
    assert capsys.readouterr().out.endswith("check it with: escoba check --rules-path . rules/hija.yaml\n")
    assert "\nextends: ../base-casa.yaml\n" in Path("rules/hija.yaml").read_text(encoding="utf-8")
    # A parent outside the file's own folder is read only from a folder given with --rules-path.
    assert run(capsys, "check", "--rules-path", ".", "rules/hija.yaml") == (0, "ok  rules/hija.yaml (hija)\n", "")
    assert run(capsys, "check", "rules/hija.yaml")[0] == 1


def test_new_refuses_to_overwrite(capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An existing file is left as it was and the command exits 2 saying so."""
    monkeypatch.chdir(tmp_path)
    Path("mine.yaml").write_text("precious\n")
    assert run(capsys, "new", "mine", "--extends", "da") == (
        2, "", "escoba new: mine.yaml already exists; not overwritten (choose another name or delete it)\n"
    )  # fmt: skip
    assert Path("mine.yaml").read_text() == "precious\n"
    assert sorted(os.listdir()) == ["mine.yaml"]  # no temporary file left behind


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["new", "My_Rules", "--extends", "da"], "'My_Rules' is not a ruleset id: use lower-case letters, digits and '-', starting with a letter"),
        (["new", "nowhere/x.yaml", "--extends", "da"], "no such folder: nowhere"),
        (["new", "mine", "--extends", "nope"], "unknown ruleset 'nope'; known rulesets: base, da,"),
    ],
)
def test_new_usage_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str], message: str) -> None:
    """A bad name, a missing folder or an unknown parent is a one-line usage error (exit 2) and writes nothing."""
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, *argv)
    assert code == 2 and err.startswith(f"escoba new: {message}")
    assert os.listdir() == []


# --------------------------------------------------------------------------- pre-commit


def hook() -> dict:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [h["id"] for h in hooks] == ["escoba-check"]
    return hooks[0]


def test_pre_commit_hook_is_well_formed() -> None:
    """The hook names an id, a name, a python entry installed by this package, and YAML files."""
    spec = hook()
    assert spec["language"] == "python"
    assert shlex.split(spec["entry"])[0] == "escoba"
    assert "escoba" in __import__("tomllib").loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert spec["types"] == ["yaml"] and spec.get("pass_filenames", True)


def test_pre_commit_hook_entry_checks_the_staged_files(tmp_path: Path) -> None:
    """Run as pre-commit runs it (entry + args + file names, in the repository): exit 0 when valid, 1 with located lines when not."""
    spec = hook()
    escoba = Path(sys.executable).parent / "escoba"
    assert escoba.is_file(), "the escoba command is installed beside this Python"
    command = [str(escoba), *shlex.split(spec["entry"])[1:], *spec.get("args", [])]
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "good.yaml").write_text("dsl: 1\nextends: da\nmatch: {target: 31}\n")
    (tmp_path / "rules" / "bad.yaml").write_text("dsl: 1\nextends: da\nmatch: {target: many}\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    good = subprocess.run([*command, "rules/good.yaml"], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert (good.returncode, good.stdout, good.stderr) == (0, "ok  rules/good.yaml (good)\n", "")
    both = subprocess.run([*command, "rules/good.yaml", "rules/bad.yaml"], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert both.returncode == 1
    assert both.stdout.splitlines() == ["ok  rules/good.yaml (good)", "rules/bad.yaml:3:17: $.match.target: expected an integer, got 'many'"]
