"""The research bridges' shared core (escoba.research): moves spelled as actions, bounds,
honest resampling, observations. OpenSpiel's and PettingZoo's own API tests are in
tests/test_openspiel.py and tests/test_pettingzoo.py."""

from __future__ import annotations

import random

import numpy as np
import pytest

import escoba
from escoba.engine.arrange import arrange_deck
from escoba.engine.deal import leader
from escoba.engine.hand import Hand
from escoba.game.moves import Move
from escoba.research import moves
from escoba.research.bounds import dealt, lead_range, max_decisions, max_escobas
from escoba.research.observe import Layout, Observer
from escoba.research.state import HandState, MatchState
from escoba.rules import bundled_ids
from positions import da_87

TABLES = [(rid, n) for rid in bundled_ids() for n in escoba.load_ruleset(rid).player_counts]


def spellings(actions: moves.Actions, hand: Hand, pending: moves.Pending = moves.NOTHING, prefix=()) -> dict:
    """Every complete spelling reachable from `pending`, by the move it makes (a walk of the
    action tree through `legal_actions` and `step` only)."""
    found: dict[Move, list[tuple[int, ...]]] = {}
    for action in moves.legal_actions(actions, hand, pending):
        after, move = moves.step(actions, hand, pending, action)
        if move is not None:
            found.setdefault(move, []).append((*prefix, action))
        else:
            for m, paths in spellings(actions, hand, after, (*prefix, action)).items():
                found.setdefault(m, []).extend(paths)
    return found


def dealt_state(ruleset: str, players: int, seed: int, dealer: int = 0) -> HandState:
    state = HandState(escoba.load_ruleset(ruleset), players, dealer)
    rng = random.Random(seed)
    while state.is_chance():
        outcomes = state.chance_outcomes()
        state.apply(outcomes[rng.randrange(len(outcomes))])
    return state


def random_states(ruleset: str, players: int, seed: int, hands: int = 1):
    """Every decision state of `hands` random hands (each a clone), with the generator."""
    rng = random.Random(seed)
    for h in range(hands):
        state = dealt_state(ruleset, players, rng.randrange(1 << 30), dealer=h % players)
        while not state.is_terminal():
            yield state.clone(), rng
            actions = state.legal_actions()
            state.apply(actions[rng.randrange(len(actions))])


# --------------------------------------------------------------------------- moves as actions
@pytest.mark.parametrize("ruleset", ["da", "fr", "de-jokers", "cirulla", "scopa", "de"])
def test_the_action_tree_spells_exactly_the_legal_moves_once_each(ruleset):
    """At every position of random hands, walking the legal actions reaches each legal move by
    exactly one spelling, and nothing else; `actions_of` gives that spelling."""
    checked = 0
    for state, _ in random_states(ruleset, 3 if ruleset == "fr" else 2, seed=11, hands=3):
        hand = state.hand
        found = spellings(state.actions, hand)
        assert sorted(found) == sorted(hand.legal_moves())
        for move, paths in found.items():
            assert len(paths) == 1
            assert moves.actions_of(state.actions, hand, move) == list(paths[0])
        checked += 1
    assert checked > 30


def test_actions_mean_the_same_card_in_every_state():
    """Action c plays card c, deck + c takes card c, 2 × deck stops, whatever the table."""
    actions = moves.Actions(40)
    assert (actions.play(7), actions.take(7), actions.stop, actions.count) == (7, 47, 80, 81)
    codes = escoba.load_ruleset("da").deck.code
    assert [moves.action_text(actions, codes, a) for a in (6, 46, 80)] == ["7d", "+7d", "stop"]


def test_an_illegal_action_is_refused_and_changes_nothing():
    """A card not in the hand, a card the move cannot take, or a stop before a legal move: ValueError."""
    state = dealt_state("fr", 2, seed=3)
    before = state.hand.to_json()
    held = set(state.hand.hands[state.hand.to_play])
    absent = next(c for c in range(40) if c not in held)
    with pytest.raises(ValueError, match="does not play a card"):
        state.apply(absent)
    with pytest.raises(ValueError, match="does not name a card"):
        moves.step(state.actions, state.hand, moves.Pending(min(held), (), ((1,), (2,))), state.actions.take(3))
    with pytest.raises(ValueError, match="stop"):
        moves.step(state.actions, state.hand, moves.Pending(min(held), (), ((1,), (2,))), state.actions.stop)
    assert state.hand.to_json() == before


def test_fr_worst_position_an_ace_on_a_table_of_39_cards():
    """Under optional capture every card may be placed, so at the last play the other 39 cards can
    lie on the table (dealt with arrange_deck, played as placements through the actions); the ace
    then has 6,405 ways to make 15 and placing it: 6,406 moves, each reached by one spelling."""
    rules = escoba.load_ruleset("fr")
    deck = rules.deck
    ace = deck.card("1c")
    others = [c for c in deck.cards if c != ace]
    table, rest = others[:4], others[4:]
    last = 1 - leader(rules, 2, 0)  # at two, the seat that does not lead plays last
    rounds = [[rest[6 * k : 6 * k + 3], rest[6 * k + 3 : 6 * k + 6]] for k in range(5)]
    rounds.append([[], []])
    rounds[5][last], rounds[5][1 - last] = [rest[30], rest[31], ace], rest[32:35]
    order = arrange_deck(rules, 2, 0, table, rounds)
    state = HandState(rules, 2, 0)
    for card in order:
        state.apply(card)
    while state.hand.plays != 35:
        held = sorted(c for c in state.hand.hands[state.hand.to_play] if c != ace)
        for action in moves.actions_of(state.actions, state.hand, Move(held[0], ())):
            state.apply(action)
    assert state.hand.hands[state.hand.to_play] == [ace] and len(state.hand.table) == 39
    legal = state.hand.legal_moves()
    assert len(legal) == 6406
    found = spellings(state.actions, state.hand)
    assert sorted(found) == sorted(legal) and all(len(p) == 1 for p in found.values())
    assert max(len(p[0]) for p in found.values()) <= 1 + 14 + 1  # the card, at most 14 aces and twos… , stop


# --------------------------------------------------------------------------- bounds
def test_bounds_are_the_hand_counted_figures():
    """da at two: 36 cards played, one capture and 35 placements at most 75 actions ((36-1)·1 + 1
    + 4 + 35); escobas at most 18 plays + 2 opening groups = 20, plus four one-point
    categories: a lead within ±24. fr at three (capture optional): 12 cards each, placements two
    actions: 35·2 + 1 + 4 + 35 = 110, and ±(12 + 2 + 4) = ±18. de-jokers: nested captures
    (jokers) add a stop."""
    da, fr, jokers = (escoba.load_ruleset(r) for r in ("da", "fr", "de-jokers"))
    assert dealt(da, 2) == [18, 18] and max_escobas(da, 2) == [20, 20]
    assert max_decisions(da, 2) == 75 and (lead_range(da, 2).low, lead_range(da, 2).high) == (-24, 24)
    assert dealt(fr, 3) == [12, 12, 12] and max_decisions(fr, 3) == 110
    assert (lead_range(fr, 3).low, lead_range(fr, 3).high) == (-18, 18)
    assert max_decisions(jokers, 2) == (38 - 1) * 1 + 2 + 4 + (38 - 1)


@pytest.mark.parametrize("ruleset, players", TABLES)
def test_random_hands_stay_within_the_bounds(ruleset, players):
    """A few random hands of every ruleset and table: actions taken never pass max_decisions and
    returns stay within the lead bounds (returns() raises otherwise)."""
    rules = escoba.load_ruleset(ruleset)
    bound, leads = max_decisions(rules, players), lead_range(rules, players)
    rng = random.Random(5)
    for h in range(2):
        state = dealt_state(ruleset, players, rng.randrange(1 << 30), dealer=h % players)
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply(actions[rng.randrange(len(actions))])
        assert len(state.spelled) <= bound
        assert all(leads.low <= r <= leads.high for r in state.returns(leads))


# --------------------------------------------------------------------------- resampling
@pytest.mark.parametrize("ruleset, players", [("da", 2), ("de", 4), ("de-redeal", 2), ("ru", 3), ("de-open", 2),
                                              ("velo-escoba-double", 2), ("scopone", 4), ("cirulla", 2),
                                              ("cirulla", 3)])  # fmt: skip
def test_a_resampled_history_replays_to_the_same_information_state(ruleset, players):
    """Replaying a resampled history gives a state whose information state (perfect recall)
    and observation for the player are this one's, with the same legal actions."""
    rules = escoba.load_ruleset(ruleset)
    recall = Observer(Layout(rules, players, recall=True, match=False))
    seen = 0
    for state, rng in random_states(ruleset, players, seed=2, hands=2):
        player = state.current_player()
        replay = HandState(rules, players, state.hand.dealer if not state.redealt() else state.dealer)
        for action in state.resampled_history(player, rng):
            replay.apply(action)
        assert recall.string(replay, player) == recall.string(state, player)
        assert replay.legal_actions() == state.legal_actions()
        recall.fill(state, player)
        mine = recall.tensor.copy()
        recall.fill(replay, player)
        assert np.array_equal(mine, recall.tensor)
        seen += 1
    assert seen > 20


@pytest.mark.parametrize("ruleset", ["da", "de"])
def test_resampling_reads_nothing_the_player_has_not_seen(ruleset):
    """Two states that differ only in cards seat 0 cannot see (an opponent's hidden card swapped
    with a stock card) give the same resampled history for seat 0 from the same seed."""
    rules = escoba.load_ruleset(ruleset)
    first = dealt_state(ruleset, 2, seed=8)
    order = list(first.orders[-1])
    i = order.index(first.hand.hands[1][0])  # a card of seat 1's hidden hand, swapped with the stock's last
    swapped = list(order)
    swapped[i], swapped[-1] = swapped[-1], swapped[i]
    states = []
    for o in (order, swapped):
        state = HandState(rules, 2, 0)
        for card in o:
            state.apply(card)
        states.append(state)
    assert states[0].hand.hands[0] == states[1].hand.hands[0] and states[0].hand.hands[1] != states[1].hand.hands[1]
    assert states[0].resampled_history(0, random.Random(4)) == states[1].resampled_history(0, random.Random(4))
    assert states[0].resampled_history(1, random.Random(4)) != states[1].resampled_history(1, random.Random(4))


def test_resampling_deals_every_unseen_card_into_the_hidden_hand():
    """Over 2,000 resamples of seat 0's first decision, each of the 33 cards it has not seen lands
    in seat 1's hidden hand about 3/33 of the time (each within 4 standard deviations)."""
    state = dealt_state("da", 2, seed=21)
    unseen = state.hand.view(0).unseen
    counts = dict.fromkeys(unseen, 0)
    rng = random.Random(1)
    n = 2000
    for _ in range(n):
        replay = HandState(state.rules, 2, 0)
        for action in state.resampled_history(0, rng)[:40]:
            replay.apply(action)
        for c in replay.hand.hands[1]:
            counts[c] += 1
    p = 3 / len(unseen)
    sd = (n * p * (1 - p)) ** 0.5
    assert all(abs(k - n * p) < 4 * sd for k in counts.values()), counts


# --------------------------------------------------------------------------- observations
@pytest.mark.parametrize("ruleset, players", [("da", 2), ("de", 4), ("velo-escoba-double", 2), ("fr", 3), ("cirulla", 2)])
def test_the_observation_tensor_tells_apart_what_the_string_does(ruleset, players):
    """Over the states of random hands, two states with the same observation tensor for a seat
    have the same observation string (the view's key, the last capturer included), and the same
    holds for the information state."""
    rules = escoba.load_ruleset(ruleset)
    for recall in (False, True):
        observer = Observer(Layout(rules, players, recall=recall, match=False))
        by_tensor: dict[bytes, str] = {}
        for state, _ in random_states(ruleset, players, seed=3, hands=6):
            for seat in range(players):
                observer.fill(state, seat)
                text = observer.string(state, seat)
                assert by_tensor.setdefault(observer.tensor.tobytes(), text) == text


def test_the_last_capturer_is_in_the_observation():
    """Two positions alike but for who captured last give seat 0 different observation tensors."""
    state = dealt_state("da", 2, seed=1)
    other = state.clone()
    other.hand.last_capturer = 0 if state.hand.last_capturer != 0 else 1
    observer = Observer(Layout(state.rules, 2, recall=False, match=False))
    observer.fill(state, 0)
    first = observer.tensor.copy()
    observer.fill(other, 0)
    assert not np.array_equal(first, observer.tensor)
    assert observer.dict["last_capturer"].sum() == 1


def test_observations_stay_within_the_layout_bounds():
    """Every entry of every observation of random hands (hand and match) lies within the
    layout's low and high (what PettingZoo's observation space says)."""
    for ruleset, players in [("da", 2), ("de-redeal", 4), ("cirulla", 3)]:
        rules = escoba.load_ruleset(ruleset)
        for recall in (False, True):
            observer = Observer(Layout(rules, players, recall=recall, match=False))
            low, high = observer.layout.bounds()
            for state, _ in random_states(ruleset, players, seed=9, hands=2):
                observer.fill(state, state.current_player())
                assert np.all(low <= observer.tensor) and np.all(observer.tensor <= high)


# --------------------------------------------------------------------------- matches
def test_a_match_ends_with_win_or_loss_returns_and_clones_independently():
    """A random match of da to 21: the winner's seats get +1, the loser's -1; a clone taken
    mid-match plays on without changing the original."""
    rules = escoba.load_ruleset("da")
    state = MatchState(rules, 2, 0, 21)
    rng = random.Random(3)
    copy = None
    while not state.is_terminal():
        if state.is_chance():
            outcomes = state.chance_outcomes()
            state.apply(outcomes[rng.randrange(len(outcomes))])
        else:
            actions = state.legal_actions()
            state.apply(actions[rng.randrange(len(actions))])
        if copy is None and state.match.hands_played == 1 and not state.is_chance():
            copy = state.clone()
            frozen = (list(state.match.totals), state.current.hand.to_json())
    assert sorted(state.returns()) == [-1.0, 1.0]
    assert state.match.winners == [state.returns().index(1.0)]
    assert copy is not None and (copy.match.totals, copy.current.hand.to_json()) == frozen


def test_da_position_with_87_captures_for_one_card():
    """The da position where 1♠ has 87 ways to capture (the first bridge failed above 63): every
    legal move, the 87 included, is spelled exactly once by the action tree."""
    order, plays = da_87()
    state = HandState(escoba.load_ruleset("da"), 2, 0)
    for card in order:
        state.apply(card)
    for move in plays:
        for action in moves.actions_of(state.actions, state.hand, move):
            state.apply(action)
    legal = state.hand.legal_moves()
    ace = state.rules.deck.card("1s")
    assert sum(1 for m in legal if m.card == ace) == 87 and len(state.hand.table) == 14
    found = spellings(state.actions, state.hand)
    assert sorted(found) == sorted(legal) and all(len(p) == 1 for p in found.values())
