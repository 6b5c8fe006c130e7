"""`escoba play` beyond the moves: --record, --format json, the lone-card wording, colour, the pause, q's score."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest

from escoba.cli import main as cli
from escoba.cli import play as play_cli
from escoba.transcript.case import load_case

ROOT = Path(__file__).parents[1]
ANSI = re.compile(r"\x1b\[[0-9;]*m")


class Terminal(io.StringIO):
    """A stream that says it is a terminal, as a person's stdin and stdout are."""

    def isatty(self) -> bool:
        return True


def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, stdin: str | io.StringIO, *argv: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", stdin if isinstance(stdin, io.StringIO) else io.StringIO(stdin))
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def first_total_row(out: str) -> list[int]:
    """The running totals printed in the first scoring table ('total (to 21)  …  a  b')."""
    line = next(line for line in out.splitlines() if line.startswith("total (to "))
    return [int(n) for n in line.split(")", 1)[1].split()]


# --------------------------------------------------------------------------- --record


def played_moves(events: list[dict]) -> list[tuple[int, str, list[str]]]:
    return [(e["seat"], e["card"], e["take"]) for e in events if e["event"] == "play"]


def test_record_writes_a_golden_case_that_the_loader_and_conformance_accept(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """--record FILE writes the whole match as a case: it validates, its moves are the game's, conformance runs it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine").mkdir()
    argv = ("play", "da", "--auto", "--seed", "4", "--target", "5")
    code, shown, _ = run(capsys, monkeypatch, "", *argv, "--format", "json")
    assert code == 0
    game = json.loads(shown)
    code, out, _ = run(capsys, monkeypatch, "", *argv, "--record", "mine/odd-game.json")
    assert code == 0
    hands = len(game["hands"])
    assert out.splitlines()[-1] == f"recorded the whole match ({hands} hand{'s' * (hands != 1)}, to 5) in mine/odd-game.json"
    case = load_case(tmp_path / "mine" / "odd-game.json")  # the transcript loader: schema, replay, consistency
    assert (case.id, case.ruleset, case.players, case.target, case.audit) == ("odd-game", "da", 2, 5, "hand")
    recorded = json.loads((tmp_path / "mine" / "odd-game.json").read_text(encoding="utf-8"))
    assert played_moves(recorded["expect"]) == [m for hand in game["hands"] for m in played_moves(hand["events"])]
    assert [e for e in recorded["expect"] if e["event"] == "match_end"] == [game["match"][-1]]
    code, report, _ = run(capsys, monkeypatch, "", "conformance", "--cases-dir", "mine", "--format", "json")
    assert code == 0
    outcomes = [c["outcome"] for c in json.loads(report)["cases"]]
    assert outcomes == ["pass"]


def test_record_of_a_match_left_unfinished_keeps_the_last_finished_hand(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Quitting after a hand records that hand alone (a case is a whole match or one hand)."""
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, monkeypatch, "1\n" * 30 + "q\n", "play", "sv", "--seed", "3", "--record", "left.json")
    assert code == 0
    assert out.splitlines()[-1] == "recorded hand 1 of a match left unfinished in left.json"
    case = load_case(tmp_path / "left.json")
    assert case.target is None and len(case.hands) == 1
    code, out, err = run(capsys, monkeypatch, "q\n", "play", "sv", "--seed", "3", "--record", "none.json")
    assert code == 0 and err == "escoba play: nothing recorded in none.json: no hand was finished\n"
    assert not (tmp_path / "none.json").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["da", "--record", "game.txt"], "--record game.txt: a case file ends in .json"),
        (["da", "--record", "Odd_Game.json"], "--record Odd_Game.json: the file name is the case id: lower-case letters, digits, '-' and '.'"),
        (["da", "--record", "there.json"], "--record there.json: the file exists; not overwritten"),
        (["da", "--record", "nowhere/x.json"], "--record nowhere/x.json: no such folder: nowhere"),
        (["house.yaml", "--record", "x.json"], "--record needs a bundled ruleset id (a case names its ruleset by id), not house.yaml"),
        (["da", "--format", "json"], "--format json needs --auto: a person plays in the text view"),
    ],
)
def test_record_and_format_refusals(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, argv: list[str], message: str
) -> None:
    """Bad --record or --format arguments are usage errors (exit 2) before any card is dealt."""
    monkeypatch.chdir(tmp_path)
    Path("there.json").write_text("keep\n")
    Path("house.yaml").write_text("dsl: 1\nextends: da\n")
    code, out, err = run(capsys, monkeypatch, "1\n", "play", *argv)
    assert (code, out, err) == (2, "", f"escoba play: {message}\n")
    assert Path("there.json").read_text() == "keep\n"


def test_auto_format_json_prints_the_games_events(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """`play --auto --format json` prints one JSON document: each hand's events, the match's, totals and winners."""
    code, out, _ = run(capsys, monkeypatch, "", "play", "sv", "--auto", "--seed", "2", "--target", "6", "--format", "json")
    assert code == 0
    game = json.loads(out)  # one document, nothing else on stdout
    assert (game["ruleset"], game["players"], game["seed"], game["target"]) == ("sv", 2, 2, 6)
    points = [0, 0]
    for hand in game["hands"]:
        assert hand["events"][0]["event"] == "hand_start" and hand["events"][-1]["event"] == "hand_end"
        for event in hand["events"]:
            if event["event"] == "score":
                points = [a + b for a, b in zip(points, event["points"])]
    assert game["totals"] == points and max(points) >= 6
    assert game["match"][-1] == {"event": "match_end", "winners": game["winners"], "totals": points, "reason": game["match"][-1]["reason"]}


# --------------------------------------------------------------------------- one wording for a lone card


def _flat(text: str) -> str:
    return " ".join(text.replace("**", "").split())


def test_lone_card_is_described_in_one_wording_everywhere(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """--help, the in-game '?' and every doc that explains a lone card say the same sentence."""
    sentence = play_cli.LONE_CARD
    assert "places it" in sentence and "only one way" in sentence
    help_text = cli.build_parser()._subparsers._group_actions[0].choices["play"].format_help()  # type: ignore[union-attr]
    assert sentence in _flat(help_text)
    _, out, _ = run(capsys, monkeypatch, "?\nq\n", "play", "base", "--seed", "1")
    assert f"legal moves (type the number or the move; {sentence}):" in out
    documents = [p for p in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")] if "lone card" in p.read_text(encoding="utf-8")]
    assert documents
    for doc in documents:
        assert sentence in _flat(doc.read_text(encoding="utf-8")), doc.name


# --------------------------------------------------------------------------- colour


@pytest.mark.parametrize(
    ("tty", "env", "expected"),
    [(True, {}, True), (False, {}, False), (True, {"NO_COLOR": "1"}, False), (True, {"NO_COLOR": ""}, True), (True, {"TERM": "dumb"}, False)],
)
def test_colour_only_on_a_terminal_without_no_color(monkeypatch: pytest.MonkeyPatch, tty: bool, env: dict, expected: bool) -> None:
    """Colour is on for a terminal, off for a pipe, off when NO_COLOR is set (not empty) or TERM=dumb."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert play_cli.wants_color(Terminal() if tty else io.StringIO()) is expected


def test_colour_paints_suits_and_the_scoring_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a terminal the cards carry their suit's colour and the table's headings are bold; the text is unchanged."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    screens = {}
    for tty in (True, False):
        stdout = Terminal() if tty else io.StringIO()
        monkeypatch.setattr(sys, "stdout", stdout)
        monkeypatch.setattr(sys, "stdin", io.StringIO(""))
        assert cli.main(["play", "base", "--auto", "--seed", "3", "--target", "1"]) == 0
        screens[tty] = stdout.getvalue()
    coloured, plain = screens[True], screens[False]
    assert "\x1b[" not in plain
    assert ANSI.sub("", coloured) == plain
    assert "\x1b[31m" in coloured and "\x1b[33m" in coloured  # copas red, oros gold
    assert re.search(r"\x1b\[1mcategory ", coloured)
    monkeypatch.setenv("NO_COLOR", "1")
    stdout = Terminal()
    monkeypatch.setattr(sys, "stdout", stdout)
    assert cli.main(["play", "base", "--auto", "--seed", "3", "--target", "1"]) == 0
    assert stdout.getvalue() == plain
    stdout = io.StringIO()
    monkeypatch.setattr(sys, "stdout", stdout)
    assert cli.main(["play", "base", "--auto", "--seed", "3", "--target", "1", "--color", "always"]) == 0
    assert stdout.getvalue() == coloured


# --------------------------------------------------------------------------- pause and quit


def test_interactive_play_pauses_between_hands(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """At a terminal the game waits for Enter after a hand's scoring; 'q' there leaves with the score so far."""
    _, piped, _ = run(capsys, monkeypatch, "1\n" * 30 + "q\n", "play", "sv", "--seed", "3")
    moves = piped.partition("Hand 1 scoring")[0].count("your move> ")  # the person's turns in hand 1
    stdin = Terminal("1\n" * moves + "q\n")
    monkeypatch.setattr(sys, "stdin", stdin)
    code = cli.main(["play", "sv", "--seed", "3"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.count("Enter for the next hand, q to quit> ") >= 1
    before, _, after = out.partition("Enter for the next hand, q to quit> ")
    assert "Hand 1 scoring" in before and "Hand 2" not in before
    you, them = first_total_row(out)
    assert after.startswith(f"you left the game; score so far: you {you} · seat 1 {them} (first to 21; 1 hand finished)")


def test_piped_play_does_not_pause(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Input from a pipe is a script: no pause between hands."""
    code, out, _ = run(capsys, monkeypatch, "1\n" * 3000, "play", "base", "--seed", "5")
    assert code == 0 and "Hand 2 scoring" in out and "Enter for the next hand" not in out


def test_quit_prints_the_score_so_far(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """'q' after a finished hand prints the running totals, as the last scoring table shows them."""
    code, out, _ = run(capsys, monkeypatch, "1\n" * 30 + "q\n", "play", "sv", "--seed", "3")
    assert code == 0
    you, them = first_total_row(out)
    assert out.rstrip().splitlines()[-1] == f"you left the game; score so far: you {you} · seat 1 {them} (first to 21; 1 hand finished)"
