"""What a seat knows: `Hand.view`, `Hand.determinize` and `Hand.clone`."""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from itertools import combinations

import pytest

import escoba
from escoba.engine.bots import random_bot
from escoba.engine.hand import Hand
from escoba.rules import bundled_ids

CASES = [(rid, n) for rid in bundled_ids() for n in escoba.load_ruleset(rid).player_counts]
HANDS_PER_CASE = 4


def played_states(ruleset: str, players: int, hands: int = HANDS_PER_CASE):
    """Every state (before each play) of a few seeded random hands."""
    rules = escoba.load_ruleset(ruleset)
    for seed in range(hands):
        hand = Hand(rules, players, seed % players, seed=seed, record=False)
        bot = random_bot(seed)
        while not hand.is_over:
            yield hand
            hand.apply(bot(hand))
        yield hand


def hidden_from(hand: Hand, seat: int) -> set[int]:
    """The cards `seat` must not see: the stock, and other hands unless they are face up, but
    for the cards a declaration showed as they were dealt (which every seat saw)."""
    hidden = set(hand.stock)
    if not hand.rules.open_hands:
        for other, cards in enumerate(hand.hands):
            if other != seat:
                hidden.update(cards)
    hidden -= {c for cards in hand.shown or () for c in cards}
    return hidden


def codes_in(data) -> set[str]:
    """Every string anywhere in a JSON document."""
    if isinstance(data, str):
        return {data}
    if isinstance(data, dict):
        return set().union(*(codes_in(v) for v in data.values())) if data else set()
    if isinstance(data, list):
        return set().union(*(codes_in(v) for v in data)) if data else set()
    return set()


@pytest.mark.parametrize("ruleset, players", CASES)
def test_a_view_never_shows_another_seats_hidden_cards(ruleset, players):
    """No card of a hidden hand or of the stock appears in a seat's view, its JSON or its key
    (a card shown by a declaration is not hidden: every seat saw it)."""
    for hand in played_states(ruleset, players):
        code = hand.rules.deck.code
        for seat in range(players):
            view = hand.view(seat)
            hidden = hidden_from(hand, seat)
            shown = set(view.table) | set(view.set_aside) | {c for p in view.piles for c in p}
            shown |= {c for h in view.hands if h is not None for c in h}
            shown |= {c for h in view.shown or () for c in h}
            assert not shown & hidden
            assert set(view.unseen) == hidden
            hidden_codes = {code[c] for c in hidden}
            assert not codes_in(view.to_json()) & hidden_codes
            assert not codes_in(json.loads(view.key())) & hidden_codes
            assert view.hand == tuple(sorted(hand.hands[seat]))


def test_open_hands_show_every_hand_and_hide_only_the_stock():
    """Under de-open (hands face up) a view holds every seat's hand; only the stock is unseen."""
    for hand in played_states("de-open", 4, hands=2):
        view = hand.view(1)
        assert view.hands == tuple(tuple(sorted(h)) for h in hand.hands)
        assert sorted(view.unseen) == sorted(hand.stock)


def test_de_hides_the_partners_hand():
    """Under de (partnerships, hands face down) seat 0 does not see its partner's hand."""
    hand = Hand(escoba.load_ruleset("de"), 4, 0, seed=1)
    view = hand.view(0)
    assert view.hands[2] is None and view.hand_sizes[2] == 3


@pytest.mark.parametrize("ruleset, players", CASES)
def test_determinizations_agree_with_the_view(ruleset, players):
    """A determinization gives the seat the very same view, keeps every card once, and plays on."""
    rng = random.Random(7)
    for k, hand in enumerate(played_states(ruleset, players, hands=3)):
        seat = k % players
        view = hand.view(seat)
        full = hand.determinize(seat, rng)
        assert full.view(seat) == view and full.view(seat).key() == view.key()
        assert sorted(full.stock + full.table + full.set_aside + [c for h in full.hands for c in h]
                      + [c for p in full.piles for c in p]) == list(hand.rules.deck.cards)  # fmt: skip
        assert [len(h) for h in full.hands] == [len(h) for h in hand.hands]
        if hand.to_play == seat:
            assert full.legal_moves() == hand.legal_moves()
        bot = random_bot(k)
        while not full.is_over:  # a determinization is a hand that can be played to its end
            full.apply(bot(full))
        assert full.points is not None


def test_a_view_is_the_same_whatever_the_hidden_cards_are():
    """Swapping cards between a hidden hand and the stock does not change the seat's view."""
    hand = Hand(escoba.load_ruleset("base"), 2, 0, seed=5, record=False)
    data = hand.to_json()
    data["hands"][1][0], data["stock"][0] = data["stock"][0], data["hands"][1][0]
    other = Hand.from_json(hand.rules, data)
    assert other.view(0).key() == hand.view(0).key()
    assert other.view(1).key() != hand.view(1).key()


def chi_square(counts: Counter, cells: list, total: int) -> float:
    expected = total / len(cells)
    return sum((counts.get(c, 0) - expected) ** 2 / expected for c in cells)


def chi_square_critical(df: int, z: float = 3.090232) -> float:
    """The upper 0.1% point of chi-square with `df` degrees of freedom (Wilson–Hilferty)."""
    h = 2 / (9 * df)
    return df * (1 - h + z * math.sqrt(h)) ** 3


def late_state() -> Hand:
    """Base, 2 players, seat 0 to play with 6 cards left in the stock and 3 in seat 1's hand."""
    rules = escoba.load_ruleset("base")
    bot = random_bot(3)
    hand = Hand(rules, 2, 1, seed=11, record=False)
    while not (len(hand.stock) == 6 and hand.to_play == 0 and len(hand.hands[1]) == 3):
        hand.apply(bot(hand))
    return hand


def opponent_hands(determinize, hand: Hand, draws: int) -> tuple[Counter, Counter]:
    hands, tops = Counter(), Counter()
    for _ in range(draws):
        full = determinize()
        hands[tuple(sorted(full.hands[1]))] += 1
        tops[full.stock[0]] += 1
    return hands, tops


DRAWS = 16_800  # 200 per possible opponent hand


def test_determinizations_are_uniform_over_the_hidden_cards():
    """Over 16,800 seeded draws the opponent's 3 cards (84 possible hands of the 9 unseen) and the
    stock's top card are uniform: chi-square below its 0.1% critical value (fixed seed)."""
    hand = late_state()
    unseen = hand.view(0).unseen
    assert len(unseen) == 9
    rng = random.Random(2024)
    hands, tops = opponent_hands(lambda: hand.determinize(0, rng), hand, DRAWS)
    cells = list(combinations(unseen, 3))
    assert set(hands) <= set(cells)
    assert chi_square(hands, cells, DRAWS) < chi_square_critical(len(cells) - 1)  # about 128.6
    assert chi_square(tops, list(unseen), DRAWS) < chi_square_critical(len(unseen) - 1)  # about 26.1


def test_the_uniformity_check_rejects_a_slightly_biased_deal():
    """The same check fails for a deal that puts the lowest unseen card in the opponent's hand a
    little more often than chance (so the test above can fail)."""
    hand = late_state()
    view = hand.view(0)
    low = view.unseen[0]
    rng = random.Random(2024)

    def biased():
        full = Hand.from_view(view, rng)
        if low not in full.hands[1] and rng.random() < 0.15:  # trade it in from the stock
            data = full.to_json()
            code = hand.rules.deck.code
            i = data["stock"].index(code[low])
            data["stock"][i], data["hands"][1][0] = data["hands"][1][0], data["stock"][i]
            full = Hand.from_json(hand.rules, data, record=False)
        return full

    hands, _ = opponent_hands(biased, hand, DRAWS)
    cells = list(combinations(view.unseen, 3))
    assert chi_square(hands, cells, DRAWS) > chi_square_critical(len(cells) - 1)


def test_a_clone_is_independent_and_plays_the_same():
    """Moves on a clone leave the original untouched; the same moves on both give the same hand."""
    rules = escoba.load_ruleset("sv")
    hand = Hand(rules, 2, 0, seed=4)
    bot = random_bot(1)
    for _ in range(5):
        hand.apply(bot(hand))
    before = json.dumps(hand.to_json())
    events = len(hand.events)
    copy = hand.clone()
    moves = []
    while not copy.is_over:
        moves.append(bot(copy))
        copy.apply(moves[-1])
    assert json.dumps(hand.to_json()) == before and len(hand.events) == events
    for move in moves:
        hand.apply(move)
    assert hand.to_json() == copy.to_json() and hand.events == copy.events
    assert [s.points for s in hand.scores] == [s.points for s in copy.scores]


def test_the_view_json_names_what_a_seat_knows():
    """The view's JSON has the documented keys; a hidden hand is null with its size beside it."""
    hand = Hand(escoba.load_ruleset("da"), 2, 0, seed=9)
    data = hand.view(1).to_json()
    assert list(data) == ["ruleset", "players", "seat", "dealer", "to_play", "hands", "hand_sizes", "table", "piles",
                          "escobas", "set_aside", "stock_size", "last_capturer", "plays", "points"]  # fmt: skip
    assert data["hands"][0] is None and data["hand_sizes"] == [3, 3] and data["stock_size"] == 30


def test_a_view_of_a_seat_that_is_not_at_the_table_is_refused():
    """`view(seat)` with a seat out of range raises an EscobaError naming the range."""
    hand = Hand(escoba.load_ruleset("base"), 2, 0, seed=1)
    with pytest.raises(escoba.EscobaError, match="seat must be from 0 to 1"):
        hand.view(2)


def test_the_view_example_in_docs_bots_md_is_what_the_code_gives():
    """docs/bots.md's view example is the JSON of seat 1's view after six seeded random plays."""
    from pathlib import Path

    text = (Path(__file__).parents[1] / "docs" / "bots.md").read_text(encoding="utf-8")
    block = text.split("<!-- view-example -->\n```json\n", 1)[1].split("\n```", 1)[0]
    hand = Hand(escoba.load_ruleset("da"), 2, 0, seed=7)
    bot = random_bot(1)
    for _ in range(6):
        hand.apply(bot(hand))
    assert json.loads(block) == hand.view(1).to_json()
    assert block == json.dumps(hand.view(1).to_json(), ensure_ascii=False)
