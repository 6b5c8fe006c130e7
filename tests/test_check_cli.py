"""`escoba check` and `escoba show`: output, formats and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from escoba.cli import main as cli
from escoba.rules import bundled_ids, load_resolved, registry
from escoba.rules.yamlload import load_text


@pytest.fixture(autouse=True)
def _only_our_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    # The other subcommands are other people's modules; these tests need only check and show.
    monkeypatch.setattr(cli, "COMMANDS", ("check", "show"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_check_all_bundled(capsys: pytest.CaptureFixture[str]) -> None:
    """With no arguments every bundled ruleset is checked, one 'ok' line each, exit 0."""
    code, out, _ = run(capsys, "check")
    lines = out.splitlines()
    assert code == 0
    assert [line.rsplit(" ", 1)[1] for line in lines] == [f"({i})" for i in bundled_ids()]
    assert all(line.startswith("ok  ") for line in lines)


def test_check_by_id_shows_the_file(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A bundled id is shown as its file, relative to the working folder."""
    monkeypatch.chdir(registry.spec_dir().parent)
    assert run(capsys, "check", "base") == (0, "ok  spec/base.yaml (base)\n", "")


def test_check_invalid_file(capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An invalid file prints its located problems and exits 1; valid ones still print 'ok'."""
    monkeypatch.chdir(tmp_path)
    Path("mine.yaml").write_text("dsl: 1\nextends: base\ncapture:\n  target: fifteen\n")
    code, out, _ = run(capsys, "check", "mine.yaml", "base")
    assert code == 1
    assert out.splitlines() == ["mine.yaml:4:11: $.capture.target: expected an integer, got 'fifteen'", "ok  spec/base.yaml (base)"]


def test_check_expression_error_has_a_caret(capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An expression error prints the expression and a caret under the bad column."""
    monkeypatch.chdir(tmp_path)
    Path("m.yaml").write_text("dsl: 1\nextends: base\nscoring:\n  categories:\n    - {id: cards, measure: 'count(cards, oros)'}\n")
    code, out, _ = run(capsys, "check", "m.yaml")
    assert code == 1
    assert out.splitlines() == [
        "m.yaml:5:28: $.scoring.categories[1].measure: count() takes 1 argument, got 2",
        "    count(cards, oros)",
        "                 ^",
    ]


def test_check_unknown_id_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown id exits 2 with a did-you-mean, before checking anything."""
    code, out, err = run(capsys, "check", "base", "dx")
    assert (code, out) == (2, "")
    assert err.startswith("escoba check: unknown ruleset 'dx' (did you mean ")
    assert "known rulesets: base, " in err


def test_check_missing_file_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """A path that does not exist exits 2."""
    assert run(capsys, "check", "spec/house/nope.yaml") == (2, "", "escoba check: no such file: spec/house/nope.yaml\n")


def test_check_json(capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--format json reports each ruleset with its problems as fields."""
    monkeypatch.chdir(tmp_path)
    Path("m.yaml").write_text("dsl: 1\nextends: base\nleftovers:\n  escoba: no\n")
    code, out, _ = run(capsys, "check", "--format", "json", "m.yaml", "base")
    report = json.loads(out)
    assert code == 1 and report["valid"] is False
    mine, base = report["rulesets"]
    assert (base["valid"], base["id"], base["problems"]) == (True, "base", [])
    assert mine["problems"][0] | {"message": ""} == {
        "file": "m.yaml", "line": 4, "column": 11, "path": "$.leftovers.escoba", "message": "",
        "text": "m.yaml:4:11: $.leftovers.escoba: 'no' is read as a boolean by YAML 1.1: write true or false, or quote it (\"no\") for the text",
    }


@pytest.mark.parametrize("ruleset", bundled_ids())
def test_show_yaml_round_trips(capsys: pytest.CaptureFixture[str], ruleset: str) -> None:
    """`escoba show` prints YAML that loads back to the resolved document, unicode kept."""
    code, out, _ = run(capsys, "show", ruleset)
    assert code == 0
    assert load_text(out).data == load_resolved(ruleset).doc
    assert "♦" in out and "\\u" not in out


def test_show_json(capsys: pytest.CaptureFixture[str]) -> None:
    """`escoba show --json` prints the resolved document as JSON, keys in document order."""
    code, out, _ = run(capsys, "show", "--json", "da")
    doc = json.loads(out)
    assert code == 0 and doc == load_resolved("da").doc
    assert list(doc)[:4] == ["dsl", "id", "kind", "resolved_from"]


def test_show_invalid_and_unknown(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`escoba show` of an invalid file exits 1 with its problems; of an unknown id, exits 2."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("dsl: 1\nextends: base\nturn:\n  direction: up\n")
    code, _, err = run(capsys, "show", str(bad))
    assert (code, err) == (1, f"{bad}:4:14: $.turn.direction: 'up' is not one of the directions: counterclockwise, clockwise\n")
    code, _, err = run(capsys, "show", "nope")
    assert code == 2 and err.startswith("escoba show: unknown ruleset 'nope'")


def test_help_has_examples(capsys: pytest.CaptureFixture[str]) -> None:
    """Both commands' --help end with real examples."""
    for command in ("check", "show"):
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        assert "examples:\n  escoba " + command in capsys.readouterr().out
