"""Hand-built positions for each rule on which the sources differ."""

from __future__ import annotations

import pytest

from escoba.engine.hand import Hand
from escoba.engine.scoring import score_category
from escoba.errors import IllegalMoveError
from rulebook import base_with, cards, deal, move


def moves_text(hand: Hand) -> list[str]:
    deck = hand.rules.deck
    return [" ".join([deck.text[m.card]] + (["x"] + [deck.text[c] for c in m.take] if m.take else [])) for m in hand.legal_moves()]


# --------------------------------------------------------------------------- opening table


def test_opening_fifteen_is_one_escoba_for_the_dealer():
    """Four table cards totalling 15 go to the dealer as one escoba (base, da, sv, fr)."""
    rules = base_with()
    hand = deal(rules, 2, 0, "1♦ 2♥ 5♠ 7♣", "3♦ 4♦ 5♦", "6♦ 7♦ S♦")
    opening = next(e for e in hand.events if e["event"] == "opening")
    assert opening["escobas"] == 1 and opening["groups"] == 1 and opening["seat"] == 0
    assert hand.table == [] and hand.escobas == [1, 0]


def test_opening_thirty_that_splits_is_two_escobas():
    """R♦ 5♣ 7♥ S♠ total 30 and split into 10+5 and 7+8: two escobas (fr)."""
    hand = deal(base_with(), 2, 1, "R♦ 5♣ 7♥ S♠", "1♦ 2♦ 3♦", "4♦ 5♦ 6♦")
    assert hand.escobas == [0, 2]


def test_opening_thirty_that_does_not_split_stays_on_the_table():
    """R♦ R♥ C♠ 1♣ total 30 but no part makes 15: no escoba, the cards stay."""
    rules = base_with()
    hand = deal(rules, 2, 0, "R♦ R♥ C♠ 1♣", "1♦ 2♦ 3♦", "4♦ 5♦ 6♦")
    assert sorted(hand.table) == sorted(cards(rules, "R♦ R♥ C♠ 1♣"))
    assert hand.escobas == [0, 0]
    assert not [e for e in hand.events if e["event"] == "opening"]


def test_opening_thirty_is_nothing_when_only_one_group_counts():
    """With max_groups 1 a splitting 30 is not a trigger at all."""
    rules = base_with(opening_table__max_groups=1)
    hand = deal(rules, 2, 1, "R♦ 5♣ 7♥ S♠", "1♦ 2♦ 3♦", "4♦ 5♦ 6♦")
    assert hand.escobas == [0, 0] and len(hand.table) == 4


def test_opening_set_aside_when_it_contains_a_fifteen():
    """de: a table that merely contains a 15 is set aside face down, no escoba for anyone."""
    rules = base_with(opening_table__trigger="any_combination", opening_table__action="set_aside", opening_table__escobas="none")
    hand = deal(rules, 2, 0, "R♦ 5♣ 1♥ 2♠", "1♦ 2♦ 3♦", "4♦ 5♦ 6♦")
    assert hand.table == [] and hand.escobas == [0, 0]
    assert sorted(hand.set_aside) == sorted(cards(rules, "R♦ 5♣ 1♥ 2♠"))
    assert hand.piles == [[], []]


def test_opening_taken_without_escoba():
    """ru: the dealer takes the four into the pile; no escoba is scored."""
    rules = base_with(opening_table__escobas="none")
    hand = deal(rules, 2, 0, "1♦ 2♥ 5♠ 7♣", "3♦ 4♦ 5♦", "6♦ 7♦ S♦")
    assert hand.escobas == [0, 0] and len(hand.piles[0]) == 4


def test_opening_redeal_uses_the_next_deck_order():
    """de-redeal: a 15 on the table means shuffling again; the next deck order is dealt."""
    from escoba.engine.arrange import arrange_deck

    rules = base_with(opening_table__action="redeal", opening_table__escobas="none")
    first = arrange_deck(rules, 2, 0, ["1♦", "2♥", "5♠", "7♣"], [[["3♦", "4♦", "5♦"], ["6♦", "7♦", "S♦"]]])
    second = arrange_deck(rules, 2, 0, ["R♦", "R♥", "C♠", "1♣"], [[["3♦", "4♦", "5♦"], ["6♦", "7♦", "S♦"]]])
    hand = Hand(rules, 2, 0, [first, second])
    assert [e["event"] for e in hand.events].count("opening") == 1
    assert sorted(hand.table) == sorted(cards(rules, "R♦ R♥ C♠ 1♣"))
    assert len(hand.deck_orders) == 2


def test_a_condition_on_the_table_deals_again_whatever_the_trigger():
    """opening_table.redeal_when (three kings and more: no sweep can be made): the table is
    dealt again even where no opening rule acts (action none), and before the trigger."""
    from escoba.engine.arrange import arrange_deck

    rules = base_with(opening_table__action="none", opening_table__redeal_when="count(rank(cards, rey)) >= 3")
    kings = arrange_deck(rules, 2, 0, ["R♦", "R♥", "R♠", "1♣"], [[["3♦", "4♦", "5♦"], ["6♦", "7♦", "S♦"]]])
    two = arrange_deck(rules, 2, 0, ["R♦", "R♥", "C♠", "1♣"], [[["3♦", "4♦", "5♦"], ["6♦", "7♦", "S♦"]]])
    hand = Hand(rules, 2, 0, [kings, two])
    openings = [e for e in hand.events if e["event"] == "opening"]
    assert openings == [{"event": "opening", "action": "redeal", "seat": 0, "cards": ["Rd", "Rh", "Rs", "1c"]}]
    assert sorted(hand.table) == sorted(cards(rules, "R♦ R♥ C♠ 1♣")) and len(hand.deck_orders) == 2
    fifteen = base_with(opening_table__redeal_when="count(rank(cards, 1)) >= 2")  # two aces beat the 15
    hand = Hand(fifteen, 2, 0, [arrange_deck(fifteen, 2, 0, ["1♦", "1♥", "6♠", "7♣"], [[["3♦", "4♦", "5♦"], ["6♦", "7♦", "S♦"]]]), two])
    assert [e["action"] for e in hand.events if e["event"] == "opening"] == ["redeal"]


def test_a_condition_on_the_table_gives_it_to_the_dealer_without_escoba():
    """opening_table.dealer_takes_when: a low table (under 9) goes to the dealer's pile with no
    escoba; a table the trigger takes is taken as the trigger says (one escoba for 15)."""
    rules = base_with(opening_table__dealer_takes_when="count(cards) == 4 and total(cards, primera) < 60")
    hand = deal(rules, 2, 1, "2♦ 2♥ 3♠ 1♣", "3♦ 4♦ 5♦", "6♦ 7♦ S♦")  # primera 12 + 12 + 13 + 16 = 53
    opening = next(e for e in hand.events if e["event"] == "opening")
    assert (opening["action"], opening["groups"], opening["escobas"], opening["seat"]) == ("dealer_takes", 0, 0, 1)
    assert hand.escobas == [0, 0] and len(hand.piles[1]) == 4 and hand.last_capturer == 1
    hand = deal(rules, 2, 1, "2♦ 3♥ 4♠ 6♣", "3♦ 4♦ 5♦", "6♦ 7♦ S♦")  # a 15 too, primera 57: the trigger's
    assert hand.escobas == [0, 1]


# --------------------------------------------------------------------------- compulsory capture

TABLE = "R♣ R♥ 5♠ 2♣"  # 27 in all: no opening trigger
HAND = "1♦ 3♦ R♦"  # 1♦ cannot capture; 3♦ takes R♥ 2♣ or 2♣ R♣; R♦ takes 5♠


@pytest.mark.parametrize(
    "compulsory, expected",
    [
        ("optional", ["1♦", "3♦", "3♦ x R♥ 2♣", "3♦ x 2♣ R♣", "R♦", "R♦ x 5♠"]),
        ("card", ["1♦", "3♦ x R♥ 2♣", "3♦ x 2♣ R♣", "R♦ x 5♠"]),
        ("hand", ["3♦ x R♥ 2♣", "3♦ x 2♣ R♣", "R♦ x 5♠"]),
    ],
)
def test_compulsory_capture_readings(compulsory, expected):
    """optional: any card may be placed; card: a card that can capture must; hand: if any can, you must."""
    rules = base_with(capture__compulsory=compulsory)
    hand = deal(rules, 2, 1, TABLE, HAND, "4♦ 4♥ 4♠")
    assert moves_text(hand) == expected  # already in deck order of card, then of taken cards


def test_every_subset_is_a_separate_move():
    """Several ways to make 15 are several moves; the player picks exactly one (de, sv)."""
    rules = base_with()
    hand = deal(rules, 2, 1, "3♣ 5♥ S♠ 2♦", "7♦ R♥ 4♣", "6♠ 1♥ C♣", **{})
    # The Swedish example's opening position; the text names four ways and misses a fifth,
    # K♥ with 2♦ and 3♣ (10 + 2 + 3).
    assert moves_text(hand) == ["7♦ x 5♥ 3♣", "7♦ x S♠", "R♥ x 2♦ 3♣", "R♥ x 5♥", "4♣ x S♠ 3♣"]


def test_illegal_moves_name_their_rule_and_change_nothing():
    """A card not in hand, a sum that is not 15, a refused compulsory capture: each says why."""
    rules = base_with(capture__compulsory="card")
    hand = deal(rules, 2, 1, TABLE, HAND, "4♦ 4♥ 4♠")
    before = hand.to_json()
    for text, reason in [
        ("4♦", "4♦ is not in the hand of seat 0"),
        ("3♦ x 5♠", "3♦ 5♠ make 8, not 15"),
        ("R♦", "capture is compulsory: R♦ can take 5♠"),
        ("1♦ x S♣", "S♣ is not on the table"),
    ]:
        with pytest.raises(IllegalMoveError) as error:
            hand.apply(move(rules, text))
        assert error.value.reason == reason
        assert hand.to_json() == before


def test_hand_level_compulsion_names_the_card_that_can_capture():
    """hand: placing 1♦ is refused because 3♦ could capture."""
    rules = base_with(capture__compulsory="hand")
    hand = deal(rules, 2, 1, TABLE, HAND, "4♦ 4♥ 4♠")
    with pytest.raises(IllegalMoveError, match="capture is compulsory: 3♦ can take R♥ 2♣"):
        hand.apply(move(rules, "1♦"))


# --------------------------------------------------------------------------- escobas, leftovers


def test_escoba_clears_the_table_and_scores():
    """A capture that takes every table card is an escoba for the capturer's side."""
    rules = base_with()
    hand = deal(rules, 2, 1, TABLE, "R♦ 5♦ 1♦", "3♥ 3♠ 4♠")
    hand.apply(move(rules, "R♦ x 5♠"))
    hand.apply(move(rules, "3♥ x R♥ 2♣"))
    events = hand.apply(move(rules, "5♦ x R♣"))
    assert [e["event"] for e in events] == ["play", "escoba"]
    assert events[1] == {"event": "escoba", "seat": 0, "side": 0, "scores": True}
    assert hand.table == [] and hand.escobas == [1, 0]


def test_placing_on_an_empty_table_is_the_only_move():
    """After an escoba the next player can only place a card."""
    rules = base_with()
    hand = deal(rules, 2, 1, TABLE, "R♦ 5♦ 1♦", "3♥ 3♠ 4♠")
    for text in ("R♦ x 5♠", "3♥ x R♥ 2♣", "5♦ x R♣"):
        hand.apply(move(rules, text))
    assert moves_text(hand) == ["3♠", "4♠"]


@pytest.mark.parametrize("seed", range(20))
def test_leftovers_go_to_the_last_capturer_without_escoba(seed):
    """At the end the table goes to whoever captured last, and that is not an escoba."""
    from escoba.engine.bots import random_bot

    rules = base_with()
    hand = Hand(rules, 2, 0, seed=seed)
    bot = random_bot(seed)
    while not hand.is_over:
        hand.apply(bot(hand))
    left = [e for e in hand.events if e["event"] == "leftovers"]
    escobas = [e for e in hand.events if e["event"] in ("escoba", "opening")]
    assert left, "base keeps all 40 cards in play: captures take multiples of 15 from 220, so some are left"
    assert left[0]["seat"] == hand.last_capturer
    assert hand.events.index(left[0]) > max(hand.events.index(e) for e in escobas) if escobas else True
    assert sum(len(p) for p in hand.piles) == 40


def test_nobody_captured_leftovers_are_discarded():
    """If nobody captured all hand, the table belongs to nobody (base interpretation)."""
    rules = base_with(capture__compulsory="optional", opening_table__action="none")
    hand = Hand(rules, 2, 0, [list(rules.deck.cards)])
    while not hand.is_over:
        placing = [m for m in hand.legal_moves() if not m.take]
        hand.apply(placing[0])
    assert hand.piles == [[], []] and len(hand.set_aside) == 40
    assert next(e for e in hand.events if e["event"] == "leftovers")["seat"] is None


# --------------------------------------------------------------------------- scoring


def cat(rules, cid):
    return next(c for c in rules.categories if c.id == cid)


def test_primera_missing_suit_cannot_score():
    """A side missing a suit is not eligible for primera; the other side scores."""
    rules = base_with()
    full = cards(rules, "7♦ 7♥ 7♠ 1♣")
    missing = cards(rules, "6♦ 6♥ 6♠")
    result = score_category(cat(rules, "primera"), [full, missing], [0, 0])
    assert result.measures == (21 + 21 + 21 + 16, None)
    assert result.points == (1, 0)


def test_primera_missing_suit_on_both_sides_scores_nobody():
    """Both sides missing a suit: nobody scores primera."""
    rules = base_with()
    result = score_category(cat(rules, "primera"), [cards(rules, "7♦"), cards(rules, "7♥")], [0, 0])
    assert result.measures == (None, None) and result.points == (0, 0)


def test_more_than_twenty_with_three_players():
    """da: 'more than 20 of 40' with three players: 19 cards is most but not more than 20."""
    threshold = base_with(categories=[{"id": "cards", "measure": "count(cards)", "award": {"policy": "threshold", "more_than": 20}, "points": 1}])
    most = base_with()
    deck = list(threshold.deck.cards)
    piles = [deck[:19], deck[19:30], deck[30:]]
    assert score_category(threshold.categories[0], piles, [0, 0, 0]).points == (0, 0, 0)
    assert score_category(cat(most, "cards"), piles, [0, 0, 0]).points == (1, 0, 0)


def test_most_with_tied_leaders_all_scoring():
    """ties: all gives the point to every tied leader; ties: nobody to none."""
    rules = base_with(categories=[{"id": "coins", "measure": "count(suit(cards, oros))", "award": {"policy": "most", "ties": "all"}, "points": 1}])
    piles = [cards(rules, "1♦ 2♦ 3♦ 4♥"), cards(rules, "4♦ 5♦ 6♦"), cards(rules, "7♦")]
    assert score_category(rules.categories[0], piles, [0, 0, 0]).points == (1, 1, 0)
    nobody = base_with()
    assert score_category(cat(nobody, "coins"), piles, [0, 0, 0]).points == (0, 0, 0)


def test_all_four_sevens_bonus():
    """ru: a side with all four sevens gets one extra point."""
    rules = base_with(categories=[{"id": "all_sevens", "measure": "count(rank(cards, 7)) == 4", "award": {"policy": "bonus"}, "points": 1}])
    piles = [cards(rules, "7♦ 7♥ 7♠ 7♣"), cards(rules, "6♦")]
    assert score_category(rules.categories[0], piles, [0, 0]).points == (1, 0)
    piles = [cards(rules, "7♦ 7♥ 7♠"), cards(rules, "7♣")]
    assert score_category(rules.categories[0], piles, [0, 0]).points == (0, 0)


def test_velo_goes_to_its_holder_with_any_points_value():
    """The seven of coins scores for whoever holds it; da-velo2 makes it worth 2."""
    rules = base_with(categories=[{"id": "velo", "award": {"policy": "holder", "card": "7 oros"}, "points": 2}])
    piles = [cards(rules, "1♦"), cards(rules, "7♦")]
    assert score_category(rules.categories[0], piles, [0, 0]).points == (0, 2)


def test_escobas_score_per_unit():
    """Each escoba is a point (per_unit)."""
    rules = base_with()
    assert score_category(cat(rules, "escobas"), [[], []], [3, 1]).points == (3, 1)


def test_partnership_scoring_pools_the_partners_piles():
    """de at four: seats 0 and 2 score together, 1 and 3 together."""
    rules = base_with(players__partnerships=[{"players": 4, "sides": [[0, 2], [1, 3]]}])
    hand = Hand(rules, 4, 0, seed=3, record=False)
    assert hand.sides == 2 and hand.side_of == [0, 1, 0, 1]
    while not hand.is_over:
        hand.apply(hand.legal_moves()[0])
    assert len(hand.points) == 2
    assert sum(len(p) for p in hand.piles) + len(hand.set_aside) == 40


# --------------------------------------------------------------------------- turn order


@pytest.mark.parametrize(
    "players, leader, direction, dealer, expected",
    [
        (3, "dealer_right", "counterclockwise", 0, [1, 2, 0]),
        (3, "dealer_left", "counterclockwise", 0, [2, 0, 1]),
        (4, "dealer_right", "counterclockwise", 2, [3, 0, 1, 2]),
        (4, "dealer_right", "clockwise", 2, [3, 2, 1, 0]),
    ],
)
def test_turn_order(players, leader, direction, dealer, expected):
    """The leader sits at the dealer's right (or left) and play follows the direction."""
    rules = base_with(turn__leader=leader, turn__direction=direction, opening_table__action="none")
    hand = Hand(rules, players, dealer, seed=1)
    seen = []
    for _ in range(players):
        seen.append(hand.to_play)
        hand.apply(hand.legal_moves()[0])
    assert seen == expected


@pytest.mark.parametrize(
    "players, leader, dealer, packets",
    [
        (2, "dealer_right", 0, [1, 0]),  # the dealer's one opponent leads: the dealer last
        (3, "dealer_right", 0, [1, 2, 0]),  # the dealer's right leads: the dealer last
        (4, "dealer_right", 2, [3, 0, 1, 2]),
        (3, "dealer_left", 0, [2, 0, 1]),  # the dealer's left leads: the leader, the dealer, the rest
        (4, "dealer_left", 1, [0, 1, 2, 3]),
    ],
)
def test_the_deal_convention_as_docs_protocol_states_it(players, leader, dealer, packets):
    """docs/protocol.md, "The deal convention": packets of hand_size from the top of the stock,
    from the leader in the direction of play (counter-clockwise: seat + 1), then the table; where
    the dealer's left leads at 3–4 players that deals the leader, then the dealer, then the rest."""
    rules = base_with(turn__leader=leader, turn__direction="counterclockwise", opening_table__action="none")
    top = list(rules.deck.cards)
    hand = Hand(rules, players, dealer, [top])
    size = rules.hand_size
    assert [sorted(hand.hands[seat]) for seat in packets] == [top[size * i : size * (i + 1)] for i in range(players)]
    assert sorted(hand.table) == top[size * players : size * players + rules.table_size]


# --------------------------------------------------------------------------- match end


def _finish_hand(match, points):
    """Count a hand that scored `points` per side (the deal itself is not what is tested)."""
    from types import SimpleNamespace

    match.hand = SimpleNamespace(is_over=True, points=points)
    return match.end_hand()


def test_several_over_the_target_the_highest_wins():
    """de/fr/ru: when two sides pass the target in the same hand, the higher total wins."""
    from escoba.engine.match import Match

    match = Match(base_with(), 2, target=21)
    _finish_hand(match, [18, 15])
    events = _finish_hand(match, [4, 8])  # 22 against 23: both over
    assert match.winners == [1]
    assert events[-1]["event"] == "match_end" and events[-1]["totals"] == [22, 23]


def test_equal_totals_over_the_target_play_another_hand():
    """de/fr: an exact tie at or over the target is no win: another hand is dealt."""
    from escoba.engine.match import Match

    match = Match(base_with(match__tie="extra_hand"), 2, target=21)
    events = _finish_hand(match, [21, 21])
    assert not match.is_over and events[-1] == {"event": "tie", "sides": [0, 1], "totals": [21, 21]}
    _finish_hand(match, [1, 3])
    assert match.winners == [1]


def test_equal_totals_over_the_target_are_a_shared_win_in_the_danish_app():
    """da-app: the app records a true tie as a win for both."""
    from escoba.engine.match import Match

    match = Match(base_with(match__tie="shared_win"), 2, target=21)
    events = _finish_hand(match, [22, 22])
    assert match.winners == [0, 1] and events[-1]["event"] == "match_end"


def test_a_tie_below_the_leader_is_not_a_tie():
    """Three players: two tied behind a clear leader over the target do not stop the win."""
    from escoba.engine.match import Match

    match = Match(base_with(), 3, target=21)
    _finish_hand(match, [25, 21, 21])
    assert match.winners == [0]


def _finish_with_piles(match, points, piles):
    """Count a hand that scored `points` and left these piles (card texts per side)."""
    from types import SimpleNamespace

    rules = match.rules
    match.hand = SimpleNamespace(is_over=True, points=points, piles=[[rules.deck.card(c) for c in p.split()] for p in piles],
                                 escobas=[0] * len(piles), history=lambda: None)  # fmt: skip
    return match.end_hand()


ALL_COINS = {"id": "all-coins", "title": "every coin", "measure": "count(suit(cards, oros)) == count(suit(deck, oros))"}
COINS = "1♦ 2♦ 3♦ 4♦ 5♦ 6♦ 7♦ S♦ C♦ R♦"


def test_a_side_that_meets_a_winning_condition_wins_at_once():
    """match.wins_outright: the side whose captures meet the condition as a hand ends wins the
    match then, far below the target and behind on points; no side meeting it, play goes on."""
    from escoba.engine.match import Match

    match = Match(base_with(match__wins_outright=[ALL_COINS]), 2, target=21)
    events = _finish_with_piles(match, [2, 6], ["1♣ 2♣", "7♥"])
    assert not match.is_over and [e["event"] for e in events] == ["totals"]
    events = _finish_with_piles(match, [4, 1], [COINS, "7♥"])
    assert match.winners == [0]
    assert events[-1] == {"event": "match_end", "winners": [0], "totals": [6, 7], "reason": "won at once: every coin"}


def test_two_sides_winning_at_once_is_a_tie():
    """Two sides meeting winning conditions in one hand: an exact tie, played as the match's
    tie rule says (another hand, or a shared win)."""
    from escoba.engine.match import Match

    sevens = {"id": "all-sevens", "measure": "count(rank(cards, 7)) == 4"}
    piles = [COINS, "7♥ 7♠ 7♣ 7♦"]  # (the 7♦ twice: the condition, not the deck, is what is tested)
    match = Match(base_with(match__wins_outright=[ALL_COINS, sevens], match__tie="extra_hand"), 2, target=21)
    events = _finish_with_piles(match, [3, 2], piles)
    assert not match.is_over and events[-1] == {"event": "tie", "sides": [0, 1], "totals": [3, 2]}
    match = Match(base_with(match__wins_outright=[ALL_COINS, sevens], match__tie="shared_win"), 2, target=21)
    events = _finish_with_piles(match, [3, 2], piles)
    assert match.winners == [0, 1] and events[-1]["reason"] == "won at once: every coin, all-sevens"


def test_a_winning_condition_must_be_a_condition(tmp_path):
    """A way to win at once whose measure is a number, not true or false, is a located problem."""
    from escoba.rules import check

    path = tmp_path / "t.yaml"
    path.write_text("dsl: 1\nid: t\nkind: house\nextends: base\nmatch:\n  wins_outright:\n"
                    "    - {id: lots, measure: count(cards)}\n", encoding="utf-8")  # fmt: skip
    found = [str(p) for p in check(str(path))]
    assert any("$.match.wins_outright[0].measure: the measure of a way to win at once must be a condition" in p for p in found), found


# --------------------------------------------------------------------------- jokers


def test_joker_captures_are_every_subset_that_makes_the_target():
    """de-jokers: with a joker played or on the table, the pruned search finds exactly the
    subsets a brute force over every subset finds (a joker is worth any card value)."""
    import random
    from itertools import combinations

    import escoba

    rules = escoba.load_ruleset("de-jokers")
    finder, rng = rules.finder, random.Random(5)
    cards = list(rules.deck.cards)
    jokers = [c for c in cards if rules.deck.is_joker(c)]
    for trial in range(500):
        rng.shuffle(cards)
        size = rng.randrange(1, 9)
        table, card = cards[:size], cards[size]
        if trial % 2 and not set(jokers) & {card, *table}:
            table = table + [jokers[trial % 2]]
        brute = sorted(
            subset
            for n in range(1, len(table) + 1)
            for subset in combinations(sorted(table), n)
            if finder.makes_target((card, *subset))
        )
        assert finder.captures(card, table) == brute


@pytest.mark.parametrize("ruleset", ["base", "de-jokers"])
def test_opening_table_checks_agree_with_trying_every_subset(ruleset):
    """'contains a 15' and 'splits into groups of 15' find exactly what a brute force finds,
    jokers included."""
    import random
    from itertools import combinations

    import escoba

    rules = escoba.load_ruleset(ruleset)
    finder, rng, cards = rules.finder, random.Random(2), list(rules.deck.cards)

    def splits(table):
        if finder.makes_target(table):
            return 1
        for k in range(2, len(table) - 1):
            for part in combinations(table, k):
                rest = [c for c in table if c not in part]
                if finder.makes_target(part) and finder.makes_target(rest):
                    return 2
        return 0

    for _ in range(1000):
        rng.shuffle(cards)
        table = cards[: rng.randrange(1, 8)]
        contains = any(finder.makes_target(s) for k in range(2, len(table) + 1) for s in combinations(table, k))
        assert finder.any_combination(table) == contains
        assert finder.split_groups(table, 2) == splits(table)
