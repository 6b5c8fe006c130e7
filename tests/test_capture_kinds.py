"""Capture kinds (`capture.kinds`): what a played card may take is the ruleset's choice.

Each rule is stated as a change to the neutral base, so the tests read like the rule: Scopa's
equal-value capture with a single card first, Cirulla's simple capture (fewest cards) beside
the capture to 15, and Escoba's default, which must stay exactly what it was.
"""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from escoba.engine.hand import Hand
from escoba.errors import IllegalMoveError
from escoba.game.capture import CaptureFinder
from escoba.rules.compile import capture_kinds
from escoba.transcript.record import reason_class
from rulebook import base_with, cards, deal, move
from test_engine_rules import moves_text

SCOPA = [{"sum": "card", "priority": "single_card"}]
CIRULLA = [{"sum": "card", "priority": "fewest_cards"}, {"sum": "target"}]


def captures_of(hand: Hand, card: str) -> list[str]:
    return [m for m in moves_text(hand) if m.startswith(card + " x")]


# --------------------------------------------------------------------------- the kinds


def test_default_kind_is_escobas_sum_to_the_target():
    """Left out, capture.kinds is one kind, card + taken = target, and the finder's fast path."""
    rules = base_with()
    assert rules.capture_kinds == (("target", "none"),)
    assert capture_kinds({"target": 15}) == (("target", "none"),)
    assert rules.finder.simple


def test_card_kind_takes_an_equal_card_or_cards_summing_to_its_value():
    """sum: card (Scopa): a 7 takes a 7, or 3 + 4, never cards making 15 with it."""
    rules = base_with(capture__kinds=[{"sum": "card"}])
    hand = deal(rules, 2, 1, "7♣ 3♥ 4♠ S♦", "7♦ R♦ 1♦", "2♦ 3♦ 4♦")
    assert captures_of(hand, "7♦") == ["7♦ x 3♥ 4♠", "7♦ x 7♣"]
    assert captures_of(hand, "R♦") == ["R♦ x 3♥ 7♣"]  # 10 = 3 + 7; S♦ + 7 = 15 is not a capture here
    assert captures_of(hand, "1♦") == []


def test_single_card_first_keeps_combinations_back_when_an_equal_card_lies():
    """priority single_card: a 7 facing a 7 and 3 + 4 must take the 7; facing only 3 + 4 it takes them."""
    rules = base_with(capture__kinds=SCOPA)
    hand = deal(rules, 2, 1, "7♣ 3♥ 4♠ S♦", "7♦ R♦ 1♦", "2♦ 3♦ 4♦")
    assert captures_of(hand, "7♦") == ["7♦ x 7♣"]
    assert captures_of(hand, "R♦") == ["R♦ x 3♥ 7♣"]  # no 10 on the table: the combination stands
    illegal = move(rules, "7♦ x 3♥ 4♠")
    with pytest.raises(IllegalMoveError) as caught:
        hand.apply(illegal)
    assert str(caught.value.args[0]) == "7♦ must take a single card first: it can take 7♣, not 3♥ 4♠"
    assert reason_class(hand, illegal) == "priority"


def test_fewest_cards_keeps_only_the_shortest_combinations():
    """priority fewest_cards: a caballo (9) on 1 8 4 5 3 takes 1 + 8 or 4 + 5, not 1 + 3 + 5."""
    rules = base_with(capture__kinds=[{"sum": "card", "priority": "fewest_cards"}], deal__table_size=5,
                      opening_table__action="none")
    hand = deal(rules, 2, 1, "1♣ S♣ 4♥ 5♠ 3♠", "C♦ 1♦ 2♦", "3♦ 4♦ 5♦", rest="")
    assert captures_of(hand, "C♦") == ["C♦ x 4♥ 5♠", "C♦ x 1♣ S♣"]


def test_two_kinds_each_keep_their_own_priority():
    """Cirulla: 7 on 3 5 6 7 takes the 7 (its simple capture, fewest cards) or 3 + 5 (15 with the 7)."""
    rules = base_with(capture__kinds=CIRULLA, opening_table__action="none")
    hand = deal(rules, 2, 1, "3♣ 5♥ 6♠ 7♣", "7♦ 1♦ 2♦", "3♦ 4♦ 5♦")
    assert captures_of(hand, "7♦") == ["7♦ x 5♥ 3♣", "7♦ x 7♣"]
    with pytest.raises(IllegalMoveError) as caught:
        hand.apply(move(rules, "7♦ x 3♣ 6♠"))
    assert str(caught.value.args[0]) == "6♠ 3♣ make 9, not 7 (the value of 7♦); 7♦ 6♠ 3♣ make 16, not 15"


def test_a_wrong_sum_names_the_card_value_it_missed():
    """A take that makes no kind's sum is a wrong sum, refused with the sum it should make."""
    rules = base_with(capture__kinds=SCOPA)
    hand = deal(rules, 2, 1, "7♣ 3♥ 4♠ S♦", "7♦ R♦ 1♦", "2♦ 3♦ 4♦")
    wrong = move(rules, "R♦ x 3♥ 4♠")
    assert hand.why_illegal(wrong) == "3♥ 4♠ make 7, not 10 (the value of R♦)"
    assert reason_class(hand, wrong) == "wrong_sum"


def test_compulsory_capture_uses_the_kinds():
    """Card-level compulsory capture: a 7 that can take a 7 by value may not be placed."""
    rules = base_with(capture__kinds=SCOPA, capture__compulsory="card")
    hand = deal(rules, 2, 1, "7♣ 3♥ 4♠ S♦", "7♦ R♦ 1♦", "2♦ 3♦ 4♦")
    assert "7♦" not in moves_text(hand) and "1♦" in moves_text(hand)
    assert hand.why_illegal(move(rules, "7♦")) == "capture is compulsory: 7♦ can take 7♣"


# --------------------------------------------------------------------------- the whole table

ACES = {"sum": "table", "ranks": ["1"]}


def test_a_table_kind_card_takes_the_whole_table_and_nothing_else():
    """sum: table: an ace takes every card on the table, whatever they add up to, and that is its
    one capture (not 1 + 4 making 15 as well); the other cards capture as before."""
    rules = base_with(capture__kinds=[{"sum": "target"}, ACES], opening_table__action="none")
    hand = deal(rules, 2, 1, "4♣ R♥ 6♠ 3♣", "1♦ 5♦ 2♦", "3♦ 4♦ 7♦")
    assert captures_of(hand, "1♦") == ["1♦ x R♥ 6♠ 3♣ 4♣"]
    assert captures_of(hand, "5♦") == ["5♦ x R♥", "5♦ x 6♠ 4♣"]
    events = hand.apply(move(rules, "1♦ x 4♣ R♥ 6♠ 3♣"))
    assert [e["event"] for e in events] == ["play", "escoba"]  # a sweep, and by default an escoba
    wrong = move(rules, "1♦ x R♥ 4♣")
    hand = deal(rules, 2, 1, "4♣ R♥ 6♠ 3♣", "1♦ 5♦ 2♦", "3♦ 4♦ 7♦")
    assert hand.why_illegal(wrong) == "1♦ takes the whole table (R♥ 6♠ 3♣ 4♣), not R♥ 4♣"
    assert reason_class(hand, wrong) == "priority"


def test_a_card_of_its_rank_on_the_table_stops_it_with_unless_same_rank():
    """unless_same_rank: with an ace on the table the ace captures by the other kinds (here the
    ace alone, by value); without it the ace still takes everything."""
    kinds = [{"sum": "card", "priority": "single_card"}, {**ACES, "unless_same_rank": True}]
    rules = base_with(capture__kinds=kinds, opening_table__action="none")
    hand = deal(rules, 2, 1, "1♣ R♥ 6♠ 3♣", "1♦ 5♦ 2♦", "3♦ 4♦ 7♦")
    assert captures_of(hand, "1♦") == ["1♦ x 1♣"]
    assert hand.why_illegal(move(rules, "1♦ x 1♣ R♥ 6♠ 3♣")) == (
        "R♥ 6♠ 1♣ 3♣ make 20, not 1 (the value of 1♦); 1♦ takes the whole table only when no card of its rank lies there"
    )
    always = base_with(capture__kinds=[kinds[0], ACES], opening_table__action="none")
    hand = deal(always, 2, 1, "1♣ R♥ 6♠ 3♣", "1♦ 5♦ 2♦", "3♦ 4♦ 7♦")
    assert captures_of(hand, "1♦") == ["1♦ x R♥ 6♠ 1♣ 3♣"]


def test_escoba_false_takes_the_table_but_scores_no_escoba():
    """escoba: false: the whole table is taken, no escoba follows; a sweep by another kind
    (the ace taking the lone ace by value) still is one."""
    kinds = [{"sum": "card", "priority": "single_card"}, {**ACES, "unless_same_rank": True, "escoba": False}]
    rules = base_with(capture__kinds=kinds, opening_table__action="none")
    hand = deal(rules, 2, 1, "4♣ R♥ 6♠ 3♣", "1♦ 5♦ 2♦", "3♦ 4♦ 7♦")
    assert [e["event"] for e in hand.apply(move(rules, "1♦ x 4♣ R♥ 6♠ 3♣"))] == ["play"]
    assert hand.escobas == [0, 0]
    ace, lone = cards(rules, "1♦ 1♣")  # the ace alone on the table: taking it by value clears it
    rest = [c for c in rules.deck.cards if c not in (ace, lone)]
    hand = Hand.assemble(rules, 2, 1, hands=[rest[:2], [ace]], table=[lone], piles=[rest[2:], []], escobas=[0, 0],
                         set_aside=[], stock=[], last_capturer=None, to_play=1, plays=0)  # fmt: skip
    assert [e["event"] for e in hand.apply(move(rules, "1♦ x 1♣"))] == ["play", "escoba"]


def test_the_table_kind_needs_its_ranks_and_a_kind_that_sums(tmp_path):
    """A table kind without ranks, with a priority, or alone, and a rank the deck lacks, are
    located problems; ranks belong to the table kind only."""
    from escoba.rules import check

    def problems(kinds: str) -> list[str]:
        path = tmp_path / "t.yaml"
        path.write_text(f"dsl: 1\nid: t\nkind: house\nextends: base\ncapture:\n  kinds: {kinds}\n", encoding="utf-8")
        return [str(p) for p in check(str(path))]

    assert any("names the ranks" in p for p in problems("[{sum: target}, {sum: table}]"))
    assert any("no priority" in p for p in problems("[{sum: target}, {sum: table, ranks: [1], priority: none}]"))
    assert any("needs a kind that sums" in p for p in problems("[{sum: table, ranks: [1]}]"))
    assert any("no rank 'as'" in p for p in problems("[{sum: target}, {sum: table, ranks: [as]}]"))
    assert any("'ranks' belongs to a 'sum: table' kind" in p for p in problems("[{sum: target, ranks: [1]}]"))
    assert problems("[{sum: target}, {sum: table, ranks: [A, rey]}]") == []


# --------------------------------------------------------------------------- against a brute force


def _brute(value: list[int], target: int, kinds, card: int, table: list[int]) -> list[tuple[int, ...]]:
    found: set[tuple[int, ...]] = set()
    for total, priority in kinds:
        need = target - value[card] if total == "target" else value[card]
        subsets = [s for k in range(1, len(table) + 1) for s in combinations(sorted(table), k)
                   if sum(value[c] for c in s) == need]
        if subsets and priority == "single_card" and any(len(s) == 1 for s in subsets):
            subsets = [s for s in subsets if len(s) == 1]
        if subsets and priority == "fewest_cards":
            subsets = [s for s in subsets if len(s) == min(map(len, subsets))]
        found.update(subsets)
    return sorted(found)


@pytest.mark.parametrize("kinds", [
    (("target", "none"),),
    (("card", "none"),),
    (("card", "single_card"),),
    (("card", "fewest_cards"),),
    (("target", "fewest_cards"),),
    (("card", "fewest_cards"), ("target", "none")),
    (("target", "single_card"), ("card", "none")),
])
def test_every_kind_agrees_with_a_brute_force_over_every_subset(kinds):
    """On random tables of up to 10 cards, captures by kind equal a search over every subset."""
    rules = base_with()
    value = list(rules.deck.value)
    finder = CaptureFinder(value, [False] * 40, 15, 1, 10, kinds)
    rng = random.Random(14)
    for _ in range(150):
        chosen = rng.sample(range(40), rng.randrange(1, 12))
        card, table = chosen[0], chosen[1:]
        assert finder.captures(card, table) == _brute(value, 15, kinds, card, table)


def test_the_generic_path_gives_the_fast_path_answer_for_the_default_kind():
    """Escoba's kind through by_kinds (the several-kinds path) equals the single-lookup path."""
    finder = base_with().finder
    rng = random.Random(7)
    for _ in range(200):
        chosen = rng.sample(range(40), rng.randrange(2, 12))
        card, table = chosen[0], chosen[1:]
        assert finder.by_kinds(card, finder.sums(table, finder.limit)) == finder.captures(card, table)
