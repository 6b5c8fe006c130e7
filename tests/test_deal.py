"""The deal convention (escoba.engine.deal): pinned by hand, and the one convention every dealer uses."""

from __future__ import annotations

import random

import pytest

import escoba
from escoba.engine.arrange import arrange_deck
from escoba.engine.deal import deal_plan, dealing_order, order_for
from escoba.engine.hand import Hand
from escoba.rules import bundled_ids


def test_base_deals_the_hands_from_the_leader_then_the_table():
    """base, 3 players, dealer 0: seat 1 (the dealer's right) leads and gets the top packet,
    then seat 2, then the dealer; the table comes after the hands."""
    rules = escoba.load_ruleset("base")
    order = list(range(40))
    plan = deal_plan(rules, 3, 0, order)
    assert plan.rounds[0] == ((6, 7, 8), (0, 1, 2), (3, 4, 5))
    assert plan.table == (9, 10, 11, 12)
    assert plan.rounds[1] == ((19, 20, 21), (13, 14, 15), (16, 17, 18))
    assert len(plan.rounds) == 4  # the 36 cards left after the table: four rounds of 3 × 3


def test_sv_turns_the_table_first_and_deals_the_leader_then_the_dealer_then_the_rest():
    """sv, 3 players, dealer 0: the table is turned first; the dealer's left (seat 2) leads and
    is dealt first, then the dealer (seat 0), then seat 1: the dealer is not dealt last."""
    rules = escoba.load_ruleset("sv")
    assert dealing_order(rules, 3, 0) == [2, 0, 1]
    plan = deal_plan(rules, 3, 0, list(range(40)))
    assert plan.table == (0, 1, 2, 3)
    assert plan.rounds[0] == ((7, 8, 9), (10, 11, 12), (4, 5, 6))


def test_a_short_last_round_goes_out_a_card_at_a_time_from_the_leader():
    """de-jokers, 2 players (42 cards): after six full rounds the last two cards go one each,
    the leader (seat 1, the dealer's right) first."""
    rules = escoba.load_ruleset("de-jokers")
    plan = deal_plan(rules, 2, 0, list(range(42)))
    assert [len(r[0]) for r in plan.rounds] == [3, 3, 3, 3, 3, 3, 1]
    assert plan.rounds[-1] == ((41,), (40,))


@pytest.mark.parametrize("ruleset", bundled_ids())
def test_the_engine_deals_what_the_plan_says_and_order_for_inverts_it(ruleset):
    """For every bundled ruleset, player count and dealer: a Hand deals exactly deal_plan's
    table and first round, and order_for gives the deck order back."""
    rules = escoba.load_ruleset(ruleset)
    rng = random.Random(ruleset)
    for players in rules.player_counts:
        for dealer in range(players):
            order = list(rules.deck.cards)
            rng.shuffle(order)
            plan = deal_plan(rules, players, dealer, order)
            assert order_for(rules, players, dealer, plan) == order
            try:
                hand = Hand(rules, players, dealer, [order])
            except escoba.EscobaError:  # a redeal was asked for: the deal is still checked above
                continue
            assert hand.events is not None
            table = next(e for e in hand.events if e["event"] == "table")
            deal = next(e for e in hand.events if e["event"] == "deal")
            assert table["cards"] == rules.deck.codes(plan.table)
            assert deal["hands"] == [rules.deck.codes(h) for h in plan.rounds[0]]


def test_arrange_deck_deals_the_position_it_is_given():
    """arrange_deck's order deals the table and hands it names, under a table-first ruleset too."""
    for ruleset in ("base", "sv"):
        rules = escoba.load_ruleset(ruleset)
        order = arrange_deck(rules, 3, 1, ["1♦", "2♦", "3♦", "4♦"], [[["5♦", "6♦", "7♦"], ["S♦", "C♦", "R♦"], ["1♥", "2♥", "3♥"]]])
        plan = deal_plan(rules, 3, 1, order)
        assert rules.deck.texts(plan.table) == ["1♦", "2♦", "3♦", "4♦"]
        assert [rules.deck.texts(h) for h in plan.rounds[0]] == [["5♦", "6♦", "7♦"], ["S♦", "C♦", "R♦"], ["1♥", "2♥", "3♥"]]
