"""The search bot's playouts on the fused path (`escoba.engine.fused`) are the `Hand` playouts.

`escoba.engine.search` plays each playout out with a light greedy policy (or at random) up to
a horizon, then scores the position, on `Hand`; `search(..., fused_playouts=True)` runs the
playouts on the fused loop instead. Here both are run from the
same positions with generators in the same state: the leads must be equal to the last bit, the
generators must end in the same state (the same draws were made), and the state must be left
as it was. Then whole searches must choose the same move.
"""

from __future__ import annotations

import random

import pytest

import escoba
from escoba.engine import fused, search
from escoba.engine.hand import Hand, shuffled_decks
from escoba.engine.worth import worth_of

# card-, hand-level and optional compulsory capture, jokers, partnerships, no escoba on the last play
RULESETS = ["base", "sv", "fr", "de", "de-jokers", "ru", "last-play-no-escoba"]


def positions(rules, players: int, count: int, seed: int):
    """`count` positions part way through random hands, with the stock size a search would
    take as its horizon (a few plays earlier, as the tree's moves come before the playout)."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        hand = Hand(rules, players, len(found) % players, shuffled_decks(rules, rng), record=False)
        stop = rng.randrange(0, 40)
        horizon = hand.stock_size
        while hand.to_play is not None and hand.plays < stop:
            if rng.random() < 0.3:
                horizon = hand.stock_size
            moves = hand.legal_moves()
            hand.apply(moves[rng.randrange(len(moves))])
        found.append((hand, horizon if rng.random() < 0.8 else hand.stock_size + 1))
    return found


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("policy", ["greedy", "random"])
def test_fused_playouts_give_the_leads_of_hand_playouts(ruleset, policy):
    """From 60 positions per player count, the fused playout and the Hand playout give the same
    leads, draw the same numbers, and leave the position unchanged."""
    rules = escoba.load_ruleset(ruleset)
    kernel = fused.fused(rules)
    assert kernel is not None
    for players in rules.player_counts:
        worth = worth_of(rules, len(rules.sides(players)))
        evaluate = search._Evaluate(worth, len(rules.sides(players)))
        for k, (hand, horizon) in enumerate(positions(rules, players, 60, seed=players * 100)):
            fast_rng, slow_rng = random.Random(k), random.Random(k)
            if policy == "greedy":
                prefer = search._preference(worth)
                reference = search._greedy_playout(prefer, evaluate)
                greedy = fused.Greedy(kernel, worth.card, worth.escoba)
            else:
                reference, greedy = search._random_playout(slow_rng, evaluate), None
            fast = search._fused_playout(kernel, greedy, fast_rng, evaluate, search._random_playout(fast_rng, evaluate))
            before = hand.to_json()
            got = fast(hand, horizon)
            assert hand.to_json() == before
            expected = reference(hand.clone(), horizon)
            assert got == expected, (ruleset, players, k)
            assert fast_rng.getstate() == slow_rng.getstate(), (ruleset, players, k)


@pytest.mark.parametrize("ruleset", ["sv", "fr", "de-jokers"])
def test_a_search_chooses_the_same_move_either_way(ruleset):
    """search(…, fused_playouts=True) and search(…) on Hand choose the same move from the same seed,
    with greedy and with random playouts, and leave their generators in the same state."""
    rules = escoba.load_ruleset(ruleset)
    for players in (2, 4):
        for k, (hand, _) in enumerate(positions(rules, players, 4, seed=7 + players)):
            if hand.to_play is None:
                continue
            for policy in ("greedy", "random"):
                a, b = random.Random(k), random.Random(k)
                fast = search.search(hand, hand.to_play, a, playouts=40, playout=policy, fused_playouts=True)
                slow = search.search(hand, hand.to_play, b, playouts=40, playout=policy)
                assert fast == slow and a.getstate() == b.getstate(), (ruleset, players, k, policy)


def test_the_greedy_chooser_picks_what_the_greedy_policy_picks():
    """Greedy.choose's move is search._preference's choice among Hand.legal_moves(), position by
    position, under the three compulsory-capture rules."""
    for ruleset in ("base", "fr", "ru", "de-jokers"):
        rules = escoba.load_ruleset(ruleset)
        kernel = fused.fused(rules)
        assert kernel is not None
        worth = worth_of(rules, 2)
        prefer, greedy = search._preference(worth), fused.Greedy(kernel, worth.card, worth.escoba)
        for hand, _ in positions(rules, 2, 150, seed=3):
            if hand.to_play is None:
                continue
            expected = prefer(hand, hand.legal_moves())
            trace: list = []
            kernel.playout(hand, random.Random(0), trace, greedy)  # the first move is the one compared
            seat, card, take = trace[0]
            assert (seat, card, take) == (hand.to_play, expected.card, tuple(expected.take)), ruleset
