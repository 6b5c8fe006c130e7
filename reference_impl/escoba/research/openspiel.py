"""Every ruleset as an OpenSpiel game (optional extra: `pip install 'escoba[openspiel]'`).

    import escoba.research.openspiel as bridge, pyspiel
    game = pyspiel.load_game("python_escoba", {"ruleset": "da", "players": 2})   # one hand
    game = pyspiel.load_game("python_escoba_match", {"ruleset": "spec/house/escoba-doble.yaml"})
    game = pyspiel.load_game("python_escoba_da")                                 # per ruleset too

Importing this module registers `python_escoba` (one hand; parameters `ruleset`, a bundled id
or a file path, `players` and `dealer`), `python_escoba_match` (hands until a side reaches the
target, win or loss; also `target`, 0 for the ruleset's own) and one hand game per bundled
ruleset, `python_escoba_<id>` (hyphens become underscores). `register(path_or_id)` adds one
for another ruleset. docs/research.md has the whole contract; in short:

- **chance** deals: the deck order card by card (`escoba.research.state`);
- **actions** spell a move: the card, the cards it takes, `stop` (`escoba.research.moves`);
- **observations** and **information states** (perfect recall), tensors and strings, from
  `Hand.view` (`escoba.research.observe`); `resample_from_infostate` deals again what the
  player has not seen (`Hand.from_view`), so OpenSpiel's IS-MCTS runs on it;
- **returns** are each seat's side's lead (hand), or its share of the win (match);
- **bounds** follow from the ruleset (`escoba.research.bounds`);
- **bots**: escoba's own (`escoba.engine.bots` specs) as `pyspiel.Bot`s (`EscobaBot`);
- **seeded deals**: `seeded_state` deals hand `i` of `escoba simulate --seed S` in OpenSpiel.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pyspiel

import escoba
from escoba.engine.bots import bot_maker
from escoba.engine.hand import MAX_REDEALS
from escoba.engine.match import MAX_HANDS
from escoba.research import moves
from escoba.research.bounds import lead_range, max_decisions
from escoba.research.observe import ALL, NONE, SINGLE, Layout, Observer
from escoba.research.state import HandState, MatchState
from escoba.rules import bundled_ids
from escoba.rules.compile import Rules
from escoba.simulate import deal_hand, derive_seed

PREFIX = "python_escoba_"
HAND_GAME, MATCH_GAME = "python_escoba", "python_escoba_match"
MAX_PLAYERS = 4  # the schema's largest table
_fixed: dict[str, Rules] = {}  # per-ruleset game name -> its rules


def game_name(ruleset_id: str) -> str:
    return PREFIX + ruleset_id.replace("-", "_")


def _zero_sum(rules: Rules) -> bool:
    """Leads sum to zero over the seats when every side has as many seats."""
    return all(len({len(s) for s in rules.sides(n)}) == 1 for n in rules.player_counts)


def _game_type(name: str, long_name: str, params: dict[str, Any], *, match: bool, zero_sum: bool,
               players: Sequence[int]) -> Any:  # fmt: skip
    return pyspiel.GameType(
        short_name=name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(players),
        min_num_players=min(players),
        provides_information_state_string=True,
        provides_information_state_tensor=not match,  # a match's whole past does not fit a tensor
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params,
    )


class EscobaGame(pyspiel.Game):
    """A hand or a match of a ruleset as an OpenSpiel game (subclassed per registered name)."""

    NAME: str
    MATCH = False

    def __init__(self, params: Any = None):
        params = dict(params or {})
        name = self.NAME
        game_type = _TYPES[name]
        fixed = _fixed.get(name)
        given = {**game_type.parameter_specification, **params}
        rules = fixed if fixed is not None else escoba.load_ruleset(str(given["ruleset"]))
        players = int(given["players"])
        dealer = int(given["dealer"])
        if players not in rules.player_counts:
            raise ValueError(f"{rules.id} is played by {', '.join(map(str, rules.player_counts))} players, not {players}")
        if not 0 <= dealer < players:
            raise ValueError(f"dealer must be a seat from 0 to {players - 1}, got {dealer}")
        if fixed is None and not _zero_sum(rules):
            raise ValueError(f"{rules.id} has sides of different sizes (not zero-sum): register it with register()")
        self.rules, self.players, self.dealer = rules, players, dealer
        self.target = int(given.get("target", 0)) or rules.match_target
        if self.target < 1:
            raise ValueError(f"the target must be a positive number of points, got {self.target}")
        size = len(rules.deck)
        self.bounds = lead_range(rules, players)
        decisions = max_decisions(rules, players)
        chance = size * (MAX_REDEALS if rules.opening_action == "redeal" else 1)
        if self.MATCH:
            sides = len(rules.sides(players))
            low, high = (-1.0 / (sides - 1), 1.0) if sides > 1 else (0.0, 1.0)
            decisions, chance = decisions * MAX_HANDS, chance * MAX_HANDS
        else:
            low, high = self.bounds.low, self.bounds.high
        self.max_chance = chance
        info = pyspiel.GameInfo(
            num_distinct_actions=moves.Actions(size).count,
            max_chance_outcomes=size,
            num_players=players,
            min_utility=float(low),
            max_utility=float(high),
            utility_sum=0.0 if _zero_sum(rules) else None,
            max_game_length=decisions,
        )
        shown = {k: v for k, v in given.items() if k in game_type.parameter_specification}
        super().__init__(game_type, info, shown)

    def new_initial_state(self) -> EscobaState:
        return EscobaState(self)

    def max_chance_nodes_in_history(self) -> int:
        return self.max_chance

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> EscobaObserver:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        iig = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        private = {pyspiel.PrivateInfoType.NONE: NONE, pyspiel.PrivateInfoType.ALL_PLAYERS: ALL}.get(
            iig.private_info, SINGLE
        )
        layout = Layout(self.rules, self.players, recall=bool(iig.perfect_recall) and not self.MATCH, match=self.MATCH)
        return EscobaObserver(layout, private, recall=bool(iig.perfect_recall))


class EscobaState(pyspiel.State):
    """A `HandState` or `MatchState` (`_core`) behind OpenSpiel's state API."""

    def __init__(self, game: EscobaGame):
        super().__init__(game)
        core: HandState | MatchState
        if game.MATCH:
            core = MatchState(game.rules, game.players, game.dealer, game.target)
        else:
            core = HandState(game.rules, game.players, game.dealer)
        self._core = _Core(core, game.bounds if not game.MATCH else None)

    @property
    def core(self) -> HandState | MatchState:
        return self._core.state

    @property
    def hand_state(self) -> HandState:
        """The hand in play (a match's current hand)."""
        core = self._core.state
        return core.current if isinstance(core, MatchState) else core

    def current_player(self) -> int:
        return self.core.current_player()

    def is_terminal(self) -> bool:
        return self.core.is_terminal()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = self.core.chance_outcomes()
        p = 1.0 / len(left)
        return [(c, p) for c in left]

    def _legal_actions(self, player: int) -> list[int]:
        return self.core.legal_actions()

    def _apply_action(self, action: int) -> None:
        self.core.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        codes = self.hand_state.rules.deck.code
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal:{codes[action]}"
        return moves.action_text(self.hand_state.actions, codes, int(action))

    def returns(self) -> list[float]:
        core = self.core
        if isinstance(core, MatchState):
            return core.returns()
        return core.returns(self._core.bounds)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> EscobaState:
        """A state `player_id` cannot tell from this one, with everything it has not seen dealt
        again at random (`HandState.resampled_history`); `probability_sampler()` seeds the draw."""
        rng = random.Random(int(probability_sampler() * 2**53))
        return self._replayed(self.core.resampled_history(int(player_id), rng))

    def _replayed(self, history: Sequence[int]) -> EscobaState:
        state = self.get_game().new_initial_state()
        for action in history:
            state.apply_action(action)
        return state

    def __str__(self) -> str:
        hs = self.hand_state
        if hs.hand is None:
            return f"dealing: {len(hs.orders) * len(hs.rules.deck) + len(hs.drawing)} cards drawn"
        return str(hs.hand.to_json())


class _Core:
    """The state's one Python attribute: OpenSpiel clones a state by deep-copying each of its
    attributes, and this copy shares the ruleset and copies only what play changes."""

    def __init__(self, state: HandState | MatchState, bounds: Any):
        self.state, self.bounds = state, bounds

    def __deepcopy__(self, memo: dict) -> _Core:
        return _Core(self.state.clone(), self.bounds)


class EscobaObserver:
    """OpenSpiel's PyObserver interface (`tensor`, `dict`, `set_from`, `string_from`) over
    `escoba.research.observe.Observer`."""

    def __init__(self, layout: Layout, private: str, recall: bool):
        self._observer = Observer(layout, private)
        self.tensor = self._observer.tensor
        self.dict = self._observer.dict
        self._strings = Observer(Layout(layout.rules, layout.players, recall=recall, match=layout.match), private)

    def set_from(self, state: EscobaState, player: int) -> None:
        self._observer.fill(state.core, player)

    def string_from(self, state: EscobaState, player: int) -> str:
        return self._strings.string(state.core, player)


# --------------------------------------------------------------------------- bots
class EscobaBot(pyspiel.Bot):
    """One of escoba's bots (`escoba.engine.bots` spec: `greedy`, `search:200`, …) as a
    `pyspiel.Bot`. It chooses a move on the hand as the bot would (from the seat's view only),
    then spells it one action per `step`; a state whose move was begun by someone else gets the
    first legal action that continues it."""

    def __init__(self, player_id: int, spec: str = "greedy", seed: int | None = None):
        pyspiel.Bot.__init__(self)
        self._player_id = player_id
        self._bot = bot_maker(spec, " (EscobaBot)")(random.Random(seed))
        self._plan: tuple[tuple[int, ...], list[int]] | None = None

    def player_id(self) -> int:
        return self._player_id

    def provides_policy(self) -> bool:
        return False

    def restart_at(self, state: Any) -> None:
        self._plan = None

    def step(self, state: EscobaState) -> int:
        hs = state.hand_state
        assert hs.hand is not None and hs.hand.to_play == self._player_id, "not this bot's turn"
        pending = hs.pending
        begun = 0 if pending.card is None else 1 + len(pending.taken)
        history = state.history()
        start = tuple(history[: len(history) - begun])
        if self._plan is None or self._plan[0] != start:
            self._plan = (start, moves.actions_of(hs.actions, hs.hand, self._bot(hs.hand)))
        plan = self._plan[1]
        spelled = history[len(history) - begun :]
        if begun < len(plan) and plan[:begun] == spelled:
            return plan[begun]
        return state.legal_actions()[0]


def bots(game: Any, specs: Sequence[str], seed: int = 0) -> list[EscobaBot]:
    """One `EscobaBot` per seat, specs repeated round the table, seeded from `seed`."""
    return [EscobaBot(p, specs[p % len(specs)], derive_seed(seed, "seat", p)) for p in range(game.num_players())]


# --------------------------------------------------------------------------- deals
def deal(state: EscobaState, orders: Sequence[Sequence[int]]) -> EscobaState:
    """Apply deck orders (top of the stock first; several where the opening is dealt again) as
    the chance outcomes that draw them."""
    for order in orders:
        for card in order:
            state.apply_action(int(card))
    return state


def seeded_state(ruleset: str | Rules, players: int, seed: int, i: int) -> EscobaState:
    """Hand `i` of `escoba simulate RULESET --players N --seed S`, dealt in OpenSpiel: the same
    deck orders (seeds version 2, docs/simulate.md) and the same dealer (seat `i % N`)."""
    rules = escoba.load_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    hand, _, _ = deal_hand(rules, players, seed, i, [])
    game = load(rules, players, dealer=i % players)
    return deal(game.new_initial_state(), hand.deck_orders)


def seeded_resampler(seed: int) -> Any:
    """A resampler for `ismcts.ISMCTSBot.set_resampler` drawing from one seeded generator, so
    that an IS-MCTS run is reproducible (OpenSpiel's default seeds each draw afresh)."""
    rng = random.Random(seed)

    def resample(state: EscobaState, player: int) -> EscobaState:
        return state._replayed(state.core.resampled_history(int(player), rng))

    return resample


# --------------------------------------------------------------------------- registration
_TYPES: dict[str, Any] = {}


def _register(name: str, game_type: Any, match: bool) -> None:
    _TYPES[name] = game_type
    # A class per name, not a closure: OpenSpiel keeps the factory in a C++ registry that
    # outlives the interpreter, and a closure freed there crashes the exit (a class is kept
    # alive by its own reference cycles, as OpenSpiel's own Python games are).
    factory = type(f"EscobaGame_{name}", (EscobaGame,), {"NAME": name, "MATCH": match})
    pyspiel.register_game(game_type, factory)


def register(ruleset: str | Rules) -> str:
    """Register a ruleset (an id, a path or compiled `Rules`) as a hand game of its own;
    returns its name (`python_escoba_<id>`)."""
    rules = escoba.load_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    name = game_name(rules.id)
    new = name not in _fixed
    _fixed[name] = rules
    if new:
        counts = rules.player_counts
        params = {"players": 2 if 2 in counts else min(counts), "dealer": 0}
        long_name = f"Escoba: {rules.doc.get('title', rules.id)}"
        _register(name, _game_type(name, long_name, params, match=False, zero_sum=_zero_sum(rules), players=counts),
                  False)  # fmt: skip
    return name


def load(ruleset: str | Rules, players: int = 2, dealer: int = 0, *, match: bool = False, target: int = 0) -> Any:
    """The OpenSpiel game of a ruleset (an id, a path or `Rules`) at a table of `players`: one
    hand, or with `match=True` a match to `target` (0: the ruleset's own)."""
    if match:
        if not isinstance(ruleset, str):
            raise TypeError("a match game loads its ruleset by id or path: pass a string")
        return pyspiel.load_game(MATCH_GAME, {"ruleset": ruleset, "players": players, "dealer": dealer, "target": target})
    return pyspiel.load_game(register(ruleset), {"players": players, "dealer": dealer})


def register_all() -> list[str]:
    """Register the generic hand and match games and every bundled ruleset; returns the names."""
    if HAND_GAME not in _TYPES:
        common = {"ruleset": "base", "players": 2, "dealer": 0}
        counts = range(2, MAX_PLAYERS + 1)
        _register(HAND_GAME, _game_type(HAND_GAME, "Escoba: one hand of any ruleset", common, match=False,
                                        zero_sum=True, players=counts), False)  # fmt: skip
        _register(MATCH_GAME, _game_type(MATCH_GAME, "Escoba: a match of any ruleset", {**common, "target": 0},
                                         match=True, zero_sum=True, players=counts), True)  # fmt: skip
    return [HAND_GAME, MATCH_GAME] + [register(rid) for rid in bundled_ids()]


GAMES = register_all()
