"""A hand, or a match, stepped one action at a time: the state both research bridges drive.

`HandState` is one hand: chance first draws the deck order card by card (each remaining card
equally likely, top of the stock first; a ruleset that deals the opening table again draws a
whole new order), the reference engine (`Hand`) deals from it as from a shuffle, and then the
players spell their moves with `escoba.research.moves`. `MatchState` is hands until a side
reaches the target (`Match`), each one a `HandState`.

Neither knows OpenSpiel or PettingZoo; `escoba.research.openspiel` and `.pettingzoo` wrap them.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence

from escoba.engine.deal import deal_plan
from escoba.engine.hand import DeckError, Hand
from escoba.engine.match import MAX_HANDS, Match
from escoba.engine.scoring import leads
from escoba.errors import EscobaError, IllegalMoveError
from escoba.game.moves import Move
from escoba.research import moves
from escoba.research.bounds import Range
from escoba.research.moves import NOTHING, Actions, Pending
from escoba.rules.compile import Rules

# OpenSpiel's PlayerId values, so that its bridge passes them through unchanged.
CHANCE, TERMINAL = -1, -4
# Resampling rejects deals in which an opponent's past placement would have been illegal (under
# compulsory capture by hand, a placement says that none of the placer's cards could capture)
# or that declare other than the real deals did.
# The real deal always passes, so this many failures in a row means a bug, not bad luck.
RESAMPLE_TRIES = 100_000


class HandState:
    """One hand, from the first card drawn to the scoring."""

    def __init__(self, rules: Rules, players: int, dealer: int, match: Match | None = None):
        self.rules, self.players, self.dealer = rules, players, dealer
        self.actions = Actions(len(rules.deck))
        self.match = match  # set when the hand is one of a match's: the match deals it
        self.orders: list[list[int]] = []  # complete deck orders drawn (several after redeals)
        self.drawing: list[int] = []  # the order being drawn
        self.hand: Hand | None = None
        self.pending: Pending = NOTHING
        self.plays: list[tuple[int, Move]] = []  # (seat, move), in order: the public history
        self.spelled: list[int] = []  # the players' actions, in order

    # ------------------------------------------------------------------ whose turn
    def current_player(self) -> int:
        if self.hand is None:
            return CHANCE
        return TERMINAL if self.hand.to_play is None else self.hand.to_play

    def is_chance(self) -> bool:
        return self.hand is None

    def is_terminal(self) -> bool:
        return self.hand is not None and self.hand.to_play is None

    def chance_outcomes(self) -> list[int]:
        drawn = set(self.drawing)
        return [c for c in self.rules.deck.cards if c not in drawn]

    def legal_actions(self) -> list[int]:
        if self.hand is None or self.hand.to_play is None:
            return []
        return moves.legal_actions(self.actions, self.hand, self.pending)

    # ------------------------------------------------------------------ acting
    def apply(self, action: int) -> None:
        """Draw a card (chance) or take a player's action; ValueError for an illegal one."""
        if self.hand is None:
            self._draw(int(action))
            return
        if self.hand.to_play is None:
            raise ValueError("the hand is over")
        self.pending, move = moves.step(self.actions, self.hand, self.pending, int(action))
        self.spelled.append(int(action))
        if move is not None:
            seat = self.hand.to_play
            self.hand.apply(move)
            self.plays.append((seat, move))

    def _draw(self, card: int) -> None:
        if not 0 <= card < len(self.rules.deck) or card in self.drawing:
            raise ValueError(f"chance outcome {card} is not a card left to draw")
        self.drawing.append(card)
        if len(self.drawing) < len(self.rules.deck):
            return
        self.orders.append(self.drawing)
        self.drawing = []
        try:
            if self.match is not None:
                self.hand = self.match.new_hand(self.orders)
            else:
                self.hand = Hand(self.rules, self.players, self.dealer, self.orders, record=False)
        except DeckError:  # the opening table is dealt again: chance draws a new order
            self.hand = None
        else:
            self.dealer = self.hand.dealer

    # ------------------------------------------------------------------ the end
    def returns(self, bounds: Range | None = None) -> list[float]:
        """Each seat's side's lead (`escoba.engine.scoring.leads`); zeros before the end.
        With `bounds`, a lead outside them is an error, never a silent overflow."""
        if not self.is_terminal():
            return [0.0] * self.players
        assert self.hand is not None and self.hand.points is not None
        by_side = leads(self.hand.points)
        if bounds is not None and not all(bounds.low - 1e-9 <= v <= bounds.high + 1e-9 for v in by_side):
            raise EscobaError(
                f"{self.rules.id}: a lead of {by_side} is outside the bounds [{bounds.low}, {bounds.high}] worked out "
                "from the ruleset (a per-unit measure is larger somewhere than at its extremes: escoba.research.bounds)"
            )
        return [float(by_side[self.hand.side_of[seat]]) for seat in range(self.players)]

    # ------------------------------------------------------------------ copies and histories
    def clone(self) -> HandState:
        other = HandState.__new__(HandState)
        other.__dict__.update(self.__dict__)
        other.orders = list(self.orders)  # a complete order is never changed: shared
        other.drawing = list(self.drawing)
        other.hand = self.hand.clone() if self.hand is not None else None
        other.plays = list(self.plays)
        other.spelled = list(self.spelled)
        return other

    def history(self) -> list[int]:
        """Every action so far: the cards drawn, then the players' actions."""
        return [c for order in self.orders for c in order] + self.drawing + self.spelled

    def redealt(self) -> list[list[int]]:
        """The deck orders whose opening table was dealt again."""
        return self.orders if self.hand is None else self.orders[:-1]

    def seen_in_redeal(self, order: Sequence[int], player: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """What `player` saw of a deal that was dealt again: the table and its own first cards."""
        plan = deal_plan(self.rules, self.players, self.dealer, order)
        return tuple(sorted(plan.table)), tuple(sorted(plan.rounds[0][player])) if plan.rounds else ()

    # ------------------------------------------------------------------ resampling
    def resampled_history(self, player: int, rng: random.Random) -> list[int]:
        """The history of a state `player` cannot tell from this one, drawn at random: every card
        it has not seen dealt again, uniformly (the current deal by `Hand.from_view`, deals
        dealt again by shuffling what it did not see of them), its own actions and everything
        public unchanged. Deals in which another seat's past move would be illegal are drawn
        again, so the history is one the game can produce, and so are deals that declare other
        than the real one did (a hidden hand dealt a declaration would have shown it)."""
        if self.is_terminal() and not self.redealt():  # every card of a finished hand was seen
            return self.history()
        for _ in range(RESAMPLE_TRIES):
            orders = [self._reshuffled(order, player, rng) for order in self.redealt()]
            if self.hand is not None:
                orders.append(self._determinized(player, rng))
            checked = self.hand is not None and (self.rules.compulsory == "hand" or bool(self.rules.declarations))
            if not checked or self._replays(orders):
                drawing = rng.sample(list(self.rules.deck.cards), len(self.drawing))  # nobody has seen these
                return [c for order in orders for c in order] + drawing + self.spelled
        raise EscobaError(f"no deal consistent with what seat {player} saw in {RESAMPLE_TRIES} tries")

    def _reshuffled(self, order: Sequence[int], player: int, rng: random.Random) -> list[int]:
        table, own = self.seen_in_redeal(order, player)
        seen = set(table) | set(own)
        slots = [i for i, c in enumerate(order) if c not in seen]
        cards = [order[i] for i in slots]
        rng.shuffle(cards)
        out = list(order)
        for i, c in zip(slots, cards):
            out[i] = c
        return out

    def _determinized(self, player: int, rng: random.Random) -> list[int]:
        """The current deck order with what `player` cannot see dealt as `Hand.from_view` deals
        it: each hidden hand's cards into that hand's places, the rest into the stock's."""
        hand = self.hand
        assert hand is not None
        view = hand.view(player)
        other = Hand.from_view(view, rng)
        order = list(self.orders[-1])
        where = {c: i for i, c in enumerate(order)}
        for seat, cards in enumerate(view.hands):
            if cards is None:
                for i, c in zip(sorted(where[c] for c in hand.hands[seat]), other.hands[seat]):
                    order[i] = c
        start = len(order) - hand.stock_size
        order[start:] = other.stock
        return order

    def _replays(self, orders: list[list[int]]) -> bool:
        """Do the plays made so far stay legal when dealt from `orders`, and do its deals
        declare what the real ones declared?"""
        assert self.hand is not None
        try:
            hand = Hand(self.rules, self.players, self.hand.dealer, orders, record=False)
            for _, move in self.plays:
                hand.apply(move)
        except (IllegalMoveError, DeckError):
            return False
        return hand.declared == self.hand.declared and hand.shown == self.hand.shown


class MatchState:
    """Hands until a side reaches the target (`Match`): each hand a `HandState`, the deal passing
    as the ruleset says. A match that reaches the engine's cap on hands (`MAX_HANDS`, a rule
    that never lets it end) ends drawn: every return zero."""

    def __init__(self, rules: Rules, players: int, dealer: int, target: int):
        self.rules, self.players = rules, players
        self.match = Match(rules, players, dealer=dealer, target=target, decks=(), record=False)
        self.done: list[HandState] = []  # finished hands, never changed again
        self.current = HandState(rules, players, self.match.next_dealer, self.match)

    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else self.current.current_player()

    def is_chance(self) -> bool:
        return not self.is_terminal() and self.current.is_chance()

    def is_terminal(self) -> bool:
        return self.match.is_over or self.match.hands_played >= MAX_HANDS

    def chance_outcomes(self) -> list[int]:
        return self.current.chance_outcomes()

    def legal_actions(self) -> list[int]:
        return [] if self.is_terminal() else self.current.legal_actions()

    def apply(self, action: int) -> None:
        if self.is_terminal():
            raise ValueError("the match is over")
        self.current.apply(action)
        if self.current.is_terminal():
            self.match.end_hand()
            self.done.append(self.current)
            if not self.is_terminal():
                self.current = HandState(self.rules, self.players, self.match.next_dealer, self.match)

    def returns(self) -> list[float]:
        """Each seat's side's lead in shares of the win: 1 for a side that wins alone, -1 for the
        loser of two; winners who share a win share it. Zeros before the end and after a draw."""
        winners = self.match.winners
        if not winners:
            return [0.0] * self.players
        share = [1 / len(winners) if side in winners else 0.0 for side in range(self.match.sides)]
        by_side = leads(share)
        side_of = self.rules.side_of(self.players)
        return [float(by_side[side_of[seat]]) for seat in range(self.players)]

    def clone(self) -> MatchState:
        other = MatchState.__new__(MatchState)
        other.__dict__.update(self.__dict__)
        match = copy.copy(self.match)
        match.totals = list(self.match.totals)
        match.winners = None if self.match.winners is None else list(self.match.winners)
        match.events = []
        other.match = match
        other.done = list(self.done)
        other.current = self.current.clone()
        other.current.match = match
        match.hand = other.current.hand if other.current.hand is not None else self.match.hand
        return other

    def history(self) -> list[int]:
        return [a for state in (*self.done, self.current) for a in state.history()]

    def resampled_history(self, player: int, rng: random.Random) -> list[int]:
        """As `HandState.resampled_history`, hand by hand (a finished hand hides only what its
        redeals did)."""
        return [a for state in (*self.done, self.current) for a in state.resampled_history(player, rng)]
