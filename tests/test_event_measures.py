"""Event measures: the measure language reads the hand's history (captures, sweeps, last_capture).

The functions are pinned on hand-built histories; the engine's record is pinned against the
events of real games (every capture is a play event that took cards, every sweep an escoba
event that scored, rounds counted by deal events); and the record is kept only when a ruleset's
measures need it.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import escoba
from escoba.engine.hand import Hand
from escoba.engine.history import Capture, SideHistory
from escoba.rules.expr import ExprError, compile_expression
from rulebook import base_with
from test_expr import ENV, card, pile

ROOT = Path(__file__).parents[1]


def mask(*cards: str) -> int:
    m = 0
    for c in pile(*cards):
        m |= 1 << c
    return m


# A side's history: a sweep with the velo on the first play, a capture with a seven in round 2,
# a sweep with a sota in round 3, and the hand's last play taking the 7 of copas.
HISTORY = SideHistory(
    captures=(
        Capture(card("7", "oros"), mask("3 bastos", "5 copas"), 1, True, False, True),
        Capture(card("7", "espadas"), mask("sota bastos"), 2, False, False, False),
        Capture(card("sota", "oros"), mask("5 bastos", "2 copas"), 3, False, False, True),
        Capture(card("1", "copas"), mask("7 copas", "7 bastos"), 6, False, True, False),
    ),
    last_capture=True,
)
NOBODY = SideHistory(captures=(), last_capture=False)


def measure(text: str, history: SideHistory = HISTORY, escobas: int = 2):
    return compile_expression(text, ENV).fn([], escobas, history)


@pytest.mark.parametrize("text, expected", [
    ("count(captures)", 4),
    ("count(sweeps)", 2),
    ("last_capture", True),
    ("count(first_play(captures))", 1),
    ("count(first_play(sweeps))", 1),
    ("count(last_play(captures))", 1),
    ("count(last_play(sweeps))", 0),
    ("count(in_round(captures, 2))", 1),
    ("count(in_round(captures, 4))", 0),
    ("count(played(captures))", 4),
    ("count(rank(played(captures), 7))", 2),
    ("count(taken(captures))", 7),
    ("count(taken(sweeps))", 4),
    ("count(made_with(sweeps, card(deck, 7, oros)))", 1),
    ("count(made_with(sweeps, rank(deck, 7)))", 1),
    ("count(made_with(captures, rank(deck, 7)))", 2),
    ("count(made_with(sweeps, rank(deck, sota)))", 1),
    ("count(taking(captures, rank(deck, 7)))", 1),
    ("count(taking(captures, suit(deck, bastos)))", 4),
    ("count(made_with(captures, played(first_play(captures))))", 1),
    ("count(taking(captures, taken(last_play(captures))))", 1),
    ("escobas + count(made_with(sweeps, card(deck, 7, oros)))", 3),
    ("escobas - count(first_play(sweeps))", 1),
    ("total(played(sweeps), primera)", 31),
    ("best(taken(captures), primera)", 21),
])
def test_history_functions(text, expected):
    """Each history name and function, on a side's hand-built history."""
    assert measure(text) == expected


def test_an_empty_history_counts_nothing():
    """A side that captured nothing: every count is 0, last_capture false, best() none."""
    assert measure("count(sweeps) + count(taken(captures))", NOBODY) == 0
    assert measure("last_capture", NOBODY) is False
    assert measure("best(played(captures), primera)", NOBODY) is None


def test_card_names_one_card_of_the_deck():
    """card(SET, RANK, SUIT) is that one card of the set: of the deck a constant, of the pile if held."""
    assert compile_expression("count(card(deck, 7, o))", ENV).fn([], 0) == 1
    assert compile_expression("count(card(cards, 7, oros))", ENV).fn(pile("7 oros", "2 oros"), 0) == 1
    assert compile_expression("count(card(cards, 7, oros))", ENV).fn(pile("7 copas", "2 oros"), 0) == 0
    assert compile_expression("count(card(deck, S, b))", ENV, context="global").fn((), 0) == 1


def test_history_needs_are_decided_when_compiling():
    """A measure naming the history says so; one that does not never asks for it."""
    assert compile_expression("count(sweeps)", ENV).needs_history
    assert compile_expression("last_capture", ENV).needs_history
    assert not compile_expression("escobas + count(cards)", ENV).needs_history
    with pytest.raises(ValueError, match="reads the hand's history"):
        compile_expression("count(sweeps)", ENV).fn([], 0)


def test_the_history_names_a_measure_reads_are_known_when_compiling():
    """Which of captures, sweeps and last_capture a measure reads: a simulation records no more
    (engine/fused.py), so a name read through a function counts, and one not read does not."""
    reads = {text: compile_expression(text, ENV).history_reads for text in (
        "escobas + count(cards)", "count(sweeps)", "last_capture", "total(played(first_play(sweeps)), primera)",
        "count(taking(captures, rank(deck, 7)))", "count(made_with(sweeps, taken(captures))) + 0",
    )}  # fmt: skip
    assert reads == {
        "escobas + count(cards)": frozenset(),
        "count(sweeps)": {"sweeps"},
        "last_capture": {"last_capture"},
        "total(played(first_play(sweeps)), primera)": {"sweeps"},
        "count(taking(captures, rank(deck, 7)))": {"captures"},
        "count(made_with(sweeps, taken(captures))) + 0": {"sweeps", "captures"},
    }
    rules = base_with(categories=[
        {"id": "a", "measure": "count(sweeps)", "award": {"policy": "per_unit"}},
        {"id": "b", "measure": "last_capture", "award": {"policy": "bonus"}},
    ])  # fmt: skip
    assert rules.history_reads == {"sweeps", "last_capture"}
    assert escoba.load_ruleset("base").history_reads == frozenset()


def test_in_round_takes_a_written_round_number():
    """in_round() needs a fixed round number: 1, 2 … (folded literals count)."""
    assert measure("count(in_round(captures, 1 + 1))") == 1
    for text in ("in_round(sweeps, escobas)", "in_round(sweeps, 0)", "in_round(sweeps, 1.5)"):
        with pytest.raises(ExprError, match=re.escape("in_round() expects a round number (1, 2, ...)")):
            compile_expression(f"count({text})", ENV)


# --------------------------------------------------------------------------- the engine's record


def _history_rules():
    return base_with(categories=[
        {"id": "escobas", "measure": "escobas", "award": {"policy": "per_unit"}},
        {"id": "last", "measure": "last_capture", "award": {"policy": "bonus"}},
    ])


def test_the_history_is_kept_only_when_a_measure_reads_it():
    """Rules.needs_history comes from the measures; only then does Hand record captures."""
    assert not escoba.load_ruleset("base").needs_history
    assert Hand(escoba.load_ruleset("base"), 2, 0, seed=1).captures is None
    rules = _history_rules()
    assert rules.needs_history and [c.needs_history for c in rules.categories] == [False, True]
    assert Hand(rules, 2, 0, seed=1).captures == [[], []]


@pytest.mark.parametrize("seed, players", [(1, 2), (2, 2), (3, 3), (4, 4), (5, 2)])
def test_the_record_agrees_with_the_events(seed, players):
    """Each recorded capture is a play that took cards, in order, with its round (deal events so
    far), first/last play flags and escoba flag (an escoba event that scored) as the events say."""
    rules = _history_rules()
    hand = Hand(rules, players, seed % players, seed=seed)
    bot = escoba.greedy_bot(seed=seed)
    while not hand.is_over:
        hand.apply(bot(hand))
    assert hand.events is not None and hand.captures is not None
    code = rules.deck.code
    expected: list[list[tuple]] = [[] for _ in range(hand.sides)]
    rounds, plays, total_plays = 0, 0, sum(e["event"] == "play" for e in hand.events)
    events = hand.events
    for i, e in enumerate(events):
        if e["event"] == "hand_start":
            rounds = 0
        elif e["event"] == "deal":
            rounds += 1
        elif e["event"] == "play":
            plays += 1
            if e["take"]:
                following = events[i + 1] if i + 1 < len(events) else {}
                scored = following.get("event") == "escoba" and following["scores"]
                side = hand.side_of[e["seat"]]
                expected[side].append((e["card"], sorted(e["take"], key=code.index), rounds, plays == 1,
                                       plays == total_plays, scored))
    got = [[(code[c.card], [code[i] for i in range(len(code)) if c.taken >> i & 1], c.round, c.first, c.last, c.escoba)
            for c in mine] for mine in hand.captures]
    assert got == expected
    history = hand.history()
    assert history is not None
    assert [h.last_capture for h in history] == [s == hand.side_of[hand.last_capturer] for s in range(hand.sides)]
    last = next(s for s in hand.scores or [] if s.category == "last")
    assert list(last.points) == [int(h.last_capture) for h in history]


def test_a_snapshot_keeps_the_history():
    """to_json/from_json carry the captures and the round, so a rebuilt hand scores the same."""
    rules = _history_rules()
    hand = Hand(rules, 2, 1, seed=9)
    bot = escoba.greedy_bot(seed=9)
    for _ in range(20):
        hand.apply(bot(hand))
    snapshot = hand.to_json()
    assert snapshot["round"] == hand.round and len(snapshot["captures"]) == sum(map(len, hand.captures or []))
    copy = Hand.from_json(rules, snapshot)
    assert copy.to_json() == snapshot
    while not hand.is_over:
        move = bot(hand)
        hand.apply(move)
        copy.apply(move)
    assert copy.points == hand.points and copy.to_json() == hand.to_json()
    assert "captures" not in Hand(escoba.load_ruleset("base"), 2, 0, seed=1).to_json()


def test_a_snapshot_without_the_history_is_refused_where_it_is_needed():
    """A ruleset whose measures read the history cannot resume from a snapshot that lacks it."""
    rules = _history_rules()
    snapshot = Hand(escoba.load_ruleset("base"), 2, 0, seed=3).to_json()
    with pytest.raises(escoba.EscobaError, match="no 'captures'"):
        Hand.from_json(rules, snapshot)


# --------------------------------------------------------------------------- the reference page


def _doc_error_rows() -> list[tuple[str, str, str]]:
    """(kind, expression, message) rows of the errors table in docs/expressions.md."""
    text = (ROOT / "docs" / "expressions.md").read_text(encoding="utf-8")
    table = text[text.index("| kind | example expression | message |"):]
    rows = []
    for line in table.splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        spans = [re.findall(r"`([^`]*)`", c) for c in cells]
        if len(spans[1]) == 1 and len(spans[2]) == 1:
            rows.append((cells[1], spans[1][0], spans[2][0]))
    return rows


@pytest.mark.parametrize("cell, text, message", _doc_error_rows())
def test_documented_expression_errors_are_produced(cell, text, message):
    """Every example of docs/expressions.md's error table gives that message, word for word."""
    context = "global" if "threshold" in cell else "side"
    with pytest.raises(ExprError) as caught:
        compile_expression(text, ENV, context=context)
    assert caught.value.message == message


def test_views_clones_and_determinized_hands_keep_the_history():
    """The history is public: a seat's view holds it, and a clone or a determinized hand
    carries it, so each finishes with the same history-scored points as the real hand."""
    rules = _history_rules()
    hand = Hand(rules, 2, 0, seed=21)
    bot = escoba.greedy_bot(seed=21)
    for _ in range(16):
        hand.apply(bot(hand))
    view = hand.view(0)
    assert view.captures is not None and [list(m) for m in view.captures] == hand.captures
    assert view.to_json()["captures"] == hand.to_json()["captures"]
    clone = hand.clone()
    other = Hand.from_view(view, random.Random(3))
    assert clone.captures == hand.captures and other.captures == hand.captures
    assert clone.captures is not hand.captures and other.round == hand.round
    while not hand.is_over:
        move = bot(hand)
        hand.apply(move)
        clone.apply(move)
    assert clone.points == hand.points
    assert "captures" not in Hand(escoba.load_ruleset("base"), 2, 0, seed=1).view(0).to_json()
