"""The OpenSpiel bridge: every ruleset as a game, checked by OpenSpiel's own random simulation.

open_spiel is in the `test` extra, so CI runs these; without it they fail (no skip hides them).
"""

from __future__ import annotations

import random

import pyspiel
import pytest

import escoba
import escoba.openspiel as bridge
from escoba.engine.hand import Hand, shuffled_decks
from escoba.rules import bundled_ids

TABLES = [(rid, n) for rid in bundled_ids() for n in (2, 4) if n in escoba.load_ruleset(rid).player_counts]


def test_every_bundled_ruleset_is_registered():
    """Importing the bridge registers python_escoba_<id> for every bundled ruleset."""
    registered = set(pyspiel.registered_names())
    assert {bridge.game_name(rid) for rid in bundled_ids()} <= registered
    assert bridge.game_name("da-velo2") == "python_escoba_da_velo2"


@pytest.mark.parametrize("ruleset, players", TABLES)
def test_openspiels_random_simulation_check_passes(ruleset, players):
    """pyspiel.random_sim_test (legal actions, chance outcomes, clones, observations, returns
    within the utility bounds, serialization) passes at this table."""
    game = pyspiel.load_game(bridge.game_name(ruleset), {"players": players})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("ruleset, players", [("da", 2), ("de", 4), ("fr", 3), ("de-jokers", 2), ("sv", 2)])
def test_a_game_through_the_bridge_returns_what_the_reference_hand_scores(ruleset, players):
    """A full game dealt from a known deck order and played by seeded random choices through
    OpenSpiel gives, seat by seat, the leads of the reference Hand playing the same moves."""
    rules = escoba.load_ruleset(ruleset)
    for seed in range(3):
        order = next(shuffled_decks(rules, random.Random(seed)))
        state = bridge.load(ruleset, players).new_initial_state()
        for card in order:
            assert state.is_chance_node()
            state.apply_action(card)
        if state.is_chance_node():  # this order asks for a redeal: pick another seed
            continue
        hand = Hand(rules, players, 0, [order], record=False)
        rng = random.Random(seed)
        while not state.is_terminal():
            assert state.current_player() == hand.to_play
            actions = state.legal_actions()
            assert len(actions) == len(hand.legal_moves())
            action = actions[rng.randrange(len(actions))]
            hand.apply(state.move_of(action))
            state.apply_action(action)
        assert hand.is_over and hand.points is not None
        total = sum(hand.points)
        others = max(1, hand.sides - 1)
        expected = [hand.points[hand.side_of[s]] - (total - hand.points[hand.side_of[s]]) / others for s in range(players)]
        assert state.returns() == pytest.approx(expected)
        assert sum(state.returns()[s] for s in [seats[0] for seats in rules.sides(players)]) == pytest.approx(0.0)


def test_observations_hide_what_a_seat_cannot_see():
    """A seat's observation string is its view's key; two states that differ only in an
    opponent's hidden cards give it the same observation, and the information state adds the plays."""
    rules = escoba.load_ruleset("base")
    order = next(shuffled_decks(rules, random.Random(4)))
    game = bridge.load("base", 2)
    state = game.new_initial_state()
    for card in order:
        state.apply_action(card)
    hand = Hand(rules, 2, 0, [order], record=False)
    assert state.observation_string(0) == f"p0 {hand.view(0).key()}"
    swapped = list(order)
    i, j = 0, len(order) - 1  # seat 1 leads and is dealt first: its first card, and the stock's last
    swapped[i], swapped[j] = swapped[j], swapped[i]
    other = game.new_initial_state()
    for card in swapped:
        other.apply_action(card)
    assert other.observation_string(0) == state.observation_string(0)
    assert other.observation_string(1) != state.observation_string(1)
    action = state.legal_actions()[0]
    state.apply_action(action)
    assert "plays[1:" in state.information_state_string(0)
    tensor = state.observation_tensor(0)
    assert len(tensor) == len(rules.deck) * (4 + 2) + 2 + 2 and sum(tensor) > 0


def test_a_house_rule_file_is_a_game_too():
    """`load(path)` registers a house rule file and plays it through OpenSpiel's check."""
    game = bridge.load("spec/house/escoba-doble.yaml", 2)
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)
