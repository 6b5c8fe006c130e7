"""`escoba check` and `escoba show`: output, formats and exit codes."""

from __future__ import annotations

import contextlib
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


# --------------------------------------------------------------------------- issue 16's papercuts


def test_check_reads_standard_input(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`escoba check -` checks the ruleset on standard input, named <stdin>, extends looked up from the working folder."""
    import io

    monkeypatch.chdir(tmp_path)
    Path("parent.yaml").write_text("dsl: 1\nextends: da\n")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"dsl: 1\nid: mine\nextends: parent.yaml\n")))
    assert run(capsys, "check", "-") == (0, "ok  <stdin> (mine)\n", "")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"dsl: 1\nextends: da\ncapture: {target: x}\n")))
    assert run(capsys, "check", "-") == (1, "<stdin>:3:19: $.capture.target: expected an integer, got 'x'\n", "")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"\0")))
    assert run(capsys, "check", "-")[1] == "<stdin>:1:1: $: binary data (a NUL byte), not a YAML text file\n"
    assert run(capsys, "check", "-", "-") == (2, "", "escoba check: '-' (standard input) may be given once\n")


def test_check_json_gives_the_declared_id_of_an_invalid_file(capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`check --json` reports the id an invalid file declares, not null; null only when none can be read."""
    monkeypatch.chdir(tmp_path)
    Path("bad.yaml").write_text("dsl: 1\nid: mine\nextends: da\ncapture: {target: x}\n")
    Path("worse.yaml").write_text("dsl: 1\nid: [x\n")
    code, out, _ = run(capsys, "check", "--json", "bad.yaml", "worse.yaml")
    assert code == 1
    assert [(r["id"], r["valid"]) for r in json.loads(out)["rulesets"]] == [("mine", False), (None, False)]


def test_check_empty_name_is_not_a_directory(capsys: pytest.CaptureFixture[str]) -> None:
    """`escoba check ''` says an empty name names nothing (exit 2), not that it is a directory."""
    assert run(capsys, "check", "") == (2, "", "escoba check: an empty name is neither a ruleset id nor a file\n")


def test_a_folder_named_like_a_bundled_ruleset_does_not_hide_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """In a working directory holding a folder `fr`, `escoba check fr` checks the bundled `fr`
    (a folder is never a ruleset); a file named `fr` would still be read as the user's file."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fr").mkdir()
    code, out, _ = run(capsys, "check", "fr")
    assert code == 0 and out.startswith("ok  ") and "(fr)" in out


@pytest.mark.parametrize(
    ("name", "hint"),
    [("nope", ""), ("dx", " (did you mean 'da' or 'de'?)"), ("da-velo", " (did you mean 'da-velo2'?)"),
     ("escoba-dobel", " (did you mean 'escoba-doble'?)"), ("frr", " (did you mean 'fr'?)"), ("briscola", ""), ("scopaa", " (did you mean 'scopa'?)")],
)  # fmt: skip
def test_unknown_ruleset_suggests_only_close_names(capsys: pytest.CaptureFixture[str], name: str, hint: str) -> None:
    """Did-you-mean names only ids a typo or two away ('nope' gets no 'de-open')."""
    code, _, err = run(capsys, "check", name)
    assert code == 2
    assert err.startswith(f"escoba check: unknown ruleset '{name}'{hint}; known rulesets: base, da,")


def test_extends_messages_do_not_repeat_the_key(capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bad `extends` is reported as `$.extends: unknown ruleset …`, not `$.extends: extends: …`."""
    monkeypatch.chdir(tmp_path)
    Path("m.yaml").write_text("dsl: 1\nextends: nope\n")
    code, out, _ = run(capsys, "check", "m.yaml")
    assert code == 1
    assert out.startswith("m.yaml:2:10: $.extends: unknown ruleset 'nope'; known rulesets: base, da,")


def test_deal_error_points_at_the_house_rules_own_key(capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`table_size: 0` in a house rule is reported at that line of the user's file, not at spec/base.yaml's hand_size."""
    monkeypatch.chdir(tmp_path)
    Path("t.yaml").write_text("dsl: 1\nextends: da\ndeal:\n  table_size: 0\n")
    code, out, _ = run(capsys, "check", "t.yaml")
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 3 and all(line.startswith("t.yaml:4:15: $.deal.table_size: with ") for line in lines)
    assert "change hand_size or table_size, or set short_stock: one_at_a_time" in lines[0]


def test_check_outside_the_checkout_names_bundled_files_as_the_docs_do(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run from another folder, a bundled file is named by its place among the bundled rulesets (`spec/…`), never by the absolute path of the checkout; inside the checkout by its real relative path."""
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "check")
    assert code == 0
    shown = [line.split("  ", 1)[1].rsplit(" (", 1)[0] for line in out.splitlines()]
    assert len(shown) == len(bundled_ids())
    assert shown == [registry.bundled()[i].relative_to(registry.data_root()).as_posix() for i in bundled_ids()]
    assert all(name.startswith("spec/") for name in shown)
    inside = registry.spec_dir() / "house"
    monkeypatch.chdir(inside)
    assert run(capsys, "check", "base") == (0, "ok  ../base.yaml (base)\n", "")


def test_an_installed_bundled_file_is_never_shown_by_its_install_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With escoba installed in a virtual environment below the working folder, a bundled file is `spec/da.yaml`, not `venv/lib/…/site-packages/escoba/_data/spec/da.yaml`; from inside the package's data folder, its real relative path."""
    data = tmp_path / "venv" / "lib" / "python3.11" / "site-packages" / "escoba" / "_data"
    (data / "spec").mkdir(parents=True)
    da = data / "spec" / "da.yaml"
    da.write_text("dsl: 1\n", encoding="utf-8")
    monkeypatch.setattr(registry, "data_root", lambda: data)
    monkeypatch.chdir(tmp_path)
    assert registry.display_name(da) == "spec/da.yaml"
    monkeypatch.chdir(data / "spec")
    assert registry.display_name(da) == "da.yaml"


# --------------------------------------------------------------------------- every problem in one run


def problems_of(capsys: pytest.CaptureFixture[str], folder: Path, text: str, name: str = "m.yaml") -> list[str]:
    """The lines `escoba check NAME` prints for a file holding `text`, run from `folder` (an invalid file: exit 1)."""
    (folder / name).write_text(text, encoding="utf-8")
    with contextlib.chdir(folder):
        code, out, _ = run(capsys, "check", name)
    assert code == 1
    return out.splitlines()

ONE_OF_EACH = """\
dsl: 1
id: one-of-each
kind: house
extends: da
capture:
  escoba_on_last_play: no
scoring:
  categories:
    - id: velo
      points: two
    - id: rey-de-oros
      award: {policy: holder, card: 11 oros}
    - id: sevens
      measure: count(rank(cards, 8)) + count(suit(cards, coins))
      award: {policy: most}
"""


def test_check_reports_a_mistake_of_each_kind_in_one_run(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A YAML 1.1 boolean, a schema error, a semantic error and an expression with two problems: one `escoba check` reports them all, each located."""
    assert problems_of(capsys, tmp_path, ONE_OF_EACH, "one-of-each.yaml") == [
        'one-of-each.yaml:6:24: $.capture.escoba_on_last_play: \'no\' is read as a boolean by YAML 1.1: write true or false, or quote it ("no") for the text',
        "one-of-each.yaml:10:15: $.scoring.categories[3].points: expected an integer, got 'two'",
        "one-of-each.yaml:12:37: $.scoring.categories[5].award.card: no card '11 oros' in the deck",
        "one-of-each.yaml:14:16: $.scoring.categories[6].measure: unknown rank '8'",
        "    count(rank(cards, 8)) + count(suit(cards, coins))",
        "                      ^",
        "one-of-each.yaml:14:16: $.scoring.categories[6].measure: unknown suit 'coins' (did you mean 'oros'?)",
        "    count(rank(cards, 8)) + count(suit(cards, coins))",
        "                                              ^",
    ]


def test_a_schema_error_beside_a_measure_does_not_hide_the_measures_problem(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A misspelt policy and an unfinished measure in the same category are both reported."""
    text = "dsl: 1\nextends: base\nscoring:\n  categories:\n    - id: sevens\n      measure: count(rank(cards, 7)\n      award: {policy: mayority}\n"
    assert problems_of(capsys, tmp_path, text) == [
        "m.yaml:6:16: $.scoring.categories[5].measure: expected ')' or ',' here",
        "    count(rank(cards, 7)",
        "                        ^",
        "m.yaml:7:23: $.scoring.categories[5].award.policy: 'mayority' is not one of the policies: most, threshold, holder, per_unit, bonus",
    ]


def test_an_unquoted_comma_in_a_flow_mapping_says_to_quote_the_measure(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`{measure: count(suit(cards, oros)) >= 3, …}` is one problem saying to quote the measure, not unknown keys; the measure as meant is then checked too."""
    text = (
        "dsl: 1\nextends: base\nscoring:\n  categories:\n"
        "    - {id: oros-3, measure: count(suit(cards, oros)) + count(rank(cards, A)) >= 3, award: {policy: bonus}}\n"
        "    - {id: x, measure: count(suit(cards, copa)), award: {policy: most}}\n"
    )
    assert problems_of(capsys, tmp_path, text) == [
        "m.yaml:5:29: $.scoring.categories[5].measure: an unquoted ',' inside {…} ended the value, and the rest ('oros)) + count(rank(cards') "
        'became a key: quote the measure, as in measure: "count(suit(cards, oros)) + count(rank(cards, A)) >= 3"',
        "m.yaml:6:24: $.scoring.categories[6].measure: an unquoted ',' inside {…} ended the value, and the rest ('copa))') became a key: "
        'quote the measure, as in measure: "count(suit(cards, copa))"',
        "m.yaml:6:24: $.scoring.categories[6].measure: unknown suit 'copa' (did you mean 'copas'?)",
        "    count(suit(cards, copa))",
        "                      ^",
    ]


def test_an_award_replaced_without_its_policy_says_so_and_not_that_a_measure_is_missing(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Replacing the velo's holder award without `policy` is reported as the missing policy alone (whether a measure is needed depends on it)."""
    text = "dsl: 1\nextends: base\nscoring:\n  categories:\n    - id: velo\n      award: {ties: all}\n"
    assert problems_of(capsys, tmp_path, text) == ["m.yaml:6:14: $.scoring.categories[3].award: missing required key 'policy'"]


def test_a_file_that_does_not_parse_stops_at_its_syntax_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Nothing is checked past a YAML syntax error: there is no document to check."""
    (line,) = problems_of(capsys, tmp_path, "dsl: 1\nextends: base\ncapture:\n  target: [15\nmatch: {target: fifteen}\n")
    assert "YAML syntax error" in line


def test_an_unknown_id_names_the_first_rulesets_and_counts_the_rest(capsys: pytest.CaptureFixture[str]) -> None:
    """However many rulesets are bundled, the message names the first 20 ids, says how many more there are, and is never cut short."""
    code, _, err = run(capsys, "check", "nope")
    ids = bundled_ids()
    assert code == 2 and len(ids) > 20
    assert err == f"escoba check: unknown ruleset 'nope'; known rulesets: {', '.join(ids[:20])}, and {len(ids) - 20} more (escoba list)\n"
    assert "characters)" not in err
