"""The fused path's captures (`Fused._captures_on`) are `CaptureFinder.captures`' on any table.

The fused loop (escoba/engine/fused.py) remembers, for each multiset of table values, what a card
of each value takes, as masks of table positions, found from the table's subsets by total; with
jokers or capture kinds other than Escoba's it works them out itself (`Fused._by_finder`) rather
than asking the finder. Here decks with no, one or two jokers, a zero-valued rank, other targets
and every capture kind and priority (the whole table taken by the aces too) are dealt random tables, and each value's captures are
compared, as sets of cards, with what `CaptureFinder.captures` gives a card of that value; then
whole hands of such rulesets are played both ways, move by move, which also checks the order the
loop draws a capture in when one capture holds another (a joker on 5 takes 5, and 5 with the
joker; a 4 on 1 3 7 takes 1 3 by value and 1 3 7 to 15).
"""

from __future__ import annotations

import copy
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.test_fused import _reference

from escoba.engine.fused import _POSITIONS, Fused, fallback_reason
from escoba.rules import load_resolved
from escoba.rules.compile import compile_rules

DEFAULT = [{"sum": "target"}]
KINDS = [
    DEFAULT,
    [{"sum": "card"}],
    [{"sum": "card", "priority": "single_card"}],
    [{"sum": "card", "priority": "fewest_cards"}, {"sum": "target"}],
    [{"sum": "target", "priority": "fewest_cards"}],
    [{"sum": "target", "priority": "single_card"}, {"sum": "card"}],
    # the whole table, taken by the aces (and the kings): with and without the same rank's stop
    [{"sum": "card", "priority": "single_card"}, {"sum": "table", "ranks": ["1"], "unless_same_rank": True, "escoba": False}],
    [{"sum": "card", "priority": "fewest_cards"}, {"sum": "target"}, {"sum": "table", "ranks": ["1"], "unless_same_rank": True}],
    [{"sum": "target"}, {"sum": "table", "ranks": ["1", "rey"]}],
]
_BASE = load_resolved("de-jokers").doc  # two jokers, Spanish values 1 to 10, four players at most


@st.composite
def variants(draw: st.DrawFn) -> Fused:
    """A compiled variant of de-jokers: jokers, capture kinds, target, compulsion, a rank's value."""
    doc = copy.deepcopy(_BASE)
    kinds = draw(st.sampled_from(KINDS))
    doc["deck"]["jokers"] = draw(st.sampled_from([0, 1, 2])) if kinds == DEFAULT else 0  # (semantics.py)
    doc["capture"]["kinds"] = kinds
    doc["capture"]["target"] = draw(st.sampled_from([15, 11, 17]))
    doc["capture"]["compulsory"] = draw(st.sampled_from(["hand", "card", "optional"]))
    rank = draw(st.integers(0, len(doc["deck"]["ranks"]) - 1))
    value = draw(st.sampled_from([0, 1, 5, 12]))
    takers = {str(r) for k in kinds for r in k.get("ranks", ())}
    if not takers or {str(doc["deck"]["ranks"][rank]["id"]), *("1" if value == 1 else ())}.isdisjoint(takers):
        # (the loop knows a card by its value: a rank of the table kind keeps a value of its own)
        doc["deck"]["ranks"][rank]["value"] = value
    rules = compile_rules(doc)
    assert fallback_reason(rules) is None
    return Fused(rules)


def _cards(kernel: Fused, codes: list[int], mask: int) -> tuple[int, ...]:
    return tuple(sorted(codes[p] & kernel.card_mask for p in _POSITIONS[mask]))


@settings(max_examples=60, deadline=None)
@given(kernel=variants(), data=st.data())
def test_every_value_takes_what_the_finder_finds(kernel: Fused, data: st.DataObject) -> None:
    finder = kernel.rules.finder
    deck = list(kernel.rules.deck.cards)
    for _ in range(20):
        table = data.draw(st.lists(st.sampled_from(deck), unique=True, max_size=12), label="table")
        codes = sorted(kernel.code[c] for c in table)
        cards = [code & kernel.card_mask for code in codes]
        entry = kernel._captures_on(kernel._sig(codes), codes)
        # Moves by value key, then captures by value key (followed, when the loop searches
        # itself, by the subsets of the totals no card takes, that tables grow from).
        assert len(entry) == 2 * kernel.keys if kernel.by_finder else len(entry) == kernel.keys + finder.target + 1
        moves_of, captures = entry[: kernel.keys], entry[kernel.keys :]
        for key, card in kernel.representative.items():
            expected = finder.captures(card, cards)
            got = [_cards(kernel, codes, mask) for mask in captures[key]]
            assert sorted(got) == sorted(expected), (card, cards, finder.target, finder.value[card], [finder.value[c] for c in cards], finder.is_joker[card], finder.kinds)
            assert len(captures[key]) == len(expected)
            compulsory = kernel.rules.compulsory
            assert moves_of[key] == len(expected) + (compulsory == "optional" or (compulsory == "card" and not expected))


@settings(max_examples=25, deadline=None)
@given(kernel=variants(), seed=st.integers(0, 2**32 - 1))
def test_variants_play_the_same_hands_both_ways(kernel: Fused, seed: int) -> None:
    rules = kernel.rules
    for i in range(6):
        players = rules.player_counts[i % len(rules.player_counts)]
        hand, _, moves = _reference(rules, players, i % players, seed + i)
        trace: list = []
        out = kernel.deal_and_play(random.Random(seed + i), players, i % players, trace=trace)
        assert trace == moves
        assert out.escobas == hand.escobas
