"""Every ruleset as an OpenSpiel game (optional extra: `pip install 'escoba[openspiel]'`).

    import escoba.openspiel, pyspiel
    game = pyspiel.load_game("python_escoba_da", {"players": 2})
    pyspiel.random_sim_test(game, num_sims=5, serialize=False, verbose=False)
    game = escoba.openspiel.load("spec/house/escoba-doble.yaml", players=2)   # any file

Importing this module registers one Python game per bundled ruleset, named
`python_escoba_<id>` (hyphens become underscores: `python_escoba_da_velo2`), with the
parameters `players` (default 2, or the ruleset's smallest table) and `dealer` (default 0).
`register(path_or_id)` registers another ruleset, a house rule file for instance.

One OpenSpiel game is **one hand** (a `mano`), played by the reference engine (`Hand`):

- **chance** deals: the deck order is chosen card by card, each remaining card equally
  likely, top of the stock first (a ruleset whose opening table is dealt again draws a whole
  new order); the engine then deals from it as it would from a shuffle;
- **actions** are moves. Action `card × SLOTS + k` plays card `card` (its index in the deck
  order of docs/architecture.md) and takes the `k`-th of the subsets that card can capture
  (counted from 1, in the engine's sorted order); `k = 0` places it. The card is the same in
  every state; which subset `k` names depends on the table;
- **observations** come from `Hand.view` (docs/bots.md): a player sees its own hand (every
  hand under `deal.open_hands`), the table, the piles, the escobas, the sizes of the hidden
  hands and of the stock. The information state adds the public history of plays, so it has
  perfect recall;
- **returns** at the end are each player's side's lead: its points minus the mean of the other
  sides' points (partners share theirs). The sum over sides is zero.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

import escoba
from escoba.engine.hand import MAX_REDEALS, DeckError, Hand
from escoba.engine.history import Capture, SideHistory
from escoba.engine.view import View
from escoba.game.moves import Move
from escoba.rules import bundled_ids
from escoba.rules.compile import Rules

SLOTS = 64  # a card's placement and up to 63 captures; more in one state is an error, never a silent cut
PREFIX = "python_escoba_"
_games: dict[str, Rules] = {}


def game_name(ruleset_id: str) -> str:
    return PREFIX + ruleset_id.replace("-", "_")


def _utility_bound(rules: Rules) -> float:
    """A side's points in one hand can never exceed this (per-unit categories measured on the
    whole deck and on an escoba per card, the largest a measure of one hand can reach)."""
    size = len(rules.deck)
    cards = list(rules.deck.cards)
    # Event measures read the hand's history: the most a hand can hold is every card played
    # once, each a sweep, first and last play at once, in whichever deal round a measure asks for.
    histories: list[SideHistory | None] = [None]
    if rules.needs_history:
        everything = (1 << size) - 1
        rounds = -(-size // max(1, rules.hand_size))
        histories = [SideHistory(tuple(Capture(c, everything, r, True, True, True) for c in cards), True)
                     for r in range(1, rounds + 1)]  # fmt: skip
        histories.append(SideHistory((), False))
    bound = 0.0
    for cat in rules.categories:
        if cat.policy == "per_unit" and cat.measure is not None:
            measure = cat.measure
            reach = [abs(float(v)) for h in histories
                     for v in (measure(cards, size, h), measure([], size, h), measure(cards, 0, h))
                     if isinstance(v, (int, float))]  # fmt: skip
            bound += abs(cat.points) * max([size, *reach])
        else:
            bound += abs(cat.points)
    return bound


def register(ruleset: str | Rules) -> str:
    """Register a ruleset (an id, a path or compiled `Rules`) as a game; returns its short name."""
    rules = escoba.load_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    name = game_name(rules.id)
    if name in _games:
        _games[name] = rules
        return name
    counts = rules.player_counts
    size = len(rules.deck)
    bound = _utility_bound(rules)
    game_type = pyspiel.GameType(
        short_name=name,
        long_name=f"Escoba: {rules.doc.get('title', rules.id)}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(counts),
        min_num_players=min(counts),
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": 2 if 2 in counts else min(counts), "dealer": 0},
    )
    _games[name] = rules
    # A class per ruleset, not a closure: OpenSpiel keeps the factory in a C++ registry that
    # outlives the interpreter, and a closure freed there crashes the exit (a class is kept
    # alive by its own reference cycles, as OpenSpiel's own Python games are).
    factory = type(f"EscobaGame_{rules.id.replace('-', '_')}", (EscobaGame,), {"GAME": (name, game_type, bound, size)})
    pyspiel.register_game(game_type, factory)
    return name


def load(ruleset: str | Rules, players: int = 2, dealer: int = 0) -> Any:
    """The OpenSpiel game of a ruleset at a table of `players` (registering it if need be)."""
    return pyspiel.load_game(register(ruleset), {"players": players, "dealer": dealer})


class EscobaGame(pyspiel.Game):
    """One hand of a ruleset, as an OpenSpiel game (subclassed per ruleset by `register`)."""

    GAME: tuple[str, Any, float, int]  # name, game type, utility bound, deck size

    def __init__(self, params: Any = None):
        name, game_type, bound, size = self.GAME
        rules = _games[name]
        params = params or {}
        players = int(params.get("players", game_type.parameter_specification["players"]))
        dealer = int(params.get("dealer", 0))
        if players not in rules.player_counts:
            raise ValueError(f"{rules.id} is played by {', '.join(map(str, rules.player_counts))} players, not {players}")
        if not 0 <= dealer < players:
            raise ValueError(f"dealer must be a seat from 0 to {players - 1}, got {dealer}")
        info = pyspiel.GameInfo(
            num_distinct_actions=size * SLOTS,
            max_chance_outcomes=size,
            num_players=players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=size * (MAX_REDEALS + 1) + size,
        )
        super().__init__(game_type, info, {"players": players, "dealer": dealer})
        self.rules, self.players, self.dealer = rules, players, dealer

    def new_initial_state(self) -> EscobaState:
        return EscobaState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> EscobaObserver:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        return EscobaObserver(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))


class EscobaState(pyspiel.State):
    """The deal being drawn (chance), then a `Hand` in play."""

    def __init__(self, game: EscobaGame):
        super().__init__(game)
        self.rules, self.players, self.dealer = game.rules, game.players, game.dealer
        self.orders: list[list[int]] = []  # full deck orders drawn so far (several after redeals)
        self.drawing: list[int] = []  # the order being drawn
        self.hand: Hand | None = None
        self.plays: list[tuple[int, Move]] = []

    # -------------------------------------------------------------- chance
    def current_player(self) -> int:
        if self.hand is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.hand.to_play is None:
            return int(pyspiel.PlayerId.TERMINAL)
        return self.hand.to_play

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = sorted(set(self.rules.deck.cards) - set(self.drawing))
        p = 1.0 / len(left)
        return [(c, p) for c in left]

    def _apply_action(self, action: int) -> None:
        if self.hand is None:
            self.drawing.append(action)
            if len(self.drawing) == len(self.rules.deck):
                self.orders.append(self.drawing)
                self.drawing = []
                try:
                    self.hand = Hand(self.rules, self.players, self.dealer, list(self.orders), record=False)
                except DeckError:  # the opening table is dealt again: chance draws a new order
                    self.hand = None
            return
        move = self.move_of(action)
        seat = self.hand.to_play
        assert seat is not None
        self.hand.apply(move)
        self.plays.append((seat, move))

    # -------------------------------------------------------------- moves
    def _legal_actions(self, player: int) -> list[int]:
        assert self.hand is not None and player == self.hand.to_play
        return sorted(self.action_of(m) for m in self.hand.legal_moves())

    def action_of(self, move: Move) -> int:
        card, take = move
        if not take:
            return card * SLOTS
        subsets = self.rules.finder.captures(card, self.hand.table)  # type: ignore[union-attr]
        k = subsets.index(tuple(take)) + 1
        if k >= SLOTS:
            raise ValueError(f"more than {SLOTS - 1} captures for one card: the action space is too small")
        return card * SLOTS + k

    def move_of(self, action: int) -> Move:
        card, k = divmod(int(action), SLOTS)
        if k == 0:
            return Move(card, ())
        return Move(card, tuple(self.rules.finder.captures(card, self.hand.table)[k - 1]))  # type: ignore[union-attr]

    def _action_to_string(self, player: int, action: int) -> str:
        deck = self.rules.deck
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal:{deck.code[action]}"
        card, k = divmod(int(action), SLOTS)
        if k == 0 or self.hand is None:
            return f"{deck.code[card]}" + ("" if k == 0 else f"#{k}")
        take = self.rules.finder.captures(card, self.hand.table)[k - 1]
        return f"{deck.code[card]}x{'+'.join(deck.code[c] for c in take)}"

    # -------------------------------------------------------------- the end
    def is_terminal(self) -> bool:
        return self.hand is not None and self.hand.to_play is None

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.players
        assert self.hand is not None and self.hand.points is not None
        return leads(self.hand)

    def __str__(self) -> str:
        if self.hand is None:
            return f"dealing: {len(self.orders) * len(self.rules.deck) + len(self.drawing)} cards drawn"
        return str(self.hand.to_json())


def leads(hand: Hand) -> list[float]:
    """Each seat's return: its side's points minus the mean of the other sides' points."""
    points = hand.points
    assert points is not None
    sides = len(points)
    total = sum(points)
    by_side = [p - (total - p) / (sides - 1) if sides > 1 else float(p) for p in points]
    return [float(by_side[hand.side_of[seat]]) for seat in range(hand.players)]


class EscobaObserver:
    """Observations from `Hand.view` (PyObserver interface: `tensor`, `dict`, `set_from`, `string_from`).

    Tensor, per card in deck order: in the observer's hand, in another hand it can see, on the
    table, set aside, in the pile of side 0 … side n-1 (sides counted from the observer's,
    in seat order); then the escobas per side (same order) and a one-hot of the seat to play
    relative to the observer. `private_info` NONE hides the observer's own hand too; ALL_PLAYERS
    shows every hand. With `perfect_recall`, the string adds every play so far in order."""

    def __init__(self, game: EscobaGame, iig_obs_type: Any):
        self.game = game
        self.iig = iig_obs_type
        sides = len(game.rules.sides(game.players))
        size = len(game.rules.deck)
        self.layers = 4 + sides
        pieces = [("cards", size * self.layers, (size, self.layers)), ("escobas", sides, (sides,)),
                  ("to_play", game.players, (game.players,))]  # fmt: skip
        self.tensor = np.zeros(sum(n for _, n, _ in pieces), np.float32)
        self.dict: dict[str, Any] = {}
        index = 0
        for name, n, shape in pieces:
            self.dict[name] = self.tensor[index : index + n].reshape(shape)
            index += n

    def _view(self, state: EscobaState, player: int) -> View | None:
        if state.hand is None:
            return None
        view = state.hand.view(player)
        private = self.iig.private_info
        if private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            view = _with_hands(view, tuple(tuple(sorted(h)) for h in state.hand.hands))
        elif private == pyspiel.PrivateInfoType.NONE and not state.rules.open_hands:
            view = _with_hands(view, tuple(None for _ in view.hands))
        return view

    def set_from(self, state: EscobaState, player: int) -> None:
        self.tensor.fill(0)
        view = self._view(state, player)
        if view is None:
            return
        cards = self.dict["cards"]
        sides = state.rules.sides(state.players)
        own = next(s for s, seats in enumerate(sides) if player in seats)
        for seat, held in enumerate(view.hands):
            for c in held or ():
                cards[c, 0 if seat == player else 1] = 1
        for c in view.table:
            cards[c, 2] = 1
        for c in view.set_aside:
            cards[c, 3] = 1
        for s, pile in enumerate(view.piles):
            for c in pile:
                cards[c, 4 + (s - own) % len(sides)] = 1
        for s, e in enumerate(view.escobas):
            self.dict["escobas"][(s - own) % len(sides)] = e
        if view.to_play is not None:
            self.dict["to_play"][(view.to_play - player) % state.players] = 1

    def string_from(self, state: EscobaState, player: int) -> str:
        view = self._view(state, player)
        if view is None:
            text = f"p{player} dealing"
        else:
            text = f"p{player} {view.key()}"
        if self.iig.perfect_recall:
            code = state.rules.deck.code
            history = " ".join(
                f"{seat}:{code[m.card]}" + ("x" + "+".join(code[c] for c in m.take) if m.take else "")
                for seat, m in state.plays
            )
            text += f" plays[{history}] deals:{len(state.orders)}"
        return text


def _with_hands(view: View, hands: tuple) -> View:
    from dataclasses import replace

    return replace(view, hands=hands)


def register_all() -> list[str]:
    """Register every bundled ruleset; returns the game names."""
    return [register(rid) for rid in bundled_ids()]


GAMES = register_all()
