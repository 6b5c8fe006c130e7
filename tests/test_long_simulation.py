"""Long seeded simulations: 150 hands per bundled ruleset on every run (1,000 with ESCOBA_SLOW=1 or deep), checked at every step.

tests/test_engine_invariants.py plays a few hundred recorded hands per case and checks that legal
captures make the target. This file plays many more, unrecorded (`record=False`, as simulations
run), with mixed random and greedy seats, and checks what that one does not: that the legal moves
are exactly the captures a brute-force search finds (none missing) and the placements the
compulsory rule allows, that every category's points follow from its measures by its award
policy, that match totals add up, and that replaying a seed (recorded or not) ends in the same
snapshot.
"""

from __future__ import annotations

import itertools
import json
import os

import pytest

import escoba
from escoba.engine.bots import greedy_bot, random_bot
from escoba.engine.hand import Hand
from escoba.engine.match import Match
from escoba.game.moves import Move
from escoba.rules import bundled_ids

# Spread over its player counts; 150 on every CI run (about 25 s for the 39 bundled rulesets),
# 1,000 with ESCOBA_SLOW=1 or the deep profile.
HANDS_PER_RULESET = 1000 if os.environ.get("ESCOBA_SLOW") or os.environ.get("HYPOTHESIS_PROFILE") == "deep" else 150
MATCHES_PER_RULESET = 10
REPLAY_EVERY = 25  # one hand in this many is replayed, recorded, for determinism
BRUTE_FORCE_TABLE = 8  # tables up to this size are searched exhaustively (2^8 subsets)

RULESETS = bundled_ids()


def conserved(hand: Hand) -> bool:
    held = hand.stock + hand.table + hand.set_aside
    for cards in hand.hands:
        held += cards
    for pile in hand.piles:
        held += pile
    return sorted(held) == list(hand.rules.deck.cards)


def makes_target(rules, cards) -> bool:
    """The capture rule restated: the cards' values sum to the target; each joker may stand for
    any card value."""
    deck = rules.deck
    jokers = sum(1 for c in cards if deck.is_joker(c))
    rest = rules.target - sum(deck.value[c] for c in cards if not deck.is_joker(c))
    if not jokers:
        return rest == 0
    return jokers * min(deck.rank_values) <= rest <= jokers * max(deck.rank_values)


def kind_takes(rules, total: str, card: int, take: tuple[int, ...]) -> bool:
    """One capture kind restated: `target`, the played and taken cards make the target;
    `card`, the taken cards add up to the played card's own value."""
    if total == "target":
        return makes_target(rules, (card, *take))
    return sum(rules.deck.value[c] for c in take) == rules.deck.value[card]


def takes_whole_table(rules, card: int, table: list[int]) -> bool:
    """The `sum: table` kind restated: a card of its ranks takes every card on a table that is
    not empty, unless (`unless_same_rank`) a card of its own rank lies there."""
    kind, deck = rules.table_kind, rules.deck
    if kind is None or not table or deck.is_joker(card) or deck.rank_ids[deck.rank[card]] not in kind.ranks:
        return False
    return not (kind.unless_same_rank and any(deck.rank[c] == deck.rank[card] for c in table))


def allowed_captures(rules, card: int, table: list[int]) -> set[Move]:
    """Brute force over every subset of the table: what each capture kind allows after its
    priority (a single card first; the fewest cards), all kinds together; a card that takes
    the whole table (`sum: table`) has that capture alone."""
    if takes_whole_table(rules, card, table):
        return {Move(card, tuple(sorted(table)))}
    subsets = [take for size in range(1, len(table) + 1) for take in itertools.combinations(sorted(table), size)]
    found: set[Move] = set()
    for total, priority in rules.capture_kinds:
        fits = [take for take in subsets if kind_takes(rules, total, card, take)]
        if fits and priority == "single_card" and any(len(t) == 1 for t in fits):
            fits = [t for t in fits if len(t) == 1]
        elif fits and priority == "fewest_cards":
            fits = [t for t in fits if len(t) == min(map(len, fits))]
        found.update(Move(card, take) for take in fits)
    return found


def check_legal_moves(hand: Hand) -> None:
    """Every legal capture takes table cards that make some capture kind's sum with a held card;
    on small tables, the captures are exactly what each kind and its priority allow; placements
    follow the compulsory rule."""
    rules, seat = hand.rules, hand.to_play
    held, table = hand.hands[seat], hand.table
    legal = hand.legal_moves()
    assert legal, "a player to move always has a move"
    assert legal == sorted(legal) and len(set(legal)) == len(legal)
    captures = set()
    for move in legal:
        assert move.card in held
        assert set(move.take) <= set(table) and len(set(move.take)) == len(move.take)
        if move.take and takes_whole_table(rules, move.card, table):
            assert sorted(move.take) == sorted(table), move
            captures.add(move)
        elif move.take:
            assert any(kind_takes(rules, total, move.card, move.take) for total, _ in rules.capture_kinds), move
            captures.add(move)
    can_capture = {card: False for card in held}
    if len(table) <= BRUTE_FORCE_TABLE:
        found: set[Move] = set()
        for card in held:
            mine = allowed_captures(rules, card, table)
            found |= mine
            can_capture[card] = bool(mine)
        assert captures == found
    else:
        for move in captures:
            can_capture[move.card] = True
    anyone = any(can_capture.values())
    for card in held:
        placeable = Move(card, ()) in legal
        if rules.compulsory == "optional":
            assert placeable
        elif rules.compulsory == "card":
            assert placeable == (not can_capture[card])
        else:  # hand: a placement only when no held card can capture
            assert placeable == (not anyone)


def check_scores(hand: Hand) -> None:
    """Hand points are the sum of category awards, and each award follows from its measures."""
    assert hand.points == [sum(s.points[side] for s in hand.scores) for side in range(hand.sides)]
    for category, score in zip(hand.rules.categories, hand.scores):
        measures, points = score.measures, list(score.points)
        eligible = [side for side, m in enumerate(measures) if m is not None]
        expected = [0] * hand.sides
        if category.policy == "holder":
            for side, pile in enumerate(hand.piles):
                assert measures[side] == (category.card in pile)
                expected[side] = category.points if category.card in pile else 0
        elif category.policy == "per_unit":
            for side in eligible:
                expected[side] = category.points * int(measures[side])
        elif category.policy == "bonus":
            for side in eligible:
                expected[side] = category.points if measures[side] else 0
        elif category.policy == "threshold":
            for side in eligible:
                expected[side] = category.points if measures[side] > category.more_than else 0
        else:  # most
            if eligible:
                best = max(measures[side] for side in eligible)
                leaders = [side for side in eligible if measures[side] == best]
                if len(leaders) == 1 or category.ties == "all":
                    for side in leaders:
                        expected[side] = category.points
        assert points == expected, (category.id, measures)


def bots_for(seed: int, players: int) -> list:
    """Seeded bots, random or greedy seat by seat, so both styles meet every ruleset."""
    return [(greedy_bot if (seed >> seat) & 1 else random_bot)(seed * 7 + seat) for seat in range(players)]


def play(rules, players: int, seed: int, *, record: bool, checks: bool) -> tuple[Hand, list[Move]]:
    hand = Hand(rules, players, seed % players, seed=seed, record=record)
    bots = bots_for(seed, players)
    moves = []
    if checks:
        assert conserved(hand)
    while not hand.is_over:
        if checks:
            check_legal_moves(hand)
        move = bots[hand.to_play](hand)
        hand.apply(move)
        moves.append(move)
        if checks:
            assert conserved(hand)
    return hand, moves


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", RULESETS)
def test_thousand_hands_keep_every_invariant(ruleset: str) -> None:
    """Cards are conserved, legal moves are exactly the rules' moves and scores follow the awards."""
    rules = escoba.load_ruleset(ruleset)
    counts = rules.player_counts
    for seed in range(HANDS_PER_RULESET):
        players = counts[seed % len(counts)]
        hand, moves = play(rules, players, seed, record=False, checks=True)
        assert not any(hand.hands) and not hand.stock and not hand.table
        check_scores(hand)
        if seed % REPLAY_EVERY == 0:
            again, replayed = play(rules, players, seed, record=True, checks=False)
            assert replayed == moves
            assert again.to_json() == hand.to_json()
            assert [e for e in again.events if e["event"] == "score"] == [s.to_event() for s in hand.scores]


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", RULESETS)
def test_matches_add_up_and_end_at_the_target(ruleset: str) -> None:
    """Totals are the sums of hand points, the deal rotates as the rules say, and a match ends
    exactly when a side leads at or over the target (or ties under shared_win), or when one
    side's captures meet a condition that wins at once."""
    rules = escoba.load_ruleset(ruleset)
    for seed in range(MATCHES_PER_RULESET):
        players = rules.player_counts[seed % len(rules.player_counts)]
        match = Match(rules, players, dealer=seed % players, seed=seed, record=False)
        bots = bots_for(seed, players)
        totals = [0] * match.sides
        dealer = seed % players
        while not match.is_over:
            hand = match.new_hand()
            assert hand.dealer == dealer
            while not hand.is_over:
                hand.apply(bots[hand.to_play](hand))
            match.end_hand()
            totals = [t + p for t, p in zip(totals, hand.points)]
            assert match.totals == totals
            reached = [s for s in range(match.sides) if totals[s] >= match.target]
            leaders = [s for s in reached if totals[s] == max(totals[r] for r in reached)] if reached else []
            # A side whose captures meet a condition of match.wins_outright wins at once, whatever
            # the totals (several at once: another hand, unless ties are shared wins).
            history = hand.history() or [None] * match.sides
            outright = [s for s in range(match.sides)
                        if any(o.measure(hand.piles[s], hand.escobas[s], history[s]) for o in rules.wins_outright)]  # fmt: skip
            if outright:
                leaders = outright if len(outright) == 1 or rules.tie == "shared_win" else []
            if len(leaders) == 1 or (leaders and rules.tie == "shared_win"):
                assert match.winners == leaders
            else:
                assert not match.is_over
            dealer = (dealer + rules.next_dealer_offset) % players


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_replayed_match_ends_in_the_same_snapshot(ruleset: str) -> None:
    """The same seeds give the same match, hand by hand, whether events are recorded or not."""
    rules = escoba.load_ruleset(ruleset)
    players = max(rules.player_counts)

    def run(record: bool) -> list[str]:
        match = Match(rules, players, seed=3, record=record)
        bots = bots_for(3, players)
        snapshots = []
        while not match.is_over:
            hand = match.new_hand()
            while not hand.is_over:
                hand.apply(bots[hand.to_play](hand))
            match.end_hand()
            snapshots.append(json.dumps([hand.to_json(), match.totals]))
        return snapshots

    assert run(False) == run(True)
