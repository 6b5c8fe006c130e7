"""`escoba play`: a person against bots through scripted stdin; wrong entries; --auto; EOF."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Callable

import pytest

import escoba
from escoba.cli import main as cli
from escoba.cli.play import EntryError, Game, read_move
from escoba.engine.arrange import arrange_deck
from escoba.engine.hand import Hand
from escoba.game.moves import Move

PROMPT = "your move> "


@pytest.fixture(autouse=True)
def _only_our_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    # The other subcommands are other people's modules; these tests need only play.
    monkeypatch.setattr(cli, "COMMANDS", ("play",))


def play(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, stdin: str, *argv: str) -> tuple[int, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = cli.main(["play", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out


def first_turn(ruleset: str, want: Callable[[Hand], object], players: int = 2) -> tuple[int, Hand]:
    """A seed whose first position (the person leads hand 1) satisfies `want`."""
    rules = escoba.load_ruleset(ruleset)
    for seed in range(2000):
        hand = Game(rules, players, seed, ("greedy",), out=io.StringIO()).match.new_hand()
        if hand.to_play == 0 and want(hand):
            return seed, hand
    raise AssertionError("no seed gives such a position")  # pragma: no cover


def one_prompt_then_quit(out: str) -> tuple[str, list[str]]:
    """The lines between the first prompt and the quit, and what came before the first prompt."""
    before, _, after = out.partition(PROMPT)
    return before, after.split(PROMPT)


# ------------------------------------------------------------------------- whole games
def test_numbered_choices_play_a_whole_game(capsys, monkeypatch):
    """Always choosing move 1 plays the match to its end: a winner, exit 0."""
    code, out = play(capsys, monkeypatch, "1\n" * 3000, "base", "--seed", "5")
    assert code == 0
    assert "Hand 1 scoring" in out
    assert out.rstrip().splitlines()[-1].startswith("Match over: ")
    assert "end of input" not in out


def test_a_game_with_partners_and_open_hands_finishes(capsys, monkeypatch):
    """Four players in partnerships (de) and open hands (de-open) play to the end."""
    code, out = play(capsys, monkeypatch, "1\n" * 3000, "de", "--players", "4", "--seed", "2", "--target", "5")
    assert code == 0 and "you+2" in out and "Match over: " in out
    code, out = play(capsys, monkeypatch, "1\n" * 3000, "de-open", "--seed", "2", "--target", "3")
    assert code == 0 and "Match over: " in out
    assert "seat 1:    3 cards" not in out  # the bot's cards are shown, not counted


def test_auto_prints_the_game_and_the_score_table(capsys, monkeypatch):
    """--auto needs no input: deals, plays in notation, escobas, scoring tables and the winner."""
    code, out = play(capsys, monkeypatch, "", "base", "--auto", "--seed", "3")
    assert code == 0
    assert "deal: seat 0: " in out and "seat 1 plays " in out
    assert "** escoba! **" in out
    table = out[out.index("Hand 1 scoring") :].splitlines()
    assert table[2].split() == ["category", "seat", "0", "seat", "1", "seat", "0", "seat", "1"]
    assert [row.split()[0] for row in table[4:9]] == ["escobas", "cards", "coins", "velo", "primera"]
    assert "hand points" in out and "total (to 21)" in out
    assert out.rstrip().splitlines()[-1].startswith("Match over: seat ")


def test_same_seed_same_game(capsys, monkeypatch):
    """A seed fixes the whole game: two --auto runs print the same text."""
    first = play(capsys, monkeypatch, "", "sv", "--auto", "--seed", "11", "--target", "6")
    assert first == play(capsys, monkeypatch, "", "sv", "--auto", "--seed", "11", "--target", "6")


def test_end_of_input_exits_zero(capsys, monkeypatch):
    """EOF at the prompt ends the game cleanly with a message and exit status 0."""
    code, out = play(capsys, monkeypatch, "", "base", "--seed", "1")
    assert code == 0
    assert out.rstrip().endswith("end of input: the game is left unfinished")


LEFT_AT_ONCE = "you left the game; score so far: you 0 · seat 1 0 (first to 21; 0 hands finished)"


def test_quit(capsys, monkeypatch):
    """'q' leaves the game at once, exit status 0, printing the score so far."""
    code, out = play(capsys, monkeypatch, "q\n1\n", "base", "--seed", "1")
    assert code == 0 and out.rstrip().endswith(LEFT_AT_ONCE) and "you play" not in out


def test_real_pipe(tmp_path):
    """Through a real pipe (not a TTY) the game reads its moves and exits 0 at EOF."""
    result = subprocess.run(
        [sys.executable, "-m", "escoba", "play", "base", "--seed", "1", "--ascii"],
        input="1\n?\n",
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "you play" in result.stdout and "legal moves" in result.stdout
    assert "end of input" in result.stdout


def test_help_lists_the_legal_moves(capsys, monkeypatch):
    """'?' lists every legal move, numbered, and prompts again."""
    seed, hand = first_turn("base", lambda h: True)
    _, out = play(capsys, monkeypatch, "?\nq\n", "base", "--seed", str(seed))
    names = hand.rules.deck.text
    listed = [line.split(None, 1)[1] for line in out.splitlines() if line.startswith("  ") and line.split()[0].isdigit()]
    expected = [names[m.card] + (" x " + " ".join(names[c] for c in m.take) if m.take else "") for m in hand.legal_moves()]
    assert listed == expected
    assert out.count(PROMPT) == 2


# ------------------------------------------------------------------------- wrong entries
def _takes_nothing(hand: Hand) -> tuple[int, int] | None:
    """A hand card and a table card that do not make the target together, if any."""
    value, target = hand.rules.deck.value, hand.rules.target
    for c in hand.hands[0]:
        for t in hand.table:
            if value[c] + value[t] != target:
                return c, t
    return None


def _ambiguous(hand: Hand) -> int | None:
    for c in hand.hands[0]:
        caps = [m for m in hand.legal_moves() if m.card == c and m.take]
        if len(caps) >= 2 and Move(c, ()) not in hand.legal_moves():
            return c
    return None


def _refusal(hand: Hand) -> int | None:
    """Under hand-level compulsory capture: a card that cannot take while another can."""
    if not any(m.take for m in hand.legal_moves()):
        return None
    return next((c for c in hand.hands[0] if not hand.captures_for(c)), None)


def wrong_entry_cases():
    """(id, ruleset, position test, entry builder, exact message builder)."""
    def text(hand, cards):
        return " ".join(hand.rules.deck.text[c] for c in cards)

    def code(hand, cards):
        return " ".join(hand.rules.deck.code[c] for c in cards)

    return [
        (
            "random text", "base", lambda h: True, lambda h: "hello there",
            lambda h: "'hello there' is not a move: type a move number, a card (7d) or a capture (7d x 3c 5h); ? lists the moves",
        ),
        (
            "unknown card", "base", lambda h: h.table, lambda h: f"{code(h, h.hands[0][:1])} x 8d",
            lambda h: "unknown card '8d' (the Spanish deck has no 8, 9 or 10: sota, caballo and rey count 8, 9, 10)",
        ),
        (
            "number out of range", "base", lambda h: True, lambda h: "99",
            lambda h: f"no move number 99: choose 1 to {len(h.legal_moves())}",
        ),
        (
            "card not in hand", "base", lambda h: h.table, lambda h: code(h, h.table[:1]),
            lambda h: f"{text(h, h.table[:1])} is not in your hand",
        ),
        (
            "taken card not on the table", "base", lambda h: len(h.hands[0]) > 1,
            lambda h: f"{code(h, h.hands[0][:1])} x {code(h, h.hands[0][1:2])}",
            lambda h: f"{text(h, h.hands[0][1:2])} is not on the table",
        ),
        (
            "sum is not the target", "base", _takes_nothing,
            lambda h: code(h, _takes_nothing(h)).replace(" ", " x ", 1),
            lambda h: f"{text(h, _takes_nothing(h))} make {sum(h.rules.deck.value[c] for c in _takes_nothing(h))}, not 15",
        ),
        (
            "refused compulsory capture", "de", _refusal, lambda h: code(h, [_refusal(h)]),
            lambda h: _compulsory_message(h),
        ),
        (
            "ambiguous lone card", "base", _ambiguous, lambda h: code(h, [_ambiguous(h)]),
            lambda h: _ambiguous_message(h),
        ),
    ]  # fmt: skip


def _compulsory_message(hand: Hand) -> str:
    names = hand.rules.deck.text
    other = next(c for c in sorted(hand.hands[0]) if hand.captures_for(c))
    first = hand.captures_for(other)[0]
    return f"capture is compulsory: {names[other]} can take {' '.join(names[c] for c in first)}"


def _ambiguous_message(hand: Hand) -> str:
    names, card = hand.rules.deck.text, _ambiguous(hand)
    caps = [m.take for m in hand.legal_moves() if m.card == card and m.take]
    options = " or ".join(" ".join(names[c] for c in take) for take in caps)
    return f"{names[card]} can take {options}: type the whole capture, e.g. {names[card]} x {' '.join(names[c] for c in caps[0])}"


CASES = wrong_entry_cases()


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_wrong_entry_message_and_new_prompt(capsys, monkeypatch, case):
    """Each kind of wrong entry prints its exact one-line message, then a new prompt; nothing is played."""
    _, ruleset, want, entry, message = case
    seed, hand = first_turn(ruleset, want)
    code, out = play(capsys, monkeypatch, f"{entry(hand)}\nq\n", ruleset, "--seed", str(seed))
    assert code == 0
    _, answers = one_prompt_then_quit(out)
    assert answers[0].splitlines() == [entry(hand), f"! {message(hand)}"]  # the echoed entry, the message
    assert len(answers) == 2 and answers[1].splitlines() == ["q", LEFT_AT_ONCE]
    assert "you play" not in out


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_wrong_entry_leaves_the_state_untouched(case):
    """read_move refuses each wrong entry with EntryError and the hand's snapshot does not change."""
    _, ruleset, want, entry, message = case
    _, hand = first_turn(ruleset, want)
    before = json.dumps(hand.to_json())
    with pytest.raises(EntryError) as error:
        read_move(hand, entry(hand))
    assert str(error.value) == message(hand)
    assert json.dumps(hand.to_json()) == before


def test_after_a_wrong_entry_the_right_one_is_played(capsys, monkeypatch):
    """A wrong entry followed by a legal one plays the legal one, as if the first never happened."""
    seed, hand = first_turn("base", lambda h: True)
    first = hand.legal_moves()[0]
    _, out = play(capsys, monkeypatch, "nonsense\n1\nq\n", "base", "--seed", str(seed))
    names = hand.rules.deck.text
    shown = names[first.card] + (" x " + " ".join(names[c] for c in first.take) if first.take else "")
    assert f"you play {shown}\n" in out


# ------------------------------------------------------------------------- entries in notation
def test_notation_entries_ascii_and_symbols():
    """A capture can be typed with suit symbols or in ASCII, in any order of the taken cards."""
    rules = escoba.load_ruleset("base")
    deck = rules.deck
    order = arrange_deck(rules, 2, 1, table=["3c", "5h", "Ss", "2d"], rounds=[[["7d", "Rh", "6c"], ["1d", "1h", "1s"]]])
    hand = Hand(rules, 2, 1, [order])
    move = Move(deck.card("7d"), tuple(sorted((deck.card("3c"), deck.card("5h")))))
    assert read_move(hand, "7♦ x 3♣ 5♥") == move
    assert read_move(hand, "7d x 5h 3c") == move
    assert read_move(hand, "6c") == Move(deck.card("6c"), ())  # no capture: a lone card is placed


def test_lone_card_with_one_capture_takes_it():
    """Where capture is compulsory and the card can take in one way only, the lone card takes."""
    rules = escoba.load_ruleset("base")
    deck = rules.deck
    order = arrange_deck(rules, 2, 1, table=["3c", "4h", "Ss", "2d"], rounds=[[["7d", "Rh", "4c"], ["1d", "1h", "1s"]]])
    hand = Hand(rules, 2, 1, [order])
    assert read_move(hand, "7d") == Move(deck.card("7d"), (deck.card("Ss"),))


def test_lone_card_places_where_capture_is_optional():
    """Under optional capture (fr) a lone card is a placement even when it could take."""
    rules = escoba.load_ruleset("fr")
    deck = rules.deck
    order = arrange_deck(rules, 2, 1, table=["3c", "4h", "Ss", "2d"], rounds=[[["7d", "Rh", "4c"], ["1d", "1h", "1s"]]])
    hand = Hand(rules, 2, 1, [order])
    assert hand.to_play == 0
    assert read_move(hand, "7d") == Move(deck.card("7d"), ())


# ------------------------------------------------------------------------- usage errors
@pytest.mark.parametrize(
    "argv, message",
    [
        (["play", "base", "--players", "5"], "escoba play: base is played by 2, 3 or 4 players, not 5"),
        (["play", "base", "--bots", "smart"], "escoba play: unknown bot 'smart' in --bots; known bots: random, greedy, expert, learned, search:PLAYOUTS, strong[:PLAYOUTS]"),
        (["play", "base", "--target", "0"], "escoba play: --target must be at least 1, got 0"),
    ],
)
def test_usage_errors(capsys, monkeypatch, argv, message):
    """Impossible arguments exit 2 with a one-line message on stderr, before any game starts."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == message + "\n"
