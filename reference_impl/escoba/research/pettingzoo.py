"""Every ruleset as a PettingZoo AEC environment (optional extra: `pip install 'escoba[pettingzoo]'`).

    from escoba.research.pettingzoo import env
    e = env("da", players=2)                 # a bundled id or a ruleset file; match=True: a match
    e.reset(seed=7)                          # deals as Hand(rules, 2, 0, seed=7) does
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents are `player_0` … `player_<n-1>`, the seats. An action spells a move as in the OpenSpiel
bridge (`escoba.research.moves`: the card, each card taken, `stop`), so the action space is
`Discrete(2 × deck + 1)` and the observation a dict of `observation` (the seat's observation
tensor, `escoba.research.observe`; with `perfect_recall=True` its information-state tensor)
and `action_mask` (1 for each legal action of the agent to play, all 0 for the others).
Rewards come at the end: each seat's side's lead for a hand, its share of the win for a match
(`escoba.research.state`). Chance is not an agent: `reset(seed=)` shuffles the deck orders
with escoba's own generator (`shuffled_decks`), a redeal drawing the next one.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

import escoba
from escoba.engine.hand import shuffled_decks
from escoba.research.observe import Layout, Observer
from escoba.research.state import HandState, MatchState
from escoba.rules.compile import Rules


def env(ruleset: str | Rules = "base", players: int = 2, **kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's order-enforcing wrapper (stepping before `reset`, or
    observing an unknown agent, is an error that says so)."""
    return wrappers.OrderEnforcingWrapper(raw_env(ruleset, players, **kwargs))


class raw_env(AECEnv):  # PettingZoo's own name for an unwrapped environment
    """One hand (or, with `match=True`, a match to `target`) of a ruleset at a table of `players`."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "escoba_v0", "is_parallelizable": False}

    def __init__(self, ruleset: str | Rules = "base", players: int = 2, *, dealer: int = 0, match: bool = False,
                 target: int = 0, perfect_recall: bool = False, render_mode: str | None = None):  # fmt: skip
        super().__init__()
        rules = escoba.load_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
        if players not in rules.player_counts:
            raise ValueError(f"{rules.id} is played by {', '.join(map(str, rules.player_counts))} players, not {players}")
        if not 0 <= dealer < players:
            raise ValueError(f"dealer must be a seat from 0 to {players - 1}, got {dealer}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        if match and perfect_recall:
            raise ValueError("a match's perfect recall does not fit a tensor: perfect_recall is for one hand")
        self.rules, self.players, self.dealer = rules, players, dealer
        self.match, self.target = match, int(target) or rules.match_target
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self._observer = Observer(Layout(rules, players, recall=perfect_recall, match=match))
        low, high = self._observer.layout.bounds()
        count = 2 * len(rules.deck) + 1
        observation = spaces.Dict({"observation": spaces.Box(low, high, dtype=np.float32),
                                   "action_mask": spaces.Box(0, 1, (count,), dtype=np.int8)})  # fmt: skip
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation)
        self.action_spaces = dict.fromkeys(self.possible_agents, spaces.Discrete(count))
        self._decks = shuffled_decks(rules, random.Random())
        self.core: HandState | MatchState | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._decks = shuffled_decks(self.rules, random.Random(seed))
        if self.match:
            self.core = MatchState(self.rules, self.players, self.dealer, self.target)
        else:
            self.core = HandState(self.rules, self.players, self.dealer)
        self._deal()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict] = {agent: {} for agent in self.agents}
        self.agent_selection = self.agents[self.core.current_player()]

    def _deal(self) -> None:
        """Draw deck orders until a player is to act (a match deals each hand when the last ends)."""
        state = self.core
        assert state is not None
        while state.is_chance():
            for card in next(self._decks):
                state.apply(card)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.core is not None
        seat = self.possible_agents.index(agent)
        self._observer.fill(self.core, seat)
        mask = np.zeros(self.action_spaces[agent].n, np.int8)
        if not self.core.is_terminal() and self.core.current_player() == seat:
            mask[self.core.legal_actions()] = 1
        return {"observation": self._observer.tensor.copy(), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.core
        assert state is not None
        self._cumulative_rewards[agent] = 0.0
        state.apply(int(action))
        self._deal()
        if state.is_terminal():
            returns = state.returns()
            self.rewards = {a: float(returns[seat]) for seat, a in enumerate(self.possible_agents)}
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.agents[0]
        else:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.agent_selection = self.possible_agents[state.current_player()]
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode is None or self.core is None:
            return None
        hand_state = self.core.current if isinstance(self.core, MatchState) else self.core
        return str(hand_state.hand.to_json()) if hand_state.hand is not None else "dealing"

    def close(self) -> None:
        self.core = None
