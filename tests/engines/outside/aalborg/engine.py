#!/usr/bin/env python3
"""aalborg — the rules of a Danish Escoba app, ported to the escoba JSON-lines protocol.

The app's game logic is a set of pure functions over an immutable game record; this file keeps
that shape: `deal`, `moves`, `apply_move` and `score_hand` return new records, and the protocol
loop at the bottom only keeps the current one. The app's settings are fixed to what our club
uses (README.md): table turned up first, velo worth two, no primera, shared wins. Whatever
ruleset `start` sends, these are the rules played. Spanish deck codes only.

    python tests/engines/outside/aalborg/engine.py
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import NamedTuple

APP = {"name": "aalborg", "version": "3.1.0", "language": "python", "homepage": "port of a Danish escoba app"}

# =============================================================================================
# Declared rules (issue 35): the runner will take the ruleset an engine plays, named in `hello`.
# Our settings as a ruleset file are rules.yaml beside this file; name it here when the runner
# accepts it, and `hello` will send it.
DECLARED_RULESET: str | None = None  # "tests/engines/outside/aalborg/rules.yaml"
# =============================================================================================

FEATURES = (
    "players:2", "players:3", "players:4", "match", "measures",
    "deal.table_first:yes", "capture.compulsory:card",
    "opening:dealer_takes", "opening:split",
    "scoring.escobas.award:per-unit",
    "scoring.cards.award:more-than-20", "scoring.coins.award:more-than-5",
    "scoring.velo.award:holder-7d", "scoring.velo.points:2",
    "match.tie:shared_win",
)


class Settings(NamedTuple):
    """The app's settings screen, as our club has it."""

    table_first: bool = True
    velo_points: int = 2
    primera: bool = False
    cards_more_than: int = 20
    coins_more_than: int = 5
    shared_win: bool = True


SETTINGS = Settings()
SUITS = ("d", "h", "s", "c")
RANKS = ("1", "2", "3", "4", "5", "6", "7", "S", "C", "R")
DECK = tuple(r + s for s in SUITS for r in RANKS)
INDEX = {code: i for i, code in enumerate(DECK)}
VELO = "7d"


def value(card: str) -> int:
    return RANKS.index(card[0]) + 1


def is_coin(card: str) -> bool:
    return card[1] == "d"


def in_deck_order(cards: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return tuple(sorted(cards, key=INDEX.__getitem__))


class Move(NamedTuple):
    card: str
    take: tuple[str, ...]


class Capture(NamedTuple):
    """The app logs every capture made by a play (for its replay screen)."""

    seat: int
    cards: tuple[str, ...]


class Game(NamedTuple):
    players: int
    dealer: int
    stock: tuple[str, ...]
    hands: tuple[tuple[str, ...], ...]
    table: tuple[str, ...]
    piles: tuple[tuple[str, ...], ...]
    escobas: tuple[int, ...]
    turn: int | None
    last_capturer: int | None
    log: tuple[Capture, ...] = ()
    plays: int = 0

    @property
    def leader(self) -> int:
        return (self.dealer + 1) % self.players


class Refusal(Exception):
    def __init__(self, kind: str, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.payload = {"kind": kind, "message": message} | ({"reason": reason} if reason else {})


def replace_at(items: tuple, i: int, new: object) -> tuple:
    return items[:i] + (new,) + items[i + 1:]


# ------------------------------------------------------------------------------------ dealing
def deal_round(game: Game) -> Game:
    hands = list(game.hands)
    stock = game.stock
    for k in range(game.players):
        seat = (game.leader + k) % game.players
        hands[seat], stock = stock[:3], stock[3:]
    return game._replace(hands=tuple(hands), stock=stock)


def new_game(players: int, dealer: int, order: tuple[str, ...]) -> tuple[Game, list[dict]]:
    empty = tuple(() for _ in range(players))
    game = Game(players, dealer, order, empty, (), empty, (0,) * players, None, None)
    events = [{"event": "hand_start", "dealer": dealer, "leader": game.leader, "players": players}]
    # The events follow the cards: with the table turned up first, `table` comes before `deal`.
    if SETTINGS.table_first:
        game = game._replace(table=game.stock[:4], stock=game.stock[4:])
        events.append({"event": "table", "cards": list(game.table)})
        game = deal_round(game)
        events.append({"event": "deal", "hands": [list(h) for h in game.hands]})
    else:
        game = deal_round(game)
        events.append({"event": "deal", "hands": [list(h) for h in game.hands]})
        game = game._replace(table=game.stock[:4], stock=game.stock[4:])
        events.append({"event": "table", "cards": list(game.table)})
    groups = opening_groups(game.table)
    if groups:
        events.append({"event": "opening", "action": "dealer_takes", "seat": dealer, "side": dealer,
                       "cards": list(game.table), "groups": groups, "escobas": groups})
        game = game._replace(
            piles=replace_at(game.piles, dealer, game.piles[dealer] + game.table),
            escobas=replace_at(game.escobas, dealer, game.escobas[dealer] + groups),
            table=(), last_capturer=dealer)
    return game._replace(turn=game.leader), events


def opening_groups(table: tuple[str, ...]) -> int:
    total = sum(map(value, table))
    if total == 15:
        return 1
    if total == 30 and any(sum(map(value, part)) == 15 for part in subsets(table)):
        return 2
    return 0


def subsets(cards: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    for mask in range(1, 1 << len(cards)):
        yield tuple(c for i, c in enumerate(cards) if mask >> i & 1)


# ----------------------------------------------------------------------------------- captures
def takes(card: str, table: tuple[str, ...]) -> list[tuple[str, ...]]:
    need = 15 - value(card)
    found: list[tuple[str, ...]] = []

    def grow(rest: tuple[str, ...], left: int, chosen: tuple[str, ...]) -> None:
        if left == 0:
            found.append(in_deck_order(chosen))
            return
        for i, c in enumerate(rest):
            if value(c) <= left:
                grow(rest[i + 1:], left - value(c), chosen + (c,))

    grow(table, need, ())
    return found


def moves(game: Game) -> list[Move]:
    if game.turn is None:
        return []
    out: list[Move] = []
    for card in game.hands[game.turn]:
        options = takes(card, game.table)
        if not options:
            out.append(Move(card, ()))
        # The app lists the small captures first, as its move picker shows them.
        options.sort(key=lambda t: (len(t), [INDEX[c] for c in t]))
        out.extend(Move(card, t) for t in options)
    out.sort(key=lambda m: INDEX[m.card])  # stable: keeps each card's captures as listed
    return out


def refusal_for(game: Game, raw: object) -> Move:
    """The move, or the refusal the protocol asks for (reasons in the protocol's order)."""
    if not isinstance(raw, dict) or not isinstance(raw.get("take"), list):
        raise Refusal("illegal_move", "a move is {card, take}", "malformed")
    card, take = raw.get("card"), raw["take"]
    if not isinstance(card, str) or not all(isinstance(c, str) for c in take) \
            or card not in INDEX or any(c not in INDEX for c in take) or len(set(take)) != len(take):
        raise Refusal("illegal_move", "unknown or repeated card", "malformed")
    if game.turn is None:
        raise Refusal("illegal_move", "the hand is over", "hand_over")
    if card not in game.hands[game.turn]:
        raise Refusal("illegal_move", f"{card} is not in the hand of seat {game.turn}", "not_in_hand")
    if any(c not in game.table for c in take):
        raise Refusal("illegal_move", "not on the table", "not_on_table")
    move = Move(card, in_deck_order(take))
    if take and value(card) + sum(map(value, take)) != 15:
        raise Refusal("illegal_move", "the cards do not make 15", "wrong_sum")
    if not take and takes(card, game.table):
        raise Refusal("illegal_move", f"{card} can capture, so it must", "compulsory")
    return move


def apply_move(game: Game, move: Move) -> tuple[Game, list[dict]]:
    assert game.turn is not None
    seat = game.turn
    hand = tuple(c for c in game.hands[seat] if c != move.card)
    game = game._replace(hands=replace_at(game.hands, seat, hand), plays=game.plays + 1)
    events: list[dict] = [{"event": "play", "seat": seat, "card": move.card, "take": list(move.take)}]
    if move.take:
        table = tuple(c for c in game.table if c not in move.take)
        taken = (move.card,) + move.take
        game = game._replace(table=table, piles=replace_at(game.piles, seat, game.piles[seat] + taken),
                             last_capturer=seat, log=game.log + (Capture(seat, taken),))
        if not table:
            game = game._replace(escobas=replace_at(game.escobas, seat, game.escobas[seat] + 1))
            events.append({"event": "escoba", "seat": seat, "side": seat, "scores": True})
    else:
        game = game._replace(table=game.table + (move.card,))
    if any(game.hands):
        return game._replace(turn=(seat + 1) % game.players), events
    if game.stock:
        game = deal_round(game)
        events.append({"event": "deal", "hands": [list(h) for h in game.hands]})
        return game._replace(turn=game.leader), events
    game, closing = end_hand(game._replace(turn=None))
    return game, events + closing


# ------------------------------------------------------------------------------------ scoring
def end_hand(game: Game) -> tuple[Game, list[dict]]:
    events: list[dict] = []
    if game.table:
        seat = game.last_capturer
        if seat is None:
            events.append({"event": "leftovers", "seat": None, "side": None, "cards": list(game.table)})
        else:
            events.append({"event": "leftovers", "seat": seat, "side": seat, "cards": list(game.table)})
            game = game._replace(piles=replace_at(game.piles, seat, game.piles[seat] + game.table))
        game = game._replace(table=())
    return game, events + score_hand(game)


def score_hand(game: Game) -> list[dict]:
    piles = game.piles
    cards = [len(p) for p in piles]
    coins = [sum(map(is_coin, p)) for p in piles]
    # Who took the velo, from the capture log (the replay screen shows who took it).
    velo = [any(VELO in capture.cards for capture in game.log if capture.seat == s) for s in range(game.players)]
    scores: list[dict] = [
        {"event": "score", "category": "escobas", "measures": list(game.escobas), "points": list(game.escobas)},
        {"event": "score", "category": "cards", "measures": cards,
         "points": [1 if n > SETTINGS.cards_more_than else 0 for n in cards]},
        {"event": "score", "category": "coins", "measures": coins,
         "points": [1 if n > SETTINGS.coins_more_than else 0 for n in coins]},
        {"event": "score", "category": "velo", "measures": velo,
         "points": [SETTINGS.velo_points if v else 0 for v in velo]},
    ]
    points = [sum(s["points"][seat] for s in scores) for seat in range(game.players)]
    return scores + [{"event": "hand_end", "points": points, "cards": cards}]


class Match(NamedTuple):
    target: int
    totals: tuple[int, ...]
    hands: int = 0
    winners: tuple[int, ...] | None = None


def after_hand(match: Match, points: list[int]) -> tuple[Match, list[dict]]:
    totals = tuple(t + p for t, p in zip(match.totals, points))
    match = match._replace(totals=totals, hands=match.hands + 1)
    events: list[dict] = [{"event": "totals", "hand": match.hands, "totals": list(totals)}]
    top = max(totals)
    if top < match.target:
        return match, events
    leaders = tuple(s for s, t in enumerate(totals) if t == top)
    if len(leaders) > 1 and not SETTINGS.shared_win:
        return match, events + [{"event": "tie", "sides": list(leaders), "totals": list(totals)}]
    match = match._replace(winners=leaders)
    return match, events + [{"event": "match_end", "winners": list(leaders), "totals": list(totals),
                             "reason": "shared win" if len(leaders) > 1 else "highest over the target"}]


# ----------------------------------------------------------------------------------- protocol
class Session:
    def __init__(self) -> None:
        self.game: Game | None = None
        self.match: Match | None = None
        self.last_scores: list[dict] = []

    def reply(self, request: dict) -> dict:
        command = request.get("cmd")
        handler = getattr(self, "on_" + command, None) if isinstance(command, str) else None
        if handler is None:
            raise Refusal("unknown_command", f"unknown command {command!r}")
        result: dict = handler(request)
        return result

    def on_hello(self, request: dict) -> dict:
        if request.get("protocol") != 1:
            raise Refusal("bad_request", "protocol 1 only")
        reply: dict = {"protocol": 1, "engine": APP, "features": list(FEATURES)}
        if DECLARED_RULESET:
            reply["ruleset"] = DECLARED_RULESET
        return reply

    def on_quit(self, _request: dict) -> dict:
        return {}

    def on_start(self, request: dict) -> dict:
        players, dealer, target = request.get("players"), request.get("dealer"), request.get("target")
        if not isinstance(request.get("ruleset"), dict):
            raise Refusal("bad_request", "start needs a ruleset")
        if type(players) is not int or type(dealer) is not int:
            raise Refusal("bad_request", "players and dealer are numbers")
        if players not in (2, 3, 4):
            raise Refusal("unsupported", "the app plays 2, 3 or 4 players")
        if not 0 <= dealer < players:
            raise Refusal("bad_request", "dealer is not a seat")
        if target is not None and (type(target) is not int or target < 1):
            raise Refusal("bad_request", "target is a number of points")
        order = self.order(request.get("decks"))
        self.game, events = new_game(players, dealer, order)
        self.match = Match(target, (0,) * players) if target is not None else None
        self.last_scores = []
        return {"events": events}

    @staticmethod
    def order(decks: object) -> tuple[str, ...]:
        if not isinstance(decks, list) or not decks or not isinstance(decks[0], list):
            raise Refusal("bad_request", "decks is a list of deck orders")
        order = decks[0]
        if not all(isinstance(c, str) for c in order):
            raise Refusal("bad_request", "card codes are strings")
        if not set(order) <= set(DECK):
            raise Refusal("unsupported", "the app plays the Spanish deck, codes 1-7 S C R and d h s c")
        if len(order) != 40 or len(set(order)) != 40:
            raise Refusal("bad_request", "a deck order holds the 40 cards once")
        return tuple(order)

    def current(self) -> Game:
        if self.game is None:
            raise Refusal("bad_state", "no game yet: start one")
        return self.game

    def on_legal(self, _request: dict) -> dict:
        game = self.current()
        return {"seat": game.turn, "moves": [{"card": m.card, "take": list(m.take)} for m in moves(game)]}

    def on_play(self, request: dict) -> dict:
        game = self.current()
        if "move" not in request:
            raise Refusal("bad_request", "play needs a move")
        game, events = apply_move(game, refusal_for(game, request["move"]))
        self.game = game
        if game.turn is None:
            self.last_scores = [e for e in events if e["event"] == "score"]
            if self.match is not None:
                self.match, more = after_hand(self.match, events[-1]["points"])
                events += more
        return {"events": events}

    def on_next_hand(self, request: dict) -> dict:
        game = self.current()
        if self.match is None or game.turn is not None or self.match.winners is not None:
            raise Refusal("bad_state", "no next hand now")
        self.game, events = new_game(game.players, (game.dealer + 1) % game.players, self.order(request.get("decks")))
        self.last_scores = []
        return {"events": events}

    def on_state(self, _request: dict) -> dict:
        game = self.current()
        points = None
        if self.last_scores:
            points = [sum(s["points"][seat] for s in self.last_scores) for seat in range(game.players)]
        return {"state": {
            "ruleset": "aalborg", "players": game.players, "dealer": game.dealer, "to_play": game.turn,
            "stock": list(game.stock), "hands": [list(h) for h in game.hands], "table": list(game.table),
            "piles": [list(p) for p in game.piles], "escobas": list(game.escobas), "set_aside": [],
            "last_capturer": game.last_capturer, "plays": game.plays, "points": points,
        }}

    def on_score(self, _request: dict) -> dict:
        game = self.current()
        points = None
        if self.last_scores:
            points = [sum(s["points"][seat] for s in self.last_scores) for seat in range(game.players)]
        match = None
        if self.match is not None:
            match = {"totals": list(self.match.totals), "over": self.match.winners is not None,
                     "winners": list(self.match.winners) if self.match.winners is not None else None}
        return {"hand": {"points": points, "categories": self.last_scores}, "match": match}


def serve(lines: Iterator[str]) -> Iterator[str]:
    session = Session()
    for line in lines:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError:
            request = None
        if not isinstance(request, dict):
            yield json.dumps({"id": None, "ok": False, "error": {"kind": "bad_json", "message": "not a JSON object"}})
            continue
        try:
            reply = {"id": request.get("id"), "ok": True, **session.reply(request)}
        except Refusal as refusal:
            reply = {"id": request.get("id"), "ok": False, "error": refusal.payload}
        except Exception as exc:  # a bug of ours: report it, keep serving
            reply = {"id": request.get("id"), "ok": False, "error": {"kind": "internal", "message": repr(exc)}}
        yield json.dumps(reply)
        if request.get("cmd") == "quit":
            return


def main() -> int:
    with open(sys.stdin.fileno(), encoding="utf-8", errors="replace", closefd=False) as stdin:
        for out in serve(iter(stdin.readline, "")):
            sys.stdout.write(out + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
