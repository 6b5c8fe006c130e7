#!/usr/bin/env python3
"""crisol: Escoba as it is played at our table, behind the escoba JSON-lines protocol.

Written from the protocol description (docs/protocol.md). The engine plays its own rules, the
ones README.md describes, whatever ruleset `start` sends: it reads only the card codes from the
ruleset's deck. Standard library only.

    python tests/engines/outside/crisol/engine.py
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field

ENGINE = {"name": "crisol", "version": "2.3.1", "language": "python"}

# ----------------------------------------------------------------------------------------------
# Declared rules (issue 35). The runner is about to accept the rules an engine plays as a
# ruleset (a bundled id or a ruleset file) named in `hello`. When it does, set this to our file
# and `hello` sends it as "ruleset"; until then only the features below are declared.
DECLARED_RULESET: str | None = None  # "tests/engines/outside/crisol/rules.yaml"
# ----------------------------------------------------------------------------------------------

# What we play, in the protocol's feature vocabulary (docs/protocol.md, "Features").
FEATURES = [
    "players:2", "players:3", "players:4", "match", "measures",
    "deck.jokers:0", "players.partnerships:none",
    "turn.direction:counterclockwise", "turn.leader:dealer_right", "turn.next_dealer:right",
    "deal.hand_size:3", "deal.table_size:4", "deal.table_first:no",
    "opening_table.trigger:all_cards", "opening_table.max_groups:2",
    "opening_table.action:dealer_takes", "opening_table.escobas:none",
    "capture.target:15", "capture.compulsory:optional", "capture.kinds:target",
    "capture.escoba_on_last_play:yes",
    "leftovers.to:last_capturer", "leftovers.escoba:no", "leftovers.if_nobody_captured:dealer",
    "scoring.escobas.award:per-unit", "scoring.escobas.points:1",
    "scoring.cards.award:most", "scoring.cards.ties:all",
    "scoring.coins.award:most", "scoring.coins.ties:all",
    "scoring.velo.award:holder-7d",
    "scoring.primera.award:most", "scoring.primera.ties:nobody",
    "values.primera:7=21,6=18,1=16,5=15,4=14,3=13,2=12,caballo=10,rey=10,sota=10",
    "match.tie:extra_hand",
]

TARGET = 15
HAND_SIZE = 3
TABLE_SIZE = 4
PLAYER_COUNTS = (2, 3, 4)


class Refusal(Exception):
    """A request we answer with ok: false."""

    def __init__(self, kind: str, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.kind, self.message, self.reason = kind, message, reason

    def error(self) -> dict:
        error = {"kind": self.kind, "message": self.message}
        if self.reason:
            error["reason"] = self.reason
        return error


# ---------------------------------------------------------------------------------------- cards
@dataclass(frozen=True)
class Card:
    code: str
    suit: int  # 0 oros, 1 copas, 2 espadas, 3 bastos
    rank: int  # 0 = ace … 9 = rey

    @property
    def value(self) -> int:
        return self.rank + 1

    @property
    def index(self) -> int:
        return self.suit * 10 + self.rank

    @property
    def is_velo(self) -> bool:
        return self.suit == 0 and self.rank == 6


# The primera value of each rank, ace to rey.
PRIMERA = (16, 12, 13, 14, 15, 18, 21, 10, 10, 10)


def by_deck_order(cards: list[Card]) -> list[Card]:
    return sorted(cards, key=lambda c: c.index)


def codes(cards: list[Card]) -> list[str]:
    return [c.code for c in cards]


class Deck:
    """The Spanish 40-card deck. The runner names cards with the codes of the ruleset it sends;
    we take its suits and ranks in order as ours (oros … bastos, ace … rey)."""

    def __init__(self, deck: object) -> None:
        if not isinstance(deck, dict):
            raise Refusal("bad_request", "the ruleset has no deck")
        if deck.get("jokers", 0):
            raise Refusal("unsupported", "crisol plays the 40-card deck, without jokers")
        suits, ranks = deck.get("suits"), deck.get("ranks")
        if not (isinstance(suits, list) and isinstance(ranks, list) and len(suits) == 4 and len(ranks) == 10):
            raise Refusal("unsupported", "crisol plays a deck of four suits of ten cards")
        self.cards: dict[str, Card] = {}
        for s, suit in enumerate(suits):
            for r, rank in enumerate(ranks):
                try:
                    code = str(rank["ascii"]) + str(suit["ascii"])
                except (KeyError, TypeError):
                    raise Refusal("bad_request", "a suit or rank without its ascii code") from None
                self.cards[code] = Card(code, s, r)

    def knows(self, code: object) -> bool:
        return isinstance(code, str) and code in self.cards

    def order(self, codes_: object) -> list[Card]:
        if not isinstance(codes_, list) or len(codes_) != 40 or not all(self.knows(c) for c in codes_):
            raise Refusal("bad_request", "a deck order must list the 40 cards of the deck")
        if len(set(codes_)) != 40:
            raise Refusal("bad_request", "a deck order names a card twice")
        return [self.cards[c] for c in codes_]


# -------------------------------------------------------------------------------------- players
@dataclass
class Player:
    seat: int
    hand: list[Card] = field(default_factory=list)
    pile: list[Card] = field(default_factory=list)
    escobas: int = 0


# -------------------------------------------------------------------------------------- capture
class CaptureFinder:
    """Every set of table cards a played card can take: the card and the set make 15."""

    # Nobody ever takes more than three cards from the table at once, and stopping there keeps
    # the search small when the table fills up (we let players lay cards down freely).
    MAX_TAKEN = 3

    def captures(self, card: Card, table: list[Card]) -> list[list[Card]]:
        found: list[list[Card]] = []
        chosen: list[Card] = []

        def search(start: int, remaining: int) -> None:
            if remaining == 0:
                found.append(by_deck_order(chosen))
                return
            if len(chosen) == self.MAX_TAKEN:
                return
            for i in range(start, len(table)):
                if table[i].value <= remaining:
                    chosen.append(table[i])
                    search(i + 1, remaining - table[i].value)
                    chosen.pop()

        search(0, TARGET - card.value)
        return found

    @staticmethod
    def makes_target(card: Card, take: list[Card]) -> bool:
        return card.value + sum(c.value for c in take) == TARGET


class Opening:
    """The dealer's table: if the four cards make 15, or 30 as two fifteens, the dealer picks
    them up. At our table that is a capture but never an escoba."""

    @staticmethod
    def groups(table: list[Card]) -> int:
        total = sum(c.value for c in table)
        if total == TARGET:
            return 1
        if total == 2 * TARGET and Opening.splits(table):
            return 2
        return 0

    @staticmethod
    def splits(table: list[Card]) -> bool:
        n = len(table)
        return any(sum(table[i].value for i in range(n) if mask >> i & 1) == TARGET for mask in range(1, (1 << n) - 1))


# -------------------------------------------------------------------------------------- scoring
class Category:
    id = ""
    points = 1

    def measure(self, player: Player) -> object:
        raise NotImplementedError

    def award(self, measures: list) -> list[int]:
        raise NotImplementedError

    def score(self, players: list[Player]) -> dict:
        measures = [self.measure(p) for p in players]
        return {"event": "score", "category": self.id, "measures": measures, "points": self.award(measures)}


class Escobas(Category):
    id = "escobas"

    def measure(self, player: Player) -> int:
        return player.escobas

    def award(self, measures: list) -> list[int]:
        return [m * self.points for m in measures]


class Most(Category):
    """Whoever has the most; at our table a tie for cards or coins scores every leader."""

    def __init__(self, id_: str, ties: str) -> None:
        self.id, self.ties = id_, ties
        self.leaders: list[int] = []

    def award(self, measures: list) -> list[int]:
        points = [0] * len(measures)
        eligible = [m for m in measures if m is not None]
        self.leaders = []
        if eligible:
            top = max(eligible)
            self.leaders = [i for i, m in enumerate(measures) if m == top]
            if len(self.leaders) == 1 or self.ties == "all":
                for i in self.leaders:
                    points[i] = self.points
        return points


class MostCards(Most):
    def __init__(self) -> None:
        super().__init__("cards", "all")

    def measure(self, player: Player) -> int:
        return len(player.pile)


class MostCoins(Most):
    def __init__(self) -> None:
        super().__init__("coins", "all")

    def measure(self, player: Player) -> int:
        return sum(1 for c in player.pile if c.suit == 0)


class Primera(Most):
    def __init__(self) -> None:
        super().__init__("primera", "nobody")

    def measure(self, player: Player) -> int | None:
        best = [0, 0, 0, 0]
        for c in player.pile:
            best[c.suit] = max(best[c.suit], PRIMERA[c.rank])
        return None if 0 in best else sum(best)


class Velo(Category):
    id = "velo"

    def measure(self, player: Player) -> bool:
        return any(c.is_velo for c in player.pile)

    def award(self, measures: list) -> list[int]:
        return [self.points if m else 0 for m in measures]


class Scoresheet:
    """The hand's score: one event per category, in our order, and the totals."""

    def __init__(self, players: list[Player]) -> None:
        self.events: list[dict] = []
        self.totals = [0] * len(players)
        for category in (Escobas(), MostCards(), MostCoins(), Velo(), Primera()):
            event = category.score(players)
            self.events.append(event)
            for side, points in enumerate(event["points"]):
                self.totals[side] += points
            # A shared category: every leader scores it (our table's rule, not the books').
            if isinstance(category, Most) and category.ties == "all" and len(category.leaders) > 1:
                for side in category.leaders:
                    self.totals[side] += category.points


# ----------------------------------------------------------------------------------------- hand
class Hand:
    """One deal, from the shuffled deck to the score."""

    def __init__(self, players: int, dealer: int, order: list[Card]) -> None:
        self.players = [Player(seat) for seat in range(players)]
        self.dealer = dealer
        self.leader = (dealer + 1) % players
        self.stock = list(order)
        self.table: list[Card] = []
        self.to_play: int | None = self.leader
        self.last_capturer: int | None = None
        self.plays = 0
        self.finder = CaptureFinder()
        self.sheet: Scoresheet | None = None

    @property
    def over(self) -> bool:
        return self.sheet is not None

    def begin(self) -> list[dict]:
        events = [{"event": "hand_start", "dealer": self.dealer, "leader": self.leader, "players": len(self.players)}]
        events.append(self.deal_round())
        self.table = self.stock[:TABLE_SIZE]
        del self.stock[:TABLE_SIZE]
        events.append({"event": "table", "cards": codes(self.table)})
        groups = Opening.groups(self.table)
        if groups:
            dealer = self.players[self.dealer]
            events.append({"event": "opening", "action": "dealer_takes", "seat": self.dealer, "side": self.dealer,
                           "cards": codes(self.table), "groups": groups, "escobas": 0})
            dealer.pile += self.table
            self.table = []
            self.last_capturer = self.dealer
        return events

    def deal_round(self) -> dict:
        n = len(self.players)
        for k in range(n):
            player = self.players[(self.leader + k) % n]
            player.hand = self.stock[:HAND_SIZE]
            del self.stock[:HAND_SIZE]
        return {"event": "deal", "hands": [codes(p.hand) for p in self.players]}

    def legal(self) -> list[tuple[Card, list[Card]]]:
        if self.to_play is None:
            return []
        moves: list[tuple[Card, list[Card]]] = []
        for card in self.players[self.to_play].hand:
            moves.append((card, []))  # a card may always be laid down at our table
            moves.extend((card, take) for take in self.finder.captures(card, self.table))
        moves.sort(key=lambda m: (m[0].index, [c.index for c in m[1]]))
        return moves

    def check(self, deck: Deck, move: object) -> tuple[Card, list[Card]]:
        if not isinstance(move, dict) or not deck.knows(move.get("card")) or not isinstance(move.get("take"), list):
            raise Refusal("illegal_move", "a move is {card, take: [cards]} with known codes", "malformed")
        take_codes = move["take"]
        if not all(deck.knows(c) for c in take_codes) or len(set(take_codes)) != len(take_codes):
            raise Refusal("illegal_move", "the take must name known cards, each once", "malformed")
        if self.to_play is None:
            raise Refusal("illegal_move", "the hand is over", "hand_over")
        card = deck.cards[move["card"]]
        take = by_deck_order([deck.cards[c] for c in take_codes])
        if card not in self.players[self.to_play].hand:
            raise Refusal("illegal_move", f"{card.code} is not in the hand of seat {self.to_play}", "not_in_hand")
        if any(c not in self.table for c in take):
            raise Refusal("illegal_move", "that card is not on the table", "not_on_table")
        if take and not CaptureFinder.makes_target(card, take):
            raise Refusal("illegal_move", "the card and the cards taken must make 15", "wrong_sum")
        return card, take

    def play(self, card: Card, take: list[Card]) -> list[dict]:
        assert self.to_play is not None
        seat = self.to_play
        player = self.players[seat]
        player.hand.remove(card)
        events = [{"event": "play", "seat": seat, "card": card.code, "take": codes(take)}]
        self.plays += 1
        if take:
            self.table = [c for c in self.table if c not in take]
            player.pile += [card, *take]
            self.last_capturer = seat
            if not self.table:
                player.escobas += 1
                events.append({"event": "escoba", "seat": seat, "side": seat, "scores": True})
        else:
            self.table.append(card)
        if any(p.hand for p in self.players):
            self.to_play = (seat + 1) % len(self.players)
        elif self.stock:
            events.append(self.deal_round())
            self.to_play = self.leader
        else:
            events += self.finish()
        return events

    def finish(self) -> list[dict]:
        events = []
        self.to_play = None
        if self.table:
            # Nobody took anything all hand: the dealer sweeps up what is left.
            seat = self.dealer if self.last_capturer is None else self.last_capturer
            self.players[seat].pile += self.table
            events.append({"event": "leftovers", "seat": seat, "side": seat, "cards": codes(self.table)})
            self.table = []
        self.sheet = Scoresheet(self.players)
        events += self.sheet.events
        events.append({"event": "hand_end", "points": self.sheet.totals, "cards": [len(p.pile) for p in self.players]})
        return events

    def snapshot(self) -> dict:
        return {
            "ruleset": "crisol",
            "players": len(self.players),
            "dealer": self.dealer,
            "to_play": self.to_play,
            "stock": codes(self.stock),
            "hands": [codes(p.hand) for p in self.players],
            "table": codes(self.table),
            "piles": [codes(p.pile) for p in self.players],
            "escobas": [p.escobas for p in self.players],
            "set_aside": [],
            "last_capturer": self.last_capturer,
            "plays": self.plays,
            "points": self.sheet.totals if self.sheet else None,
        }


# ---------------------------------------------------------------------------------------- match
class Match:
    """Hands to a target; the highest total over it wins, an exact tie plays another hand."""

    def __init__(self, target: int, players: int) -> None:
        self.target = target
        self.totals = [0] * players
        self.hands = 0
        self.winners: list[int] | None = None

    def record(self, points: list[int]) -> list[dict]:
        self.hands += 1
        self.totals = [t + p for t, p in zip(self.totals, points)]
        events = [{"event": "totals", "hand": self.hands, "totals": list(self.totals)}]
        top = max(self.totals)
        if top >= self.target:
            leaders = [s for s, t in enumerate(self.totals) if t == top]
            if len(leaders) == 1:
                self.winners = leaders
                events.append({"event": "match_end", "winners": leaders, "totals": list(self.totals),
                               "reason": f"seat {leaders[0]} reached {self.target} with the highest total"})
            else:
                events.append({"event": "tie", "sides": leaders, "totals": list(self.totals)})
        return events


# -------------------------------------------------------------------------------------- session
class Session:
    def __init__(self) -> None:
        self.deck: Deck | None = None
        self.hand: Hand | None = None
        self.match: Match | None = None

    def handle(self, request: dict) -> dict:
        command = request.get("cmd")
        if command == "hello":
            return self.hello(request)
        if command == "start":
            return self.start(request)
        if command == "quit":
            return {}
        if command not in ("legal", "play", "state", "score", "next_hand"):
            raise Refusal("unknown_command", f"unknown command {command!r}")
        if self.hand is None or self.deck is None:
            raise Refusal("bad_state", "no game: send start first")
        if command == "legal":
            moves = self.hand.legal()
            return {"seat": self.hand.to_play,
                    "moves": [{"card": c.code, "take": codes(take)} for c, take in moves]}
        if command == "play":
            if "move" not in request:
                raise Refusal("bad_request", "play needs a move")
            card, take = self.hand.check(self.deck, request["move"])
            events = self.hand.play(card, take)
            if self.hand.over and self.match is not None and self.hand.sheet is not None:
                events += self.match.record(self.hand.sheet.totals)
            return {"events": events}
        if command == "state":
            return {"state": self.hand.snapshot()}
        if command == "score":
            return self.score()
        return self.next_hand(request)

    def hello(self, request: dict) -> dict:
        if request.get("protocol") != 1:
            raise Refusal("bad_request", "crisol speaks protocol 1")
        reply = {"protocol": 1, "engine": dict(ENGINE), "features": list(FEATURES)}
        if DECLARED_RULESET is not None:
            reply["ruleset"] = DECLARED_RULESET
        return reply

    def start(self, request: dict) -> dict:
        ruleset, players, dealer = request.get("ruleset"), request.get("players"), request.get("dealer")
        decks, target = request.get("decks"), request.get("target")
        if not isinstance(ruleset, dict) or not isinstance(decks, list) or not decks:
            raise Refusal("bad_request", "start needs a ruleset and deck orders")
        if not isinstance(players, int) or isinstance(players, bool):
            raise Refusal("bad_request", "players must be a number")
        if players not in PLAYER_COUNTS:
            raise Refusal("unsupported", f"crisol plays with 2, 3 or 4 players, not {players}")
        if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < players:
            raise Refusal("bad_request", "dealer must be a seat")
        if target is not None and (not isinstance(target, int) or isinstance(target, bool) or target < 1):
            raise Refusal("bad_request", "target must be null or a number of points")
        deck = Deck(ruleset.get("deck"))
        order = deck.order(decks[0])
        self.deck, self.hand = deck, Hand(players, dealer, order)
        self.match = Match(target, players) if target is not None else None
        return {"events": self.hand.begin()}

    def next_hand(self, request: dict) -> dict:
        assert self.hand is not None and self.deck is not None
        if self.match is None:
            raise Refusal("bad_state", "next_hand is for matches")
        if not self.hand.over:
            raise Refusal("bad_state", "the hand is still being played")
        if self.match.winners is not None:
            raise Refusal("bad_state", "the match is over")
        decks = request.get("decks")
        if not isinstance(decks, list) or not decks:
            raise Refusal("bad_request", "next_hand needs deck orders")
        order = self.deck.order(decks[0])
        players = len(self.hand.players)
        self.hand = Hand(players, (self.hand.dealer + 1) % players, order)
        return {"events": self.hand.begin()}

    def score(self) -> dict:
        assert self.hand is not None
        sheet = self.hand.sheet
        hand = {"points": sheet.totals if sheet else None, "categories": sheet.events if sheet else []}
        match = None
        if self.match is not None:
            match = {"totals": list(self.match.totals), "over": self.match.winners is not None,
                     "winners": self.match.winners}
        return {"hand": hand, "match": match}


def main() -> int:
    sys.stdin.reconfigure(encoding="utf-8", errors="replace")  # type: ignore[union-attr]
    session = Session()
    while True:
        line = sys.stdin.readline()
        if not line:
            return 0
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError:
            request = None
        if not isinstance(request, dict):
            reply = {"id": None, "ok": False, "error": {"kind": "bad_json", "message": "not a JSON object"}}
        else:
            ident = request.get("id")
            try:
                reply = {"id": ident, "ok": True, **session.handle(request)}
            except Refusal as refusal:
                reply = {"id": ident, "ok": False, "error": refusal.error()}
            except Exception as exc:  # our own bug: say so rather than die mid-game
                reply = {"id": ident, "ok": False, "error": {"kind": "internal", "message": repr(exc)}}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
        if isinstance(request, dict) and request.get("cmd") == "quit":
            return 0


if __name__ == "__main__":
    sys.exit(main())
