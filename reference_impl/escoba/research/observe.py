"""What a seat observes, as a tensor and as a string; and what it remembers (perfect recall).

The **observation** is everything `Hand.view(seat)` holds (docs/bots.md), seen from the
observer: per card of the deck, where it is — in the hand of each seat counted from the
observer's (a hidden hand shows only the cards a declaration showed), on the table, set
aside, in the pile of each side counted from the observer's, being played or being taken by
the move being spelled — and the escobas per side, whose turn it is, the dealer, who captured last (or nobody), the size of each
hand, the stock, the plays so far, and the points once the hand is over. Rulesets whose
measures read the hand's history (`Rules.needs_history`) also see each side's captures: per
card, the number of the capture it was in (its side's first, second, ...), whether it was the
card played, and for the played card the capture's round and whether it was the first play,
the last play or an escoba. Rulesets with declarations (categories measured on the cards
dealt or the opening table) see each side's declarations so far, per category. A match adds each side's total and the hands played.

The **information state** adds what the seat remembers: every play of the hand in order (the
seat counted from the observer's, the card, the cards taken) and, where the opening table is
dealt again (`opening.action: redeal`), each such deal's table and the seat's own first cards.
That is perfect recall: the observer's own earlier cards, the first table and every other
card it once saw follow from these. Strings carry the same: the view's key and the plays.

OpenSpiel's `private_info` is honoured: NONE hides the observer's own hand too, ALL_PLAYERS
shows every hand.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from escoba.engine.hand import MAX_REDEALS
from escoba.engine.match import MAX_HANDS
from escoba.engine.view import View
from escoba.research.bounds import dealt, declared_range, max_escobas, points_range
from escoba.research.moves import move_text
from escoba.research.state import HandState, MatchState
from escoba.rules.compile import Rules

SINGLE, NONE, ALL = "single", "none", "all"  # whose hands an observer sees: its own, none, every one
HISTORY_LAYERS = ("capture", "played", "round", "first", "last", "escoba")


@dataclass(frozen=True)
class Piece:
    name: str
    shape: tuple[int, ...]
    low: float
    high: float

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))


class Layout:
    """The pieces of a tensor for one ruleset and table, in order, with each entry's bounds."""

    def __init__(self, rules: Rules, players: int, *, recall: bool, match: bool):
        self.rules, self.players = rules, players
        self.recall, self.match = recall, match
        deck = len(rules.deck)
        sides = len(rules.sides(players))
        plays = sum(dealt(rules, players))
        points = points_range(rules, players)
        self.history = rules.needs_history
        layers = players + 2 + sides + 2 + (len(HISTORY_LAYERS) if self.history else 0)
        pieces = [
            Piece("cards", (deck, layers), 0, max(plays, deck)),
            Piece("escobas", (sides,), 0, max(max_escobas(rules, players))),
            Piece("to_play", (players,), 0, 1),
            Piece("dealer", (players,), 0, 1),
            Piece("last_capturer", (players + 1,), 0, 1),
            Piece("hand_sizes", (players,), 0, deck),
            Piece("stock", (1,), 0, deck),
            Piece("plays", (1,), 0, plays),
            Piece("over", (1,), 0, 1),
            Piece("points", (sides,), min(0.0, points.low), max(0.0, points.high)),
        ]
        if rules.declarations:
            ranges = [declared_range(rules, rules.categories[i], players) for i in rules.declarations]
            pieces.append(Piece("declared", (sides, len(ranges)), min(r.low for r in ranges), max(r.high for r in ranges)))
        if match:
            most = max(abs(points.low), abs(points.high)) * MAX_HANDS
            pieces += [Piece("totals", (sides,), -most, most), Piece("hands_played", (1,), 0, MAX_HANDS)]
        if recall:
            pieces.append(Piece("history", (plays, players + 2 * deck), 0, 1))
            if rules.opening_action == "redeal":
                pieces.append(Piece("redeals", (MAX_REDEALS, 2 * deck), 0, 1))
        self.pieces = tuple(pieces)
        self.size = sum(p.size for p in pieces)

    def split(self, tensor: np.ndarray) -> dict[str, np.ndarray]:
        """Named views into a flat tensor (writing to them writes the tensor)."""
        out, index = {}, 0
        for p in self.pieces:
            out[p.name] = tensor[index : index + p.size].reshape(p.shape)
            index += p.size
        return out

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        low = np.concatenate([np.full(p.size, p.low, np.float32) for p in self.pieces])
        high = np.concatenate([np.full(p.size, p.high, np.float32) for p in self.pieces])
        return low, high


def seen(view: View, hands: Any, private: str) -> View:
    """The view with the hands an observer of this kind sees."""
    if private == ALL:
        return replace(view, hands=tuple(tuple(sorted(h)) for h in hands))
    if private == NONE and not view.rules.open_hands:
        return replace(view, hands=tuple(None for _ in view.hands))
    return view


class Observer:
    """Fills a tensor and writes strings for one layout and kind of observer."""

    def __init__(self, layout: Layout, private: str = SINGLE):
        self.layout, self.private = layout, private
        self.tensor = np.zeros(layout.size, np.float32)
        self.dict = layout.split(self.tensor)

    # ------------------------------------------------------------------ tensors
    def fill(self, state: HandState | MatchState, player: int) -> None:
        self.tensor.fill(0)
        hand_state = state.current if isinstance(state, MatchState) else state
        if isinstance(state, MatchState):
            self._match(state, player)
        if self.layout.recall:
            self._history(hand_state, player)
        if hand_state.hand is None:
            return
        rules, players = self.layout.rules, self.layout.players
        view = seen(hand_state.hand.view(player), hand_state.hand.hands, self.private)
        sides = len(view.piles)
        own = hand_state.hand.side_of[player]
        d = self.dict
        cards = d["cards"]
        for seat, held in enumerate(view.hands):
            for c in held if held is not None else view.shown[seat] if view.shown is not None else ():
                cards[c, (seat - player) % players] = 1
        table, aside, piles = players, players + 1, players + 2
        for c in view.table:
            cards[c, table] = 1
        for c in view.set_aside:
            cards[c, aside] = 1
        for s, pile in enumerate(view.piles):
            for c in pile:
                cards[c, piles + (s - own) % sides] = 1
        pending = hand_state.pending
        if pending.card is not None:
            cards[pending.card, piles + sides] = 1
            for c in pending.taken:
                cards[c, piles + sides + 1] = 1
        if self.layout.history and view.captures is not None:
            base = piles + sides + 2
            for mine in view.captures:
                for k, cap in enumerate(mine, 1):
                    for c in [cap.card, *(c for c in range(len(rules.deck)) if cap.taken >> c & 1)]:
                        cards[c, base] = k
                    cards[cap.card, base + 1 : base + 6] = (1, cap.round, cap.first, cap.last, cap.escoba)
        for s, e in enumerate(view.escobas):
            d["escobas"][(s - own) % sides] = e
        if view.to_play is not None:
            d["to_play"][(view.to_play - player) % players] = 1
        d["dealer"][(view.dealer - player) % players] = 1
        last = view.last_capturer
        d["last_capturer"][players if last is None else (last - player) % players] = 1
        for seat, n in enumerate(view.hand_sizes):
            d["hand_sizes"][(seat - player) % players] = n
        d["stock"][0] = view.stock_size
        d["plays"][0] = view.plays
        if view.declared is not None:
            for s, mine in enumerate(view.declared):
                d["declared"][(s - own) % sides] = [mine[i] for i in rules.declarations]
        if view.points is not None:
            d["over"][0] = 1
            for s, p in enumerate(view.points):
                d["points"][(s - own) % sides] = p

    def _match(self, state: MatchState, player: int) -> None:
        side_of = self.layout.rules.side_of(self.layout.players)
        sides = len(state.match.totals)
        for s, total in enumerate(state.match.totals):
            self.dict["totals"][(s - side_of[player]) % sides] = total
        self.dict["hands_played"][0] = state.match.hands_played

    def _history(self, state: HandState, player: int) -> None:
        players, deck = self.layout.players, len(self.layout.rules.deck)
        rows = self.dict["history"]
        for i, (seat, move) in enumerate(state.plays):
            rows[i, (seat - player) % players] = 1
            rows[i, players + move.card] = 1
            for c in move.take:
                rows[i, players + deck + c] = 1
        if "redeals" in self.dict:
            for i, order in enumerate(state.redealt()):
                table, own = state.seen_in_redeal(order, player)
                for c in table:
                    self.dict["redeals"][i, c] = 1
                if self.private != NONE:
                    for c in own:
                        self.dict["redeals"][i, deck + c] = 1

    # ------------------------------------------------------------------ strings
    def string(self, state: HandState | MatchState, player: int) -> str:
        parts = [f"p{player}"]
        hand_state = state
        if isinstance(state, MatchState):
            parts.append(f"totals:{state.match.totals} hands:{state.match.hands_played}")
            hand_state = state.current
            if self.layout.recall:
                parts += [self._recalled(done, player) for done in state.done]
        assert isinstance(hand_state, HandState)
        if hand_state.hand is None:
            parts.append(f"dealing:{len(hand_state.drawing)}")
        else:
            view = seen(hand_state.hand.view(player), hand_state.hand.hands, self.private)
            parts.append(view.key())
            pending = hand_state.pending
            if pending.card is not None:
                code = self.layout.rules.deck.code
                parts.append("playing:" + code[pending.card] + "".join("+" + code[c] for c in pending.taken))
        if self.layout.recall:
            parts.append(self._recalled(hand_state, player))
        return " ".join(parts)

    def _recalled(self, state: HandState, player: int) -> str:
        code = self.layout.rules.deck.code
        text = "plays[" + " ".join(f"{seat}:{move_text(code, move)}" for seat, move in state.plays) + "]"
        redeals = []
        for order in state.redealt():
            table, own = state.seen_in_redeal(order, player)
            shown = own if self.private != NONE else ()
            redeals.append(" ".join(code[c] for c in table) + "/" + " ".join(code[c] for c in shown))
        return text + (" redeals[" + "; ".join(redeals) + "]" if redeals else "")
