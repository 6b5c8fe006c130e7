"""One hand (a `mano`): from the deal to the scoring, under a compiled ruleset.

The state API is deliberately boring (OpenSpiel's shape): whose turn it is, the sorted legal
moves, `apply(move)` which returns the events it caused, and a canonical JSON snapshot. Every
choice the rules leave to a player is a move: which card and which exact subset of the table.
The engine never picks a capture by itself.

Events are plain JSON-ready dicts; with `record=False` none are built, which is what
simulations use.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from escoba.engine.deal import TABLE, deal_round, dealing_order, first_deal_steps, leader
from escoba.engine.declarations import declared, scoring_categories
from escoba.engine.history import Capture, SideHistory, side_histories
from escoba.engine.scoring import CategoryScore, score_hand
from escoba.engine.view import View
from escoba.errors import EscobaError, IllegalMoveError
from escoba.game.moves import Move, Refusal, refusal
from escoba.game.seats import next_holding
from escoba.rules.compile import Rules

MAX_REDEALS = 64
_NONE: list[tuple[int, ...]] = []  # no capture: shared, never mutated


class DeckError(EscobaError):
    """A deck order that is not exactly the ruleset's deck."""


def shuffled_decks(rules: Rules, rng: random.Random) -> Iterator[list[int]]:
    """Endless shuffled deck orders from a seeded generator (for redeals too)."""
    cards = list(rules.deck.cards)
    while True:
        rng.shuffle(cards)
        yield list(cards)


def opening_of(rules: Rules, table: Sequence[int]) -> tuple[str, int, int] | None:
    """What the opening-table rule does to this table: None when it does not fire, else
    (action, groups, escobas for the dealer's side). First a condition to deal again
    (`redeal_when`), then the trigger, then a condition for the dealer to take the table with no
    escoba (`dealer_takes_when`). A function of the cards' values and joker marks alone, but for
    those conditions (which may read ranks and suits): the fused simulation path
    (`escoba.engine.fused`) remembers it by those, or by the cards."""
    if not table:
        return None
    if rules.opening_redeal_when is not None and rules.opening_redeal_when(table, 0):
        return "redeal", 0, 0
    found = _triggered(rules, table)
    if found is None and rules.opening_takes_when is not None and rules.opening_takes_when(table, 0):
        return "dealer_takes", 0, 0
    return found


def _triggered(rules: Rules, table: Sequence[int]) -> tuple[str, int, int] | None:
    """What the opening-table trigger does to this table (None: it does not fire)."""
    finder = rules.finder
    if rules.opening_action == "none":
        return None
    if rules.opening_trigger == "total":  # the sum decides: a 30 that does not split is two groups too
        groups = finder.total_groups(table, rules.opening_max_groups)
    else:
        groups = finder.split_groups(table, rules.opening_max_groups)
    if rules.opening_trigger == "any_combination":
        triggered = groups > 0 or finder.any_combination(table)
        groups = max(groups, 1)
    else:
        triggered = groups > 0
    if not triggered:
        return None
    escobas = 0
    if rules.opening_action == "dealer_takes":
        escobas = {"none": 0, "one": 1, "per_group": groups}[rules.opening_escobas]
        if escobas and not rules.joker_escobas_score and any(rules.deck.is_joker(c) for c in table):
            escobas = 0
    return rules.opening_action, groups, escobas


class Hand:
    """The state of one hand. Create with `Hand(rules, players, dealer, decks)`."""

    def __init__(
        self,
        rules: Rules,
        players: int,
        dealer: int = 0,
        decks: Iterable[Sequence[int]] | None = None,
        *,
        record: bool = True,
        seed: int | None = None,
    ):
        if players not in rules.player_counts:
            raise EscobaError(f"{rules.id} is played by {', '.join(map(str, rules.player_counts))} players, not {players}")
        if not 0 <= dealer < players:
            raise EscobaError(f"dealer must be a seat from 0 to {players - 1}, got {dealer}")
        self.rules = rules
        self.players = players
        self.dealer = dealer
        self.sides = len(rules.sides(players))
        self.side_of = rules.side_of(players)
        self.leader = leader(rules, players, dealer)
        self._seats = dealing_order(rules, players, dealer)
        self.events: list[dict] | None = [] if record else None
        self._decks = iter(decks) if decks is not None else shuffled_decks(rules, random.Random(seed))
        self.deck_orders: list[list[int]] = []
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.table: list[int] = []
        self.piles: list[list[int]] = [[] for _ in range(self.sides)]
        self.escobas = [0] * self.sides
        self.set_aside: list[int] = []
        self.last_capturer: int | None = None
        self.to_play: int | None = None
        self.plays = 0
        self.round = 0  # deal rounds dealt from the current deck order (1 after the first deal)
        # The hand's history, per side, kept only when a measure reads it (engine/history.py).
        self.captures: list[list[Capture]] | None = [[] for _ in range(self.sides)] if rules.needs_history else None
        # Per side, per category, the values of its declarations so far (categories measured on
        # dealt cards, engine/declarations.py); kept only when the ruleset has such categories.
        self.declared: list[list[Any]] | None = self._no_declarations() if rules.declarations else None
        # Per seat, the cards a declaration showed that it still holds: public (the view has them).
        self.shown: list[list[int]] | None = [[] for _ in range(players)] if rules.declarations else None
        self.scores: list[CategoryScore] | None = None
        self.points: list[int] | None = None
        self._stock: list[int] = []
        self._next = 0
        self._legal: list[Move] | None = None
        self._start()

    # ------------------------------------------------------------------ deal
    def _start(self) -> None:
        rules = self.rules
        for _ in range(MAX_REDEALS):
            self._take_deck()
            if self.events is not None:  # not even built when not recording: simulations deal millions
                self._emit({"event": "hand_start", "dealer": self.dealer, "leader": self.leader, "players": self.players})
            for step in first_deal_steps(rules):
                if step == TABLE:
                    self._deal_table()
                else:
                    self._deal_round()
            turned = list(self.table)
            if self._opening():
                if self.declared is not None:  # shown once the deal stands (not before a redeal)
                    self._declare([self.dealer], [turned], "table")
                    self._declare(self._seats, [self.hands[s] for s in self._seats], "dealt")
                self.to_play = self.leader
                return
        raise EscobaError(f"no playable deal after {MAX_REDEALS} redeals")

    def _no_declarations(self) -> list[list[Any]]:
        return [[0] * len(self.rules.categories) for _ in range(self.sides)]

    def _declare(self, seats: Sequence[int], cards: Sequence[Sequence[int]], on: str) -> None:
        """Score what these seats' cards (each seat's hand as dealt, or the table the dealer
        turned up) declare, and show each declaration (`declaration` events)."""
        assert self.declared is not None
        for seat, held in zip(seats, cards):
            values = declared(self.rules, held, on) if held else None  # (no table, a seat dealt nothing)
            if values is None:
                continue
            side = self.side_of[seat]
            self.declared[side] = [a + b for a, b in zip(self.declared[side], values)]
            if on == "dealt" and self.shown is not None:
                self.shown[seat] = sorted(held)
            self._emit({"event": "declaration", "seat": seat, "side": side, "cards": self._codes(sorted(held)),
                        "categories": scoring_categories(values, self.rules)})  # fmt: skip

    def _take_deck(self) -> None:
        try:
            order = list(next(self._decks))
        except StopIteration:
            raise DeckError("the opening table needs a redeal but no further deck order was given") from None
        if sorted(order) != list(self.rules.deck.cards):
            raise DeckError(_deck_problem(self.rules, order))
        self.deck_orders.append(order)
        self._stock, self._next = order, 0
        self.round = 0
        self.hands = [[] for _ in range(self.players)]
        self.table = []

    def _draw(self, count: int) -> list[int]:
        cards = self._stock[self._next : self._next + count]
        self._next += len(cards)
        return cards

    def _deal_table(self) -> None:
        self.table = self._draw(self.rules.table_size)
        if self.events is not None:
            self._emit({"event": "table", "cards": self._codes(self.table)})

    def _deal_round(self) -> None:
        self.round += 1
        self.hands, self._next = deal_round(self.rules, self._stock, self._next, self._seats, self.players)
        if self.events is not None:
            self._emit({"event": "deal", "hands": [self._codes(h) for h in self.hands]})

    def _opening(self) -> bool:
        """Apply the opening-table rule; False when the hand must be dealt again."""
        found = opening_of(self.rules, self.table)
        if found is None:
            return True
        action, groups, escobas = found
        cards = list(self.table)
        if action == "redeal":
            self._emit({"event": "opening", "action": "redeal", "seat": self.dealer, "cards": self._codes(cards)})
            return False
        if action == "dealer_takes":
            side = self.side_of[self.dealer]
            self.piles[side].extend(cards)
            self.last_capturer = self.dealer
            self.escobas[side] += escobas
        else:  # set_aside
            self.set_aside.extend(cards)
        self.table = []
        self._emit(
            {
                "event": "opening",
                "action": action,
                "seat": self.dealer,
                "side": self.side_of[self.dealer],
                "cards": self._codes(cards),
                "groups": groups,
                "escobas": escobas,
            }
        )
        return True

    # ------------------------------------------------------------------ moves
    @property
    def is_over(self) -> bool:
        return self.to_play is None

    def captures_for(self, card: int) -> list[tuple[int, ...]]:
        return self.rules.finder.captures(card, self.table)

    def legal_moves(self) -> list[Move]:
        """Every legal move, sorted by the played card, then by the cards taken."""
        if self._legal is not None:
            return self._legal
        if self.to_play is None:
            return []
        finder, table, compulsory = self.rules.finder, self.table, self.rules.compulsory
        make = tuple.__new__  # Move(...) goes through a Python-level __new__: too slow here
        moves: list[Move] = []
        placements: list[Move] = []
        if finder.has_jokers:
            by_card = [(card, finder.captures(card, table)) for card in sorted(self.hands[self.to_play])]
        elif finder.simple:
            value, target = finder.value, finder.target
            held = sorted(self.hands[self.to_play])
            sums = finder.sums(table, target - min(map(value.__getitem__, held)))  # map: no generator frame per call
            by_card = [(card, sums.get(target - value[card], _NONE)) for card in held]
        else:  # several capture kinds, a priority or the whole table (capture.kinds): one subset pass, then each card
            sums = finder.sums(table, finder.limit)
            by_card = [(card, finder.kinds_captures(card, table, sums)) for card in sorted(self.hands[self.to_play])]
        # Built in order (card, then taken cards; a placement `()` sorts before any capture),
        # so the list never needs sorting.
        optional = compulsory == "optional"
        for card, subsets in by_card:
            if optional or not subsets:
                placements.append(make(Move, (card, ())))
                if compulsory != "hand":
                    moves.append(placements[-1])
            for s in subsets:
                moves.append(make(Move, (card, s)))
        if compulsory == "hand" and not moves:
            moves = placements
        self._legal = moves
        return moves

    def why_illegal(self, move: Move) -> str | None:
        """The rule a move breaks, in words; None if the move is legal."""
        found = self.refusal(move)
        return found.words if found is not None else None

    def refusal(self, move: Move) -> Refusal | None:
        """The rule a move breaks (its code and words, `escoba.game.moves`); None if legal."""
        seat = self.to_play
        held = self.hands[seat] if seat is not None else None
        return refusal(move, held, self.table, self.rules.finder, self.rules.compulsory, self.rules.deck, seat)

    def apply(self, move: Move | tuple | str) -> list[dict]:
        """Play a move; return the events it caused. An illegal move changes nothing.

        `move` is a `Move` (as `legal_moves()` gives), a (card, take) pair of card indices, or
        the move in the notation the terminal game reads (`"7♦ x 3♣ 5♥"`, `"7d x 3c 5h"`):
        text that is not a move raises `NotationError`, any other value `TypeError`."""
        legal = self.legal_moves()
        if move not in legal:  # a move taken from legal_moves() is found by identity at once
            move = _as_move(move, self.rules)
            if move not in legal:
                raise IllegalMoveError(self.why_illegal(move) or "not a legal move here", move)
        return self._play(move)

    def _play(self, move: Move) -> list[dict]:
        rules, seat = self.rules, self.to_play
        assert seat is not None
        start = len(self.events) if self.events is not None else 0
        card, take = move
        self.hands[seat].remove(card)
        if self.shown is not None and card in self.shown[seat]:
            self.shown[seat].remove(card)
        self._legal = None
        self.plays += 1
        record = self.events is not None
        if record:
            self._emit({"event": "play", "seat": seat, "card": rules.deck.code[card], "take": self._codes(take)})
        if take:
            side = self.side_of[seat]
            table = self.table
            # The whole table taken by a `sum: table` kind whose sweeps are no escoba.
            whole = rules.table_kind is not None and not rules.table_kind.escoba
            no_escoba = whole and rules.finder.whole_table(card, table) is not None
            for c in take:
                table.remove(c)
            self.piles[side].append(card)
            self.piles[side].extend(take)
            self.last_capturer = seat
            escoba = False
            if not table:
                dealt = self._next >= len(self._stock)
                last_play = dealt and not any(self.hands)
                last_card = dealt and not self.hands[seat]
                counts = (rules.escoba_on_last_play or not last_play) and (rules.escoba_on_last_card or not last_card)
                if counts and not no_escoba:
                    scores = rules.joker_escobas_score or not any(rules.finder.is_joker[c] for c in (card, *take))
                    if scores:
                        self.escobas[side] += 1
                        escoba = True
                    if record:
                        self._emit({"event": "escoba", "seat": seat, "side": side, "scores": scores})
            if self.captures is not None:
                self._remember(side, card, take, escoba)
        else:
            self.table.append(card)
        self._advance(seat)
        return self.events[start:] if self.events is not None else []

    def _remember(self, side: int, card: int, take: Sequence[int], escoba: bool) -> None:
        """Add a capture to the side's history (only for rulesets whose measures read it)."""
        assert self.captures is not None
        taken = 0
        for c in take:
            taken |= 1 << c
        last = self._next >= len(self._stock) and not any(self.hands)
        self.captures[side].append(Capture(card, taken, self.round, self.plays == 1, last, escoba))

    def history(self) -> list[SideHistory] | None:
        """Per side, what history-reading measures see; None when the ruleset keeps none."""
        if self.captures is None:
            return None
        last = self.side_of[self.last_capturer] if self.last_capturer is not None else None
        return side_histories(self.captures, last)

    def _advance(self, seat: int) -> None:
        hands, step = self.hands, self.rules.direction
        if any(hands):
            self.to_play = next_holding(seat, step, hands)
        elif self._next < len(self._stock):
            self._deal_round()
            hands = self.hands
            if self.declared is not None:
                self._declare(self._seats, [hands[s] for s in self._seats], "dealt")
            self.to_play = self.leader if hands[self.leader] else next_holding(self.leader, step, hands)
        else:
            self._finish()

    # ------------------------------------------------------------------ end of hand
    def _finish(self) -> None:
        rules = self.rules
        self.to_play = None
        left = list(self.table)
        if left:
            if rules.leftovers_to == "last_capturer" and self.last_capturer is not None:
                seat = self.last_capturer
            elif rules.leftovers_to == "dealer" or (
                rules.leftovers_to == "last_capturer" and rules.if_nobody_captured == "dealer"
            ):
                seat = self.dealer
            else:
                seat = None
            if seat is None:
                self.set_aside.extend(left)
                self._emit({"event": "leftovers", "seat": None, "side": None, "cards": self._codes(left)})
            else:
                side = self.side_of[seat]
                self.piles[side].extend(left)
                if rules.leftovers_escoba:
                    self.escobas[side] += 1
                self._emit({"event": "leftovers", "seat": seat, "side": side, "cards": self._codes(left)})
            self.table = []
        self.scores = score_hand(rules, self.piles, self.escobas, self.history(), self.declared)
        self.points = [sum(s.points[side] for s in self.scores) for side in range(self.sides)]
        if self.events is not None:
            self.events.extend(s.to_event() for s in self.scores)
            self._emit({"event": "hand_end", "points": list(self.points), "cards": [len(p) for p in self.piles]})

    # ------------------------------------------------------------------ helpers
    def _emit(self, event: dict) -> None:
        if self.events is not None:
            self.events.append(event)

    def _codes(self, cards: Iterable[int]) -> list[str]:
        code = self.rules.deck.code
        return [code[c] for c in cards]

    @property
    def stock_size(self) -> int:
        """How many cards are still to be dealt."""
        return len(self._stock) - self._next

    @property
    def stock(self) -> list[int]:
        """The cards not yet dealt, top first."""
        return self._stock[self._next :]

    def to_json(self) -> dict:
        """A canonical snapshot: cards in deck order wherever order carries no meaning."""
        code = self.rules.deck.code
        return {
            "ruleset": self.rules.id,
            "players": self.players,
            "dealer": self.dealer,
            "to_play": self.to_play,
            "stock": [code[c] for c in self.stock],
            "hands": [[code[c] for c in sorted(h)] for h in self.hands],
            "table": [code[c] for c in sorted(self.table)],
            "piles": [[code[c] for c in sorted(p)] for p in self.piles],
            "escobas": list(self.escobas),
            "set_aside": [code[c] for c in sorted(self.set_aside)],
            "last_capturer": self.last_capturer,
            "plays": self.plays,
            "points": list(self.points) if self.points is not None else None,
        } | self._history_json() | self._declared_json()

    def _history_json(self) -> dict:
        """The history part of a snapshot: only for rulesets whose measures read it."""
        if self.captures is None:
            return {}
        code = self.rules.deck.code
        return {
            "round": self.round,
            "captures": [c.to_json(code, side) for side, mine in enumerate(self.captures) for c in mine],
        }

    def _declared_json(self) -> dict:
        """The declarations part of a snapshot: only for rulesets with declarations."""
        if self.declared is None:
            return {}
        code = self.rules.deck.code
        return {"declared": [list(mine) for mine in self.declared],
                "shown": [[code[c] for c in mine] for mine in (self.shown or [[] for _ in range(self.players)])]}  # fmt: skip

    @classmethod
    def from_json(cls, rules: Rules, data: dict, *, record: bool = True) -> Hand:
        """Rebuild a hand in play from `to_json()` output (scores are recomputed at its end)."""
        deck = rules.deck
        return cls.assemble(
            rules,
            int(data["players"]),
            int(data["dealer"]),
            hands=[deck.cards_from(h) for h in data["hands"]],
            table=deck.cards_from(data["table"]),
            piles=[deck.cards_from(p) for p in data["piles"]],
            escobas=[int(e) for e in data["escobas"]],
            set_aside=deck.cards_from(data["set_aside"]),
            stock=deck.cards_from(data["stock"]),
            last_capturer=data["last_capturer"],
            to_play=data["to_play"],
            plays=int(data["plays"]),
            points=list(data["points"]) if data.get("points") is not None else None,
            record=record,
            round=int(data.get("round", 0)),
            captures=_captures_from_json(rules, data),
            declared=_declared_from_json(rules, data),
            shown=[deck.cards_from(s) for s in data["shown"]] if rules.declarations and "shown" in data else None,
        )

    @classmethod
    def assemble(
        cls,
        rules: Rules,
        players: int,
        dealer: int,
        *,
        hands: list[list[int]],
        table: list[int],
        piles: list[list[int]],
        escobas: list[int],
        set_aside: list[int],
        stock: list[int],
        last_capturer: int | None,
        to_play: int | None,
        plays: int,
        points: list[int] | None = None,
        record: bool = True,
        round: int = 0,
        captures: list[list[Capture]] | None = None,
        declared: list[list[Any]] | None = None,
        shown: list[list[int]] | None = None,
        check: bool = True,
    ) -> Hand:
        """A hand in play from its parts (the lists are taken, not copied): what `from_json`
        and `View.determinize` build. Raises `DeckError` unless every card is somewhere once."""
        self = cls.__new__(cls)
        self.rules, self.players, self.dealer = rules, players, dealer
        self.sides = len(rules.sides(players))
        self.side_of = rules.side_of(players)
        self.leader = leader(rules, players, dealer)
        self._seats = dealing_order(rules, players, dealer)
        self.events = [] if record else None
        self._decks = iter(())
        self.deck_orders = []
        self._stock, self._next = stock, 0
        self.hands, self.table, self.piles = hands, table, piles
        self.escobas, self.set_aside = escobas, set_aside
        self.last_capturer, self.to_play, self.plays = last_capturer, to_play, plays
        self.round = round
        self.captures = None
        if rules.needs_history:
            if captures is None:
                raise EscobaError(f"no captures given, and the measures of {rules.id} read the hand's history")
            self.captures = captures
        self.declared = self.shown = None
        if rules.declarations:  # a snapshot without them (made before any deal was shown): none yet
            self.declared = declared if declared is not None else self._no_declarations()
            self.shown = shown if shown is not None else [[] for _ in range(players)]
        self._legal = None
        self.scores = None
        self.points = points
        if check and (len(piles) != self.sides or len(escobas) != self.sides or len(hands) != players):
            # another seating's data (partners' shared piles at a table of four who play alone)
            raise DeckError(f"{len(hands)} hands, {len(piles)} piles and {len(escobas)} escoba counts: "
                            f"these rules seat {players} players as {self.sides} sides")  # fmt: skip
        if check:
            everything = sorted(stock + table + set_aside + [c for cards in (*hands, *piles) for c in cards])
            if everything != list(rules.deck.cards):
                raise DeckError("the snapshot does not hold every card of the deck exactly once")
        if to_play is None and points is not None:
            self.scores = score_hand(rules, piles, escobas, self.history(), self.declared)
        return self

    # ------------------------------------------------------------------ what a seat knows
    def view(self, seat: int) -> View:
        """The information state of `seat`: what that seat may know (`escoba.engine.view`)."""
        if not 0 <= seat < self.players:
            raise EscobaError(f"seat must be from 0 to {self.players - 1}, got {seat}")
        open_hands = self.rules.open_hands
        return View(
            rules=self.rules,
            players=self.players,
            seat=seat,
            dealer=self.dealer,
            to_play=self.to_play,
            hands=tuple(tuple(sorted(h)) if s == seat or open_hands else None for s, h in enumerate(self.hands)),
            hand_sizes=tuple(len(h) for h in self.hands),
            table=tuple(sorted(self.table)),
            piles=tuple(tuple(sorted(p)) for p in self.piles),
            escobas=tuple(self.escobas),
            set_aside=tuple(sorted(self.set_aside)),
            stock_size=self.stock_size,
            last_capturer=self.last_capturer,
            plays=self.plays,
            points=None if self.points is None else tuple(self.points),
            round=self.round,
            captures=None if self.captures is None else tuple(tuple(mine) for mine in self.captures),
            declared=None if self.declared is None else tuple(tuple(mine) for mine in self.declared),
            shown=None if self.shown is None else tuple(tuple(sorted(mine)) for mine in self.shown),
        )

    def determinize(self, seat: int, rng: random.Random, *, record: bool = False) -> Hand:
        """A full hand consistent with what `seat` knows, the cards it cannot see dealt at
        random (each such deal equally likely)."""
        return self.from_view(self.view(seat), rng, record=record)

    @classmethod
    def from_view(cls, view: View, rng: random.Random, *, record: bool = False) -> Hand:
        """A full hand that agrees with `view`, the unseen cards dealt uniformly at random:
        into each hidden hand (keeping its size), the rest into the stock in a random order."""
        hidden = list(view.unseen)
        rng.shuffle(hidden)
        hands: list[list[int]] = []
        pos = 0
        for seat, cards in enumerate(view.hands):
            if cards is not None:
                hands.append(list(cards))
            else:  # the cards a declaration showed, and unseen ones for the rest
                known = list(view.shown[seat]) if view.shown is not None else []
                size = view.hand_sizes[seat] - len(known)
                hands.append(known + hidden[pos : pos + size])
                pos += size
        stock = hidden[pos:]
        if len(stock) != view.stock_size:  # a view built by hand that does not add up
            raise EscobaError(
                f"the view does not add up: {len(hidden)} unseen cards for hidden hands and a stock of {view.stock_size}"
            )
        return cls.assemble(
            view.rules,
            view.players,
            view.dealer,
            hands=hands,
            table=list(view.table),
            piles=[list(p) for p in view.piles],
            escobas=list(view.escobas),
            set_aside=list(view.set_aside),
            stock=stock,
            last_capturer=view.last_capturer,
            to_play=view.to_play,
            plays=view.plays,
            points=None if view.points is None else list(view.points),
            record=record,
            round=view.round,
            captures=None if view.captures is None else [list(mine) for mine in view.captures],
            declared=None if view.declared is None else [list(mine) for mine in view.declared],
            shown=None if view.shown is None else [list(mine) for mine in view.shown],
            check=False,  # every card is placed once by construction (tests/test_view.py checks)
        )

    def __deepcopy__(self, memo: dict) -> Hand:
        return self.clone()  # OpenSpiel clones a state by deep-copying its attributes

    def clone(self) -> Hand:
        """An independent copy of the state, cheap enough for a search to make thousands.

        Card lists are copied; the stock's deck order is shared (it is never changed in place,
        only read past `_next`), and so are the events already recorded."""
        other = Hand.__new__(Hand)
        other.__dict__.update(self.__dict__)
        other.hands = [list(h) for h in self.hands]
        other.table = list(self.table)
        other.piles = [list(p) for p in self.piles]
        other.escobas = list(self.escobas)
        other.set_aside = list(self.set_aside)
        other.deck_orders = list(self.deck_orders)
        if self.captures is not None:
            other.captures = [list(mine) for mine in self.captures]
        if self.declared is not None:
            other.declared = [list(mine) for mine in self.declared]
        if self.shown is not None:
            other.shown = [list(mine) for mine in self.shown]
        other._decks = iter(())  # redeals happen only while dealing, which is over
        if self.events is not None:
            other.events = list(self.events)
        if self.points is not None:
            other.points = list(self.points)
        return other


def _captures_from_json(rules: Rules, data: dict) -> list[list[Capture]] | None:
    """A snapshot's history (`captures`), per side; None when the ruleset keeps none."""
    if not rules.needs_history:
        return None
    if "captures" not in data:
        raise EscobaError(f"the snapshot has no 'captures', and the measures of {rules.id} read the hand's history")
    index = {code: c for c, code in enumerate(rules.deck.code)}
    sides: list[list[Capture]] = [[] for _ in rules.sides(int(data["players"]))]
    for item in data["captures"]:
        sides[int(item["side"])].append(Capture.from_json(item, index))
    return sides


_MOVE_FORMS = "a Move, a (card, take) pair of card indices, or the move's notation ('7♦ x 3♣ 5♥', '7d x 3c 5h')"


def _as_move(move: object, rules: Rules) -> Move:
    """What `Hand.apply` was given, as a Move with its take sorted; NotationError for text that
    is not a move, TypeError for anything that is neither a move nor text."""
    if isinstance(move, str):
        from escoba.notation import parse_move  # lark, loaded only for text

        move = parse_move(move, rules.deck)
    if isinstance(move, tuple | list) and len(move) == 2:
        card, take = move
        if isinstance(take, Iterable) and not isinstance(take, str | bytes):
            take = tuple(take)
            if all(isinstance(c, int) and not isinstance(c, bool) for c in (card, *take)):
                return Move(card, tuple(sorted(take)))
    raise TypeError(f"a move is {_MOVE_FORMS}, not {type(move).__name__} {move!r:.60}")


def _declared_from_json(rules: Rules, data: dict) -> list[list[Any]] | None:
    """A snapshot's declarations so far, per side and category; None when the ruleset has none."""
    if not rules.declarations or "declared" not in data:
        return None
    return [list(mine) for mine in data["declared"]]


def _deck_problem(rules: Rules, order: Sequence[int]) -> str:
    deck = rules.deck
    seen: dict[int, int] = {}
    for c in order:
        seen[c] = seen.get(c, 0) + 1
    twice = [deck.code[c] for c, k in seen.items() if k > 1 and 0 <= c < len(deck)]
    missing = [deck.code[c] for c in deck.cards if c not in seen]
    parts = []
    if twice:
        parts.append("twice: " + " ".join(twice))
    if missing:
        parts.append("missing: " + " ".join(missing))
    return f"the deck order is not the {len(deck)}-card deck of {rules.id} ({'; '.join(parts) or 'unknown cards'})"

