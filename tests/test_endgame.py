"""Exact play once every card is known (`escoba.engine.bots.endgame`).

The compact solver plays the rules on tuples and bitmasks; the reference plays them on `Hand`.
Here both solve the same positions of every bundled ruleset (the last rounds of seeded hands,
and every later position of them), and each is held to a plain minimax written in this file,
which plays the moves on `Hand` with no table of solved positions: the values and the chosen
moves must be the same.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

import escoba
from escoba.engine.bots import endgame, greedy_bot, random_bot
from escoba.engine.hand import Hand
from escoba.rules import bundled_ids

CASES = [(rid, n) for rid in bundled_ids() for n in escoba.load_ruleset(rid).player_counts]


def known_positions(ruleset, players: int, hands: int, seed: int = 0) -> list[Hand]:
    """Every position of seeded hands (greedy and random seats) in which the seat to play knows
    where every card is, as `known_hand` rebuilds it from the seat's view."""
    rules = escoba.load_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    found = []
    for k in range(hands):
        hand = Hand(rules, players, k % players, seed=seed * 1000 + k, record=False)
        bots = [(greedy_bot if (k + s) % 2 else random_bot)(k * 10 + s) for s in range(players)]
        while hand.to_play is not None:
            known = endgame.known_hand(hand.view(hand.to_play))
            if known is not None:
                found.append(known)
            hand.apply(bots[hand.to_play](hand))
    return found


def minimax(state: Hand) -> tuple[tuple[float, ...], object]:
    """Each side's lead under exact play, and the first best move: every line played on `Hand`."""
    if state.points is not None:
        points = state.points
        total = sum(points)
        return tuple(p - (total - p) / (len(points) - 1) for p in points), None
    side = state.side_of[state.to_play]
    best, chosen = None, None
    for move in state.legal_moves():
        after = state.clone()
        after.apply(move)
        leads, _ = minimax(after)
        if best is None or leads[side] > best[side]:
            best, chosen = leads, move
    return best, chosen


@pytest.mark.parametrize("ruleset, players", CASES)
def test_both_solvers_give_the_values_and_moves_of_a_plain_minimax(ruleset, players):
    """On positions where every card is known, the compact solver (when it plays the ruleset)
    and the reference solver give the leads and the move of a minimax over `Hand`."""
    rules = escoba.load_ruleset(ruleset)
    positions = known_positions(ruleset, players, hands=6 if players == 2 else 12)
    assert positions, "no position with every card known"
    for state in positions:
        expected = minimax(state)
        endgame._memos.clear()
        reference = endgame._HandSolver(endgame._Memo().table).root(state)
        assert reference == expected, (ruleset, players, state.to_json())
        if endgame.compact_plays(rules):
            compact = endgame._Solver(rules, players, state.dealer, endgame._Memo()).root(state)
            assert compact == expected, (ruleset, players, state.to_json())


def test_a_sweep_with_ones_last_card_that_is_no_escoba():
    """capture.escoba_on_last_card: false (no bundled ruleset has it): the compact solver still
    gives the plain minimax's values and moves, and they differ from da's somewhere."""
    da = escoba.load_ruleset("da")
    rules = dataclasses.replace(da, escoba_on_last_card=False)
    assert endgame.compact_plays(rules)
    differ = 0
    for state in known_positions(rules, 2, hands=12, seed=5):
        expected = minimax(state)
        assert endgame._Solver(rules, 2, state.dealer, endgame._Memo()).root(state) == expected
        as_da = Hand.from_json(da, state.to_json(), record=False)
        differ += minimax(as_da)[0] != expected[0]
    assert differ


def test_a_sampled_solve_of_a_known_hand_is_its_exact_solve():
    """When every card is known, every sampled deal is the hand itself: sampled_move gives
    best_move's move."""
    for state in known_positions("sv", 2, hands=5, seed=7):
        view = state.view(state.to_play)
        moves = state.legal_moves()
        assert endgame.sampled_move(view, moves, random.Random(1), 3) == endgame.best_move(state)


def test_the_solvers_agree_with_their_tables_kept():
    """Solving the positions of many hands one after another, with the shared tables kept from
    one to the next (as bots use them), gives the moves of solvers that start empty."""
    for ruleset in ("da", "fr", "scopa", "de-jokers", "cirulla"):
        rules = escoba.load_ruleset(ruleset)
        positions = known_positions(ruleset, 2, hands=15, seed=3)
        endgame._memos.clear()
        kept = [endgame.best_move(state) for state in positions]
        fresh = []
        for state in positions:
            endgame._memos.clear()
            fresh.append(endgame.best_move(state))
        assert kept == fresh, ruleset
        # Scopa's three kings redealt and Cirulla's declarations and opening tables are points the
        # compact solver does not list: the reference solver plays those two.
        assert endgame.compact_plays(rules) == (ruleset not in ("scopa", "cirulla")), ruleset


def test_history_rulesets_are_solved_by_the_reference():
    """A ruleset whose measures read the hand's history is not played by the compact solver,
    and a ruleset with a field the solver does not know is not either."""
    history = [rid for rid in bundled_ids() if escoba.load_ruleset(rid).needs_history]
    assert history  # e.g. seven-escobas-double, last-capture-point
    for rid in history:
        assert not endgame.compact_plays(escoba.load_ruleset(rid))
    assert endgame.compact_plays(escoba.load_ruleset("da"))

    @dataclasses.dataclass(frozen=True)
    class Later(type(escoba.load_ruleset("da"))):  # a rule point added after the solver
        escoba_on_first_play_double: bool = True

    assert Later.escoba_on_first_play_double
    later = Later(**{f.name: getattr(escoba.load_ruleset("da"), f.name) for f in dataclasses.fields(escoba.load_ruleset("da"))})
    assert not endgame.compact_plays(later)


def test_what_the_solver_plays_is_said_by_rule_point(monkeypatch):
    """PLAYED names rule points of the registry; a point it does not name (as a point added
    after the solver) is played at its default only: a ruleset away from that default goes to
    the reference. Shown by leaving capture.escoba_on_last_card out of PLAYED."""
    from escoba.rules.points.catalogue import SECTION_POINTS

    assert set(endgame.PLAYED) <= {rule.key for rule in SECTION_POINTS}
    rules = escoba.load_ruleset("da")
    assert rules.escoba_on_last_card  # the point's default
    departing = dataclasses.replace(rules, escoba_on_last_card=False)
    assert endgame.compact_plays(rules) and endgame.compact_plays(departing)
    monkeypatch.delitem(endgame.PLAYED, "capture.escoba_on_last_card")
    assert endgame.compact_plays(rules) and not endgame.compact_plays(departing)


def test_known_hand_is_the_real_hand_and_only_when_it_can_be():
    """At two players the last round's known hand is the real hand (as `to_json` says); before
    the stock is empty, or at four players while two hidden hands hold cards, there is none."""
    rules = escoba.load_ruleset("sv")
    hand = Hand(rules, 2, 0, seed=11, record=False)
    bot = random_bot(2)
    seen_known = 0
    while hand.to_play is not None:
        known = endgame.known_hand(hand.view(hand.to_play))
        assert (known is not None) == (hand.stock_size == 0)
        if known is not None:
            assert known.to_json() | {"stock": []} == hand.to_json() | {"stock": []}
            seen_known += 1
        hand.apply(bot(hand))
    assert seen_known >= 3
    four = Hand(escoba.load_ruleset("de"), 4, 0, seed=5, record=False)
    bot = random_bot(5)
    while four.to_play is not None:
        view = four.view(four.to_play)
        holding = [s for s in range(4) if s != four.to_play and four.hands[s]]
        if endgame.known_hand(view) is not None:
            assert four.stock_size == 0 and len(holding) <= 1
        elif four.stock_size == 0:
            assert len(holding) >= 2
        four.apply(bot(four))


def test_a_position_worked_out_by_hand():
    """fr (capture optional), two players, stock empty, the other 36 cards split 18 and 18.
    Seat 0 holds 5♦, seat 1 holds 3♣, the table 10♦ (R♦) and 7♥. Taking R♦ (5 + 10) leaves 7♥,
    which 3♣ cannot take (10): seat 1 places it and seat 0, the last capturer, gets the
    leftovers, all four cards. Placing 5♦ instead lets 3♣ take 7♥ and 5♦ (15), and seat 1 then
    gets R♦ as leftovers. Four more cards win seat 0 the cards point (22 to 18) and more: the
    solver takes R♦."""
    rules = escoba.load_ruleset("fr")
    card = rules.deck.card
    mine, theirs, table = card("5 oros"), card("3 bastos"), [card("R oros"), card("7 copas")]
    rest = [c for c in rules.deck.cards if c not in {mine, theirs, *table}]
    state = Hand.assemble(rules, 2, 1, hands=[[mine], [theirs]], table=list(table), piles=[rest[0::2], rest[1::2]],
                          escobas=[0, 0], set_aside=[], stock=[], last_capturer=1, to_play=0, plays=36,
                          record=False)  # fmt: skip
    assert endgame.best_move(state) == (mine, (card("R oros"),))
    taken, placed = state.clone(), state.clone()
    taken.apply((mine, (card("R oros"),)))
    placed.apply((mine, ()))
    assert endgame.exact_leads(taken)[0] > endgame.exact_leads(placed)[0]
    assert endgame.exact_leads(state) == minimax(state)[0]
