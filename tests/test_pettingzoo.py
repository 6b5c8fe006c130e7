"""The PettingZoo environment: PettingZoo's own API test on every bundled ruleset at every player
count, seeded resets, action masks, rewards.

pettingzoo is in the `test` extra, so CI runs these; without it they fail (no skip hides them).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import escoba
from escoba.engine.hand import Hand
from escoba.engine.match import Match
from escoba.research.bounds import lead_range
from escoba.research.pettingzoo import env, raw_env
from escoba.rules import bundled_ids

TABLES = [(rid, n) for rid in bundled_ids() for n in escoba.load_ruleset(rid).player_counts]
# What api_test says of every environment whose observation is a dict with an action mask
# (PettingZoo's own classic games included); anything else it says is a failure here.
KNOWN = ("Observation space for each agent probably should be", "Observation is not a NumPy array")


def checked(e) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(e, num_cycles=60)
    return sorted({str(w.message) for w in caught if not str(w.message).startswith(KNOWN)})


@pytest.mark.parametrize("ruleset, players", TABLES)
def test_pettingzoos_api_test_passes(ruleset, players):
    """pettingzoo.test.api_test passes on a hand of this ruleset at this table, with no warning
    beyond the two it gives every action-masked environment."""
    assert checked(env(ruleset, players)) == []


@pytest.mark.parametrize("kwargs", [{"match": True, "target": 5}, {"perfect_recall": True}])
def test_pettingzoos_api_test_passes_on_a_match_and_with_perfect_recall(kwargs):
    """api_test passes on the match environment and on the perfect-recall observation."""
    assert checked(env("de-redeal", 4, **kwargs)) == []


def test_seeded_environments_are_deterministic():
    """pettingzoo.test.seed_test: two environments reset with the same seed play alike."""
    seed_test(lambda: env("da", 2), num_cycles=100)


def test_reset_with_a_seed_deals_what_hand_deals_with_that_seed():
    """reset(seed=s) deals the hand `Hand(rules, players, dealer, seed=s)` deals (and a match
    the hands `Match(..., seed=s)` deals), so a run is reproducible from escoba's own seeds."""
    rules = escoba.load_ruleset("de-redeal")
    for seed in range(6):
        e = raw_env("de-redeal", 3, dealer=1)
        e.reset(seed=seed)
        assert e.core.hand.to_json() == Hand(rules, 3, 1, seed=seed, record=False).to_json()
    m = raw_env("da", 2, match=True)
    m.reset(seed=4)
    assert m.core.current.hand.to_json() == Match(escoba.load_ruleset("da"), 2, seed=4, record=False).new_hand().to_json()


def test_masks_rewards_and_the_end_of_a_hand():
    """Only the agent to play has legal actions in its mask; stepping an action outside it is an
    error; at the end every agent's reward is its side's lead, zero-sum and within the bounds."""
    e = env("fr", 3)
    e.reset(seed=2)
    rules = escoba.load_ruleset("fr")
    bounds = lead_range(rules, 3)
    rewards = {}
    rng = np.random.default_rng(0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        if terminated or truncated:
            rewards[agent] = reward
            e.step(None)
            continue
        for other in e.agents:
            mask = e.observe(other)["action_mask"]
            assert (mask.sum() > 0) == (other == agent)
        legal = np.flatnonzero(obs["action_mask"])
        illegal = next(a for a in range(81) if a not in legal)
        with pytest.raises(ValueError):
            e.unwrapped.step(illegal)
        e.step(int(rng.choice(legal)))
    assert set(rewards) == {"player_0", "player_1", "player_2"}
    assert sum(rewards.values()) == pytest.approx(0.0)
    assert all(bounds.low <= r <= bounds.high for r in rewards.values())
