"""What the strong search infers from the opponent's plays (`escoba.engine.bots.inference`):
it reads the plays right, it reads nothing hidden, and what it infers is true of a player who
captures whenever it can."""

from __future__ import annotations

import random

import pytest

import escoba
from escoba.engine.bots import bot_maker, greedy_bot, random_bot
from escoba.engine.bots.inference import PLACED, SLIP, SWEPT, TOOK, PlayLog
from escoba.engine.bots.search import search_bot
from escoba.engine.hand import Hand, Move


def capturer(seed: int):
    """A player that sweeps the table whenever one of its cards can, else captures whenever one
    can, else places a card at random: the player the inference supposes, written here
    independently of it."""
    rng = random.Random(seed)

    def play(hand: Hand) -> Move:
        moves = hand.legal_moves()
        sweeps = [m for m in moves if m[1] and len(m[1]) == len(hand.table)]
        takes = [m for m in moves if m[1]]
        return (sweeps or takes or [moves[rng.randrange(len(moves))]])[0]

    return play


def watched_hands(ruleset: str, hands: int, opponent):
    """Seat 0 keeps a PlayLog through each hand against `opponent` (seat 1); yields, at each of
    seat 0's turns, the hand, the log, and the opponent's plays of this round as the test saw
    them (table faced, card, what it did), recorded from the real moves. A play made before the
    seat's first turn of the hand is not among them: the log cannot see the table it faced."""
    rules = escoba.load_ruleset(ruleset)
    for k in range(hands):
        hand = Hand(rules, 2, k % 2, seed=k, record=False)
        log, me, other = PlayLog(), random_bot(k), opponent(k)
        seen: list[tuple[tuple[int, ...], int, bool]] = []
        while not hand.is_over:
            seat, before = hand.to_play, hand.stock_size
            if seat == 0:
                log.observe(hand.view(0))
                yield hand, log, list(seen)
                move = me(hand)
                log.played(hand, 0, move)
            else:
                move = other(hand)
                if hand.plays:
                    did = (SWEPT if len(move[1]) == len(hand.table) else TOOK) if move[1] else PLACED
                    seen.append((tuple(sorted(hand.table)), move[0], did))
            hand.apply(move)
            if hand.stock_size != before:  # a new round: its plays are all that is kept
                seen = []


@pytest.mark.parametrize("ruleset", ["da", "fr", "scopa"])
def test_the_log_reads_the_opponents_plays_of_the_round(ruleset):
    """At each of the seat's turns the log holds exactly the opponent's plays of this round,
    each with the table it faced, as the test recorded them from the real moves."""
    turns = 0
    for _, log, seen in watched_hands(ruleset, 40, random_bot):
        assert log.plays == seen
        turns += 1
    assert turns > 400


@pytest.mark.parametrize("ruleset", ["da", "sv", "fr"])
def test_what_it_infers_is_true_of_a_player_who_always_captures(ruleset):
    """Against a player that sweeps whenever it can and captures whenever it can, no card the
    log says "would have done better" (captured where it placed, swept where it took part of the
    table) is ever in that player's real hand: the inference reads the right table and the right
    cards (a log that mixed up tables or rounds would flag cards it holds)."""
    telling = 0
    for hand, log, _ in watched_hands(ruleset, 60, capturer):
        for would_capture in log._telling(hand.view(0)):
            telling += 1
            assert not would_capture & set(hand.hands[1])
    assert telling > 100


def test_the_deals_it_draws_lean_away_from_a_capture_given_up():
    """After the opponent gave up a better play that an unseen card would have made, a deal
    gives it such a card far less often than a uniform deal does (by about SLIP)."""
    rules = escoba.load_ruleset("da")
    for hand, log, _ in watched_hands("da", 60, capturer):
        view = hand.view(0)
        telling = log._telling(view)
        if len(telling) == 1 and len(telling[0]) >= 4:
            break
    else:
        pytest.fail("no position with one telling placement")
    (would,) = telling
    rng = random.Random(3)
    uniform = sum(bool(would & set(Hand.from_view(view, rng).hands[1])) for _ in range(400)) / 400
    weighed = sum(bool(would & set(log.deal(view, rng).hands[1])) for _ in range(400)) / 400
    assert rules.id == "da" and uniform > 0.2
    assert weighed < uniform * SLIP * 2


@pytest.mark.parametrize("ruleset", ["da", "fr"])
def test_the_strong_search_reads_no_hidden_card_in_a_whole_hand(ruleset):
    """Two `strong` bots of the same seed play seat 0 through whole hands, one called on the real
    hand, the other on a re-deal of its hidden cards at every turn (same view, other hidden
    cards; the log is fed from those): they make the same move at every turn, so nothing the
    bot keeps between turns came from a hidden card."""
    rules = escoba.load_ruleset(ruleset)
    rng = random.Random(2)
    compared = 0
    for k in range(3):
        hand = Hand(rules, 2, k % 2, seed=10 + k, record=False)
        real, redealt, other = bot_maker("strong:8")(k), bot_maker("strong:8")(k), random_bot(k)
        while not hand.is_over:
            if hand.to_play == 0:
                move = real(hand)
                assert redealt(hand.determinize(0, rng)) == move
                compared += len(hand.legal_moves()) > 1
            else:
                move = other(hand)
            hand.apply(move)
    assert compared >= 8


def test_greedy_seldom_gives_up_a_capture():
    """The inference's premise, for the bot the ladder measures against: over 300 hands of da,
    greedy places a card while another card of its hand could capture in fewer than 1 placement
    in 500 (5 of 6,761 when this was written: docs/bots.md)."""
    rules = escoba.load_ruleset("da")
    placed = gave_up = 0
    for k in range(300):
        hand = Hand(rules, 2, k % 2, seed=k, record=False)
        bot = greedy_bot(k)
        while not hand.is_over:
            seat, (card, take) = hand.to_play, bot(hand)
            if not take:
                placed += 1
                gave_up += any(rules.finder.captures(c, list(hand.table)) for c in hand.hands[seat] if c != card)
            hand.apply((card, take))
    assert placed > 5000
    assert gave_up < placed / 500


def test_at_four_players_the_strong_search_deals_uniformly():
    """At more than two players the plays between two turns cannot be read off the views, so
    the log adds nothing: `strong` plays the same moves as the search without the inference
    (docs/bots.md's four-player ladder figures stand for both)."""
    rules = escoba.load_ruleset("de")
    games = []
    for infer in (True, False):
        hand = Hand(rules, 4, 0, seed=6)
        bots = [search_bot(s, playouts=8, learned=True, exact_last_deal=True, own_view_replies=True, infer=infer) for s in range(4)]
        while not hand.is_over:
            hand.apply(bots[hand.to_play](hand))
        games.append(hand.events)
    assert games[0] == games[1]
