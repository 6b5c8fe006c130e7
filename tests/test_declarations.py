"""Declarations: categories measured on cards as they are dealt (`measured_on: dealt`, `table`).

Each rule is stated as a change to the neutral base: a low hand (three cards worth 9 or less)
scores a point, three of a kind two, and the seven of copas stands for any card when a dealt
hand is measured (`deck.declaration_wild`), Cirulla's declarations written with base's cards.
"""

from __future__ import annotations

import random

import pytest

from escoba.engine.declarations import declared
from escoba.engine.hand import Hand
from rulebook import base_with, cards, deal

CAPTURE = {"1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "sota": 8, "caballo": 9, "rey": 10}
LOW = {"id": "low", "measure": "total(cards, capture) <= 9 and of_a_kind(cards) < 3", "measured_on": "dealt",
       "award": {"policy": "per_unit"}, "points": 1}  # fmt: skip
THREE = {"id": "three", "measure": "of_a_kind(cards) == 3", "measured_on": "dealt", "award": {"policy": "per_unit"}, "points": 2}
LOW_TABLE = {"id": "low-table", "measure": "total(cards, capture) < 9", "measured_on": "table",
             "award": {"policy": "per_unit"}, "points": 1}  # fmt: skip
CARDS = {"id": "cards", "measure": "count(cards)", "award": {"policy": "most"}, "points": 1}


def declaring(wild: str | None = None, table: bool = False):
    extra = [LOW_TABLE] if table else []
    return base_with(categories=[CARDS, LOW, THREE, *extra], values__capture=CAPTURE, deck__declaration_wild=wild,
                     opening_table__action="none")  # fmt: skip


def test_a_hand_dealt_low_is_shown_and_scores_when_the_hand_is_scored():
    """Seat 1 is dealt 1♦ 2♦ 3♦ (6 in all): a declaration event right after the deal, counted
    once for its side; the score events at the end carry the declarations' measures."""
    rules = declaring()
    hand = deal(rules, 2, 0, "4♣ 5♥ 6♠ R♣", "S♦ C♦ R♦", "1♦ 2♦ 3♦")
    shown = [e for e in hand.events if e["event"] == "declaration"]
    assert shown == [{"event": "declaration", "seat": 1, "side": 1, "cards": ["1d", "2d", "3d"], "categories": ["low"]}]
    assert hand.events.index(shown[0]) > max(i for i, e in enumerate(hand.events) if e["event"] in ("deal", "table"))
    rng = random.Random(1)
    while not hand.is_over:
        moves = hand.legal_moves()
        hand.apply(moves[rng.randrange(len(moves))])
    scores = {s.category: s for s in hand.scores}
    assert scores["low"].measures[1] >= 1 and scores["low"].points[1] == scores["low"].measures[1]
    assert sum(e["event"] == "declaration" and e["side"] == 1 and "low" in e["categories"] for e in hand.events) == scores["low"].measures[1]


def test_three_of_a_kind_and_the_low_hand_are_measured_apart():
    """of_a_kind(cards) == 3: three sevens score two points, and no low hand (they add up to 21)."""
    rules = declaring()
    assert declared(rules, cards(rules, "7♦ 7♥ 7♠"), "dealt") == (0, 0, 1)
    assert declared(rules, cards(rules, "1♦ 2♥ 6♠"), "dealt") == (0, 1, 0)
    assert declared(rules, cards(rules, "1♦ 2♥ 7♠"), "dealt") is None


def test_the_wild_card_is_read_as_whatever_scores_most_once_for_the_whole_hand():
    """deck.declaration_wild: with 4♦ 4♣ and the wild 7♥, reading it as a 4 makes three of a kind
    (2 points), as an ace a low hand of 9 (1 point): the hand scores the three of a kind alone,
    never both. Without the wild card nothing is declared; the wild card plays as itself."""
    rules = declaring(wild="7 copas")
    assert declared(rules, cards(rules, "4♦ 4♣ 7♥"), "dealt") == (0, 0, 1)
    assert declared(rules, cards(rules, "1♦ 2♣ 7♥"), "dealt") == (0, 1, 0)  # the wild as a low card
    assert declared(declaring(), cards(rules, "4♦ 4♣ 7♥"), "dealt") is None
    assert declared(rules, cards(rules, "4♦ 4♣ 7♦"), "dealt") is None  # another seven is no wild card


def test_a_declaration_worth_negative_points_is_declared_and_the_wild_card_avoids_it():
    """A penalty for a hand dealt low (points: -1) counts like a prize; the wild card is read as
    whatever scores most, so as a card that keeps the hand out of the penalty."""
    penalty = {**LOW, "points": -1}
    rules = base_with(categories=[CARDS, penalty], values__capture=CAPTURE, opening_table__action="none")
    assert declared(rules, cards(rules, "1♦ 2♥ 6♠"), "dealt") == (0, 1)
    assert declared(rules, cards(rules, "1♦ 2♥ 7♠"), "dealt") is None
    wild = base_with(categories=[CARDS, penalty], values__capture=CAPTURE, deck__declaration_wild="7 copas",
                     opening_table__action="none")  # fmt: skip
    assert declared(wild, cards(wild, "1♦ 2♥ 7♥"), "dealt") is None  # the wild as a seven: 10, no penalty


def test_a_table_category_scores_the_opening_table_for_the_dealers_side():
    """measured_on: table: the four cards the dealer turns up, measured once, for the dealer's side."""
    rules = declaring(table=True)
    hand = deal(rules, 2, 0, "1♣ 2♥ 3♠ 1♠", "S♦ C♦ R♦", "4♦ 5♦ 6♦")
    shown = [e for e in hand.events if e["event"] == "declaration"]
    assert shown == [{"event": "declaration", "seat": 0, "side": 0, "cards": ["2h", "1s", "3s", "1c"], "categories": ["low-table"]}]
    assert hand.declared == [[0, 0, 0, 1], [0, 0, 0, 0]]


def test_a_declared_hand_is_seen_by_every_seat_until_played():
    """The cards a declaration showed are in every seat's view (`shown`), leave it as they are
    played, and a determinized hand deals them to the seat that showed them."""
    rules = declaring()
    hand = deal(rules, 2, 0, "4♣ 5♥ 6♠ R♣", "S♦ C♦ R♦", "1♦ 2♦ 3♦")
    shown = cards(rules, "1♦ 2♦ 3♦")
    view = hand.view(0)
    assert view.hands[1] is None and view.shown == ((), tuple(shown)) and not set(shown) & set(view.unseen)
    for seed in range(5):
        assert sorted(Hand.from_view(view, random.Random(seed)).hands[1]) == shown
    hand.apply(next(m for m in hand.legal_moves() if m.card == shown[0]))
    assert hand.view(0).shown == ((), tuple(shown[1:])) and hand.to_json()["shown"] == [[], ["2d", "3d"]]


def test_a_snapshot_keeps_the_declarations():
    """to_json/from_json, the view and a clone carry each side's declarations so far."""
    rules = declaring()
    hand = deal(rules, 2, 0, "4♣ 5♥ 6♠ R♣", "S♦ C♦ R♦", "1♦ 2♦ 3♦")
    data = hand.to_json()
    assert data["declared"] == [[0, 0, 0], [0, 1, 0]] and data["shown"] == [[], ["1d", "2d", "3d"]]
    again = Hand.from_json(rules, data)
    assert again.to_json() == data and again.declared == hand.declared
    assert hand.view(0).declared == ((0, 0, 0), (0, 1, 0)) and hand.clone().declared == hand.declared
    assert "declared" not in Hand(base_with(), 2, 0, seed=1).to_json()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"award": {"policy": "most"}}, "a category measured on dealt cards scores per declaration: award per_unit, not most"),
        ({"measure": "escobas > 0"}, "'escobas' is not known when the cards are dealt"),
    ],
)
def test_a_declaration_is_per_unit_and_sees_only_the_dealt_cards(tmp_path, change, message):
    """A category measured on dealt cards has a per_unit award, and its measure cannot read
    escobas or the hand's history (nothing has been played)."""
    import yaml

    from escoba.rules import check

    category = {**LOW, "measure": "count(cards) == 3", **change}
    path = tmp_path / "t.yaml"
    doc = {"dsl": 1, "id": "t", "kind": "house", "extends": "base", "scoring": {"categories": [category]}}
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    found = [str(p) for p in check(str(path))]
    assert any(message in p for p in found), found


def test_the_wild_card_must_be_a_card(tmp_path):
    """deck.declaration_wild names a card of the deck."""
    from escoba.rules import check

    path = tmp_path / "t.yaml"
    path.write_text("dsl: 1\nid: t\nkind: house\nextends: base\ndeck:\n  declaration_wild: 7 cups\n", encoding="utf-8")
    assert any("$.deck.declaration_wild: no card '7 cups' in the deck" in str(p) for p in check(str(path)))
