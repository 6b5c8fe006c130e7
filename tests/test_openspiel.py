"""The OpenSpiel bridge: OpenSpiel's own checks on every bundled ruleset at every player count,
IS-MCTS on it, the match game, escoba's bots as OpenSpiel bots, seeded deals.

open_spiel is in the `test` extra, so CI runs these; without it they fail (no skip hides them).
"""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

import escoba
import escoba.openspiel as old_path
import escoba.research.openspiel as bridge
from escoba.data import spec_dir
from escoba.engine.bots import bot_maker
from escoba.engine.hand import Hand, shuffled_decks
from escoba.research import moves
from escoba.research.bounds import lead_range, max_decisions
from escoba.rules import bundled_ids
from escoba.simulate import deal_hand
from positions import da_87

TABLES = [(rid, n) for rid in bundled_ids() for n in escoba.load_ruleset(rid).player_counts]


def test_every_bundled_ruleset_is_registered():
    """Importing the bridge (under either path) registers python_escoba, python_escoba_match and
    python_escoba_<id> for every bundled ruleset."""
    registered = set(pyspiel.registered_names())
    assert {"python_escoba", "python_escoba_match"} <= registered
    assert {bridge.game_name(rid) for rid in bundled_ids()} <= registered
    assert bridge.game_name("da-velo2") == "python_escoba_da_velo2"
    assert old_path.load is bridge.load


@pytest.mark.parametrize("ruleset, players", TABLES)
def test_openspiels_random_simulation_check_passes(ruleset, players):
    """pyspiel.random_sim_test (legal actions, chance outcomes, clones, observation and
    information-state strings and tensors, returns within the utility bounds, game length within
    its bound, serialization) passes on the game of this ruleset at this table."""
    game = pyspiel.load_game("python_escoba", {"ruleset": ruleset, "players": players})
    assert game.max_game_length() == max_decisions(game.rules, players)
    assert game.max_utility() == lead_range(game.rules, players).high
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("ruleset, players", [("da", 2), ("de", 4), ("fr", 3), ("cirulla", 2), ("de-redeal", 3)])
def test_openspiels_check_passes_on_the_match_game(ruleset, players):
    """random_sim_test passes on a match (to 5 points, to keep it short) of this ruleset."""
    game = pyspiel.load_game("python_escoba_match", {"ruleset": ruleset, "players": players, "target": 5})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)
    assert (game.min_utility(), game.max_utility()) == ((-1.0, 1.0) if len(game.rules.sides(players)) == 2 else (-0.5, 1.0))


@pytest.mark.parametrize("ruleset, players", [("da", 2), ("de", 4), ("fr", 3), ("de-jokers", 2), ("sv", 2)])
def test_a_game_through_the_bridge_returns_what_the_reference_hand_scores(ruleset, players):
    """A game dealt from a known deck order and played by seeded random moves, each spelled as
    actions, gives seat by seat the leads of the reference Hand playing the same moves."""
    rules = escoba.load_ruleset(ruleset)
    for seed in range(3):
        order = next(shuffled_decks(rules, random.Random(seed)))
        state = bridge.load(ruleset, players).new_initial_state()
        bridge.deal(state, [order])
        if state.is_chance_node():  # this order asks for a redeal: pick another seed
            continue
        hand = Hand(rules, players, 0, [order], record=False)
        rng = random.Random(seed)
        while not state.is_terminal():
            assert state.current_player() == hand.to_play
            move = hand.legal_moves()[rng.randrange(len(hand.legal_moves()))]
            for action in moves.actions_of(state.hand_state.actions, hand, move):
                assert action in state.legal_actions()
                state.apply_action(action)
            hand.apply(move)
        points = hand.points
        assert points is not None
        others = max(1, hand.sides - 1)
        expected = [points[hand.side_of[s]] - (sum(points) - points[hand.side_of[s]]) / others for s in range(players)]
        assert state.returns() == pytest.approx(expected)


def test_observations_hide_what_a_seat_cannot_see():
    """Two deals that differ only in seat 1's hidden cards give seat 0 the same observation and
    information state (strings and tensors), and seat 1 different ones."""
    rules = escoba.load_ruleset("base")
    order = next(shuffled_decks(rules, random.Random(4)))
    game = bridge.load("base", 2)
    state = bridge.deal(game.new_initial_state(), [order])
    swapped = list(order)
    i = order.index(state.hand_state.hand.hands[1][0])
    swapped[i], swapped[-1] = swapped[-1], swapped[i]
    other = bridge.deal(game.new_initial_state(), [swapped])
    for method in ("observation_string", "information_state_string", "observation_tensor", "information_state_tensor"):
        assert getattr(other, method)(0) == getattr(state, method)(0), method
        assert getattr(other, method)(1) != getattr(state, method)(1), method
    assert state.observation_string(0).startswith("p0 " + state.hand_state.hand.view(0).key())
    state.apply_action(state.legal_actions()[0])
    assert state.information_state_string(0) != state.observation_string(0)


def test_the_information_state_tensor_has_the_history():
    """Two orders of the same two placements leave the same observation but not the same
    information state: the history is in the tensor (perfect recall), not only in the string."""
    rules = escoba.load_ruleset("fr")  # capture optional: any card may be placed
    order = next(shuffled_decks(rules, random.Random(6)))
    game = bridge.load("fr", 2)
    ends = []
    for first in (0, 1):
        state = bridge.deal(game.new_initial_state(), [order])
        hand = state.hand_state.hand
        leader_cards = sorted(hand.hands[hand.to_play])
        other_cards = sorted(hand.hands[1 - hand.to_play])
        for card in (leader_cards[first], other_cards[0], leader_cards[1 - first], other_cards[1]):
            for action in moves.actions_of(state.hand_state.actions, state.hand_state.hand, (card, ())):
                state.apply_action(action)
        ends.append(state)
    assert ends[0].observation_tensor(0) == ends[1].observation_tensor(0)
    assert ends[0].information_state_tensor(0) != ends[1].information_state_tensor(0)


def test_any_ruleset_file_through_the_ruleset_parameter():
    """`ruleset` takes a file path as well as an id: a house rule file passes OpenSpiel's check."""
    path = str(spec_dir() / "house" / "escoba-doble.yaml")
    game = pyspiel.load_game("python_escoba", {"ruleset": path, "players": 3})
    assert game.rules.id == "escoba-doble"
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_bad_parameters_say_what_is_wrong():
    """An unknown ruleset, a table the ruleset does not allow, or a dealer off the table, is
    refused in words."""
    with pytest.raises(Exception, match="unknown ruleset 'nope'; known rulesets: base, da"):
        pyspiel.load_game("python_escoba", {"ruleset": "nope"})
    with pytest.raises(Exception, match="scopone is played by 4 players, not 2"):
        pyspiel.load_game("python_escoba", {"ruleset": "scopone", "players": 2})
    with pytest.raises(Exception, match="dealer must be a seat from 0 to 1"):
        pyspiel.load_game("python_escoba", {"ruleset": "da", "dealer": 5})


def test_openspiels_is_mcts_plays_hands_on_the_bridge():
    """OpenSpiel's own ISMCTSBot (resampling through resample_from_infostate, both with its
    default sampler and with the seeded resampler) plays whole hands of da and de to their end."""
    for ruleset, players, seeded in [("da", 2, True), ("de", 4, False)]:
        game = pyspiel.load_game("python_escoba", {"ruleset": ruleset, "players": players})
        rng = np.random.RandomState(3)
        bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, 6, random_state=rng)
        if seeded:
            bot.set_resampler(bridge.seeded_resampler(3))
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randint(len(outcomes))][0])
            else:
                state.apply_action(bot.step(state))
        assert sum(state.returns()) == pytest.approx(0.0)


def resamples_checked(game, seed: int, when=lambda state, rng: True) -> int:
    """Play a game by seeded random choices; where `when` says so, check that a resampled state
    has the player's information state string and legal actions. How many were checked."""
    rng = random.Random(seed)
    sampler = pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0)
    state = game.new_initial_state()
    checked = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            continue
        if when(state, rng):
            player = state.current_player()
            other = state.resample_from_infostate(player, sampler)
            assert other.information_state_string(player) == state.information_state_string(player)
            assert other.legal_actions() == state.legal_actions()
            checked += 1
        state.apply_action(rng.choice(state.legal_actions()))
    return checked


def test_resample_from_infostate_keeps_the_information_state():
    """A resampled state has the player's information state string and legal actions (de-redeal
    at three: deals dealt again, compulsory capture by hand)."""
    game = pyspiel.load_game("python_escoba", {"ruleset": "de-redeal", "players": 3})
    assert resamples_checked(game, 2) > 20


@pytest.mark.parametrize("spec", ["random", "greedy", "search:8"])
def test_escoba_bots_as_openspiel_bots_play_as_escoba_plays_them(spec):
    """EscobaBot plays, through the actions, exactly the moves the escoba bot of the same spec
    and seed plays on the reference Hand; pyspiel.evaluate_bots runs a game with them."""
    rules = escoba.load_ruleset("da")
    order = next(shuffled_decks(rules, random.Random(9)))
    state = bridge.deal(bridge.load("da", 2).new_initial_state(), [order])
    hand = Hand(rules, 2, 0, [order], record=False)
    bots = [bridge.EscobaBot(seat, spec, seed=seat) for seat in range(2)]
    mine = [bot_maker(spec)(random.Random(seat)) for seat in range(2)]
    while not hand.is_over:
        seat = hand.to_play
        move = mine[seat](hand)
        plays = len(state.hand_state.plays)
        while len(state.hand_state.plays) == plays:
            state.apply_action(bots[seat].step(state))
        assert state.hand_state.plays[-1] == (seat, move)
        hand.apply(move)
    game = pyspiel.load_game("python_escoba", {"ruleset": "de", "players": 4})
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bridge.bots(game, [spec, "random"]), 5)
    assert len(returns) == 4 and sum(returns) == pytest.approx(0.0)


@pytest.mark.parametrize("ruleset, players", [("da", 2), ("de-redeal", 2), ("de", 4)])
def test_seeded_deals_replay_escobas_simulations(ruleset, players):
    """seeded_state(ruleset, players, seed, i) deals hand i of `escoba simulate --seed` exactly
    (the same position, redeals included, seat i mod N dealing)."""
    rules = escoba.load_ruleset(ruleset)
    redeals = 0
    for i in range(12):
        hand, _, _ = deal_hand(rules, players, 7, i, [])
        state = bridge.seeded_state(ruleset, players, 7, i)
        assert state.hand_state.hand.to_json() == hand.to_json()
        assert state.hand_state.hand.dealer == i % players
        redeals += len(hand.deck_orders) - 1
    if ruleset == "de-redeal":
        assert redeals > 0  # the seeds include a deal dealt again


def test_the_position_that_broke_the_first_bridge_plays_on():
    """In the da position where 1♠ has 87 captures, OpenSpiel's legal actions, clones and every
    capture of 1♠ spelled through apply_action work, and random_sim_test's checks pass from there."""
    order, plays = da_87()
    game = bridge.load("da", 2)
    state = bridge.deal(game.new_initial_state(), [order])
    for move in plays:
        for action in moves.actions_of(state.hand_state.actions, state.hand_state.hand, move):
            state.apply_action(action)
    hand = state.hand_state.hand
    ace = game.rules.deck.card("1s")
    captures = [m for m in hand.legal_moves() if m.card == ace]
    assert len(captures) == 87 and ace in state.legal_actions()
    for move in captures:
        child = state.clone()
        for action in moves.actions_of(state.hand_state.actions, hand, move):
            child.apply_action(action)
        assert child.hand_state.plays[-1][1] == move
    pyspiel.random_sim_test_with_specific_initial_state(game, 2, state, serialize=True)


def test_resampling_a_match_keeps_the_information_state():
    """In a match (to 8 points, de at three: compulsory capture by hand, so some deals are drawn
    again), a resampled state after the first hand has the player's information state (every
    earlier hand's plays included) and legal actions."""
    game = pyspiel.load_game("python_escoba_match", {"ruleset": "de", "players": 3, "target": 8})
    assert resamples_checked(game, 4, lambda state, rng: state.core.match.hands_played and rng.random() < 0.3) > 5
