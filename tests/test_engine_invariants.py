"""Invariants over thousands of seeded hands, for every bundled ruleset and player count."""

from __future__ import annotations

import json

import pytest

import escoba
from escoba.engine.bots import greedy_bot, random_bot
from escoba.engine.hand import Hand
from escoba.engine.match import Match
from escoba.errors import IllegalMoveError
from escoba.game.moves import Move
from escoba.rules import bundled_ids

HANDS_PER_CASE = 120  # × every bundled ruleset and player count: a few thousand hands in all

CASES = [(rid, n) for rid in bundled_ids() for n in escoba.load_ruleset(rid).player_counts]


def conserved(hand: Hand) -> bool:
    held = hand.stock + hand.table + hand.set_aside + [c for h in hand.hands for c in h] + [c for p in hand.piles for c in p]
    return sorted(held) == list(hand.rules.deck.cards)


@pytest.mark.parametrize("ruleset, players", CASES)
def test_every_step_keeps_the_deck_whole_and_every_capture_makes_its_sum(ruleset, players):
    """Cards are conserved at every step; every legal capture makes the target exactly (or, where
    capture.kinds says so, the played card's value, or is the whole table taken by a card of a
    `sum: table` kind)."""
    rules = escoba.load_ruleset(ruleset)
    for seed in range(HANDS_PER_CASE):
        hand = Hand(rules, players, seed % players, seed=seed)
        bot = (random_bot if seed % 2 else greedy_bot)(seed)
        assert conserved(hand)
        while not hand.is_over:
            for m in hand.legal_moves():
                if m.take:
                    whole = rules.finder.whole_table(m.card, hand.table)
                    assert rules.finder.fits(m.card, m.take) if whole is None else tuple(sorted(m.take)) == whole
            hand.apply(bot(hand))
            assert conserved(hand)
        assert hand.points == [sum(s.points[side] for s in hand.scores) for side in range(hand.sides)]
        score_events = [e for e in hand.events if e["event"] == "score"]
        assert [sum(e["points"][side] for e in score_events) for side in range(hand.sides)] == hand.points


@pytest.mark.parametrize("ruleset", bundled_ids())
def test_an_illegal_move_raises_and_changes_nothing(ruleset):
    """Playing a card from another hand, or a non-capture where capture is forced, is refused."""
    rules = escoba.load_ruleset(ruleset)
    players = rules.player_counts[0]
    for seed in range(30):
        hand = Hand(rules, players, 0, seed=seed)
        bot = random_bot(seed)
        while not hand.is_over:
            before = json.dumps(hand.to_json())
            other = (hand.to_play + 1) % players
            if hand.hands[other]:
                with pytest.raises(IllegalMoveError):
                    hand.apply(Move(hand.hands[other][0], ()))
            legal = set(hand.legal_moves())
            for card in hand.hands[hand.to_play]:
                if Move(card, ()) not in legal:
                    with pytest.raises(IllegalMoveError, match="compulsory"):
                        hand.apply(Move(card, ()))
            assert json.dumps(hand.to_json()) == before
            hand.apply(bot(hand))


@pytest.mark.parametrize("ruleset", bundled_ids())
def test_the_same_seed_gives_the_same_game(ruleset):
    """Two matches from one seed with seeded bots produce identical events."""
    rules = escoba.load_ruleset(ruleset)

    def run():
        match = Match(rules, rules.player_counts[0], seed=11)
        bot = greedy_bot(5)
        events = []
        while not match.is_over:
            hand = match.new_hand()
            while not hand.is_over:
                hand.apply(bot(hand))
            events += hand.events + match.end_hand()
        return events

    assert run() == run()


@pytest.mark.parametrize("ruleset", bundled_ids())
def test_json_snapshots_round_trip_exactly(ruleset):
    """to_json → from_json → to_json is the identity at every step, and play continues alike."""
    rules = escoba.load_ruleset(ruleset)
    players = max(rules.player_counts)
    hand = Hand(rules, players, 1, seed=4)
    bot = random_bot(9)
    while not hand.is_over:
        snapshot = hand.to_json()
        copy = Hand.from_json(rules, json.loads(json.dumps(snapshot)))
        assert copy.to_json() == snapshot
        assert copy.legal_moves() == hand.legal_moves()
        chosen = bot(hand)
        hand.apply(chosen)
        copy.apply(chosen)
        assert copy.to_json() == hand.to_json()
    assert Hand.from_json(rules, hand.to_json()).to_json() == hand.to_json()
