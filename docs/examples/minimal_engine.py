#!/usr/bin/env python3
"""A minimal Escoba engine speaking the conformance protocol, in one file, standard library only.

It is NOT the reference implementation and imports nothing from escoba: it is what an engine
author writes, kept small. It plays the common two-to-four-player game (the `base` and `fr`
family) and says honestly what it does not do:

- declared: players 2-4, capture optional or compulsory card by card, the dealer taking an
  opening 15 (or a 30 that splits), awards `most`, `holder`, `per_unit`, and `measures` (its
  score events report each measure exactly);
- not declared, so the runner reports those cases `unsupported` without sending them:
  partnerships, compulsory capture at the hand level, opening set-aside / redeal / any
  combination, jokers, thresholds, bonuses, matches, the table dealt first, clockwise play,
  the dealer's left leading;
- scoring measures are recognised by their text (five common ones); a ruleset with any other
  measure is refused at `start` with `error.kind: "unsupported"`.

    escoba conformance --engine "python docs/examples/minimal_engine.py" --ruleset fr

docs/conformance.md walks through it; docs/protocol.md is the protocol.
"""

import itertools
import json
import sys

FEATURES = [
    "players:2", "players:3", "players:4",
    "compulsory:optional", "compulsory:card",
    "opening:dealer_takes", "opening:split",
    "award:most", "award:holder", "award:per_unit",
    "measures",  # its score events report the ruleset's measures exactly, so they are compared
]  # fmt: skip

REASONS_IN_ORDER = ["malformed", "hand_over", "not_in_hand", "not_on_table", "wrong_sum", "compulsory"]


class Refused(Exception):
    def __init__(self, kind, message, reason=None):
        super().__init__(message)
        self.kind, self.message, self.reason = kind, message, reason


class Game:
    """One hand under one ruleset. Cards are their wire codes ("7d", "Rc")."""

    def __init__(self, rules, players, dealer, deck_order):
        deck = rules["deck"]
        self.order = [r["ascii"] + s["ascii"] for s in deck["suits"] for r in deck["ranks"]]
        if sorted(deck_order) != sorted(self.order):
            raise Refused("bad_request", "the deck order is not this ruleset's deck")
        self.index = {c: i for i, c in enumerate(self.order)}  # deck order, for sorting
        self.value = {r["ascii"] + s["ascii"]: r["value"] for s in deck["suits"] for r in deck["ranks"]}
        self.suit = {r["ascii"] + s["ascii"]: s["id"] for s in deck["suits"] for r in deck["ranks"]}
        self.rank = {r["ascii"] + s["ascii"]: str(r["id"]) for s in deck["suits"] for r in deck["ranks"]}
        self.rules, self.players, self.dealer = rules, players, dealer
        self.target = rules["capture"]["target"]
        self.leader = (dealer + 1) % players  # the dealer's right leads; play goes to the right
        self.categories = [self._category(c) for c in rules["scoring"]["categories"]]
        self.stock, self.events = list(deck_order), []
        self.hands = [[] for _ in range(players)]
        self.piles = [[] for _ in range(players)]
        self.escobas = [0] * players
        self.last_capturer = None
        self.to_play = self.leader
        self.emit("hand_start", dealer=dealer, leader=self.leader, players=players)
        self.deal_round()
        self.table = self.draw(rules["deal"]["table_size"])
        self.emit("table", cards=list(self.table))
        self.opening()

    # -------------------------------------------------------------- dealing
    def emit(self, event, **fields):
        self.events.append({"event": event, **fields})

    def draw(self, n):
        cards, self.stock = self.stock[:n], self.stock[n:]
        return cards

    def deal_round(self):
        for i in range(self.players):  # from the leader, to the right, the dealer last
            seat = (self.leader + i) % self.players
            self.hands[seat] = self.draw(self.rules["deal"]["hand_size"])
        self.emit("deal", hands=[list(h) for h in self.hands])

    def makes_target(self, cards):
        return sum(self.value[c] for c in cards) == self.target

    def opening(self):
        opening = self.rules["opening_table"]
        if opening["action"] != "dealer_takes" or not self.table:
            return
        groups = 0
        for g in range(1, opening.get("max_groups", 1) + 1):
            if self.splits(self.table, g):
                groups = g
                break
        if not groups:
            return
        escobas = {"none": 0, "one": 1, "per_group": groups}[opening["escobas"]]
        self.piles[self.dealer] += self.table
        self.escobas[self.dealer] += escobas
        self.last_capturer = self.dealer
        self.emit("opening", action="dealer_takes", seat=self.dealer, side=self.dealer,
                  cards=list(self.table), groups=groups, escobas=escobas)  # fmt: skip
        self.table = []

    def splits(self, cards, groups):
        """Can the cards be split into `groups` groups of two or more, each making the target?"""
        if groups == 1:
            return len(cards) >= 2 and self.makes_target(cards)
        first, rest = cards[0], cards[1:]
        for size in range(1, len(rest)):
            for others in itertools.combinations(rest, size):
                group = [first, *others]
                remaining = [c for c in rest if c not in others]
                if self.makes_target(group) and self.splits(remaining, groups - 1):
                    return True
        return False

    # -------------------------------------------------------------- moves
    def legal(self):
        if self.to_play is None:
            return []
        optional = self.rules["capture"]["compulsory"] == "optional"
        moves = []
        for card in sorted(self.hands[self.to_play], key=self.index.get):
            takes = [tuple(sorted(t, key=self.index.get)) for t in self.subsets(self.target - self.value[card])]
            if optional or not takes:
                moves.append((card, ()))
            moves += [(card, t) for t in sorted(takes, key=lambda t: [self.index[c] for c in t])]
        return moves

    def subsets(self, need):
        """Table subsets summing to `need`. Trying all 2^n subsets is hopeless once a table
        holds twenty cards (it does, when capture is optional), so grow them card by card and
        drop any that already passes `need`."""
        found = [((), 0)]
        for c in self.table:
            found += [(s + (c,), total + self.value[c]) for s, total in found if total + self.value[c] <= need]
        return [s for s, total in found if s and total == need]

    def why_illegal(self, card, take):
        """The reason code of the first rule the move breaks, checked in the contract's order."""
        if self.to_play is None:
            return "hand_over"
        if card not in self.hands[self.to_play]:
            return "not_in_hand"
        if any(c not in self.table for c in take):
            return "not_on_table"
        if take:
            return "wrong_sum"
        return "compulsory"

    def play(self, card, take):
        take = tuple(sorted(take, key=self.index.get))
        if (card, take) not in self.legal():
            raise Refused("illegal_move", "not a legal move here", self.why_illegal(card, take))
        start = len(self.events)
        seat = self.to_play
        self.hands[seat].remove(card)
        self.emit("play", seat=seat, card=card, take=list(take))
        if take:
            self.table = [c for c in self.table if c not in take]
            self.piles[seat] += [card, *take]
            self.last_capturer = seat
            last_play = not self.stock and not any(self.hands)
            if not self.table and (self.rules["capture"].get("escoba_on_last_play", True) or not last_play):
                self.escobas[seat] += 1
                self.emit("escoba", seat=seat, side=seat, scores=True)
        else:
            self.table.append(card)
        if any(self.hands):
            self.to_play = (seat + 1) % self.players
        elif self.stock:
            self.deal_round()
            self.to_play = self.leader
        else:
            self.finish()
        return self.events[start:]

    # -------------------------------------------------------------- scoring
    def finish(self):
        self.to_play = None
        if self.table:
            rules = self.rules["leftovers"]
            seat = self.last_capturer if rules["to"] == "last_capturer" else None
            if seat is None and (rules["to"] == "dealer" or rules.get("if_nobody_captured") == "dealer"):
                seat = self.dealer
            if seat is not None:
                self.piles[seat] += self.table
            self.emit("leftovers", seat=seat, side=seat, cards=list(self.table))
            self.table = []
        points = [0] * self.players
        for category in self.categories:
            event = category(self)
            points = [p + q for p, q in zip(points, event["points"])]
            self.events.append(event)
        self.points = points
        self.emit("hand_end", points=points, cards=[len(p) for p in self.piles])

    def _category(self, doc):
        award, worth = doc["award"], doc.get("points", 1)
        if award["policy"] == "holder":
            card = award["card"]  # "7 oros" or "7♦": find it by rank and suit
            rank, _, suit = card.partition(" ")
            code = next((c for c in self.order if self.rank[c] == rank and self.suit[c] == suit), None)
            if code is None:
                raise Refused("unsupported", f"holder card {card!r} is not written as 'RANK SUIT-ID'")

            def holder(game):
                has = [code in pile for pile in game.piles]
                return score(doc["id"], has, [worth if h else 0 for h in has])

            return holder
        measure = MEASURES.get(" ".join(str(doc.get("measure")).split()))
        if measure is None:
            raise Refused("unsupported", f"this engine does not know the measure {doc.get('measure')!r}")
        if award["policy"] == "per_unit":
            return lambda game: score(doc["id"], m := [measure(game, s) for s in range(game.players)], [worth * x for x in m])
        if award["policy"] == "most":
            def most(game):
                m = [measure(game, s) for s in range(game.players)]
                eligible = [x for x in m if x is not None]
                best = max(eligible) if eligible else None
                leaders = [s for s, x in enumerate(m) if x is not None and x == best]
                win = leaders if len(leaders) == 1 or award.get("ties") == "all" else []
                return score(doc["id"], m, [worth if s in win else 0 for s in range(game.players)])

            return most
        raise Refused("unsupported", f"award policy {award['policy']!r}")


def score(category, measures, points):
    return {"event": "score", "category": category, "measures": measures, "points": points, "reason": ""}


def _primera(game, seat):
    table = {str(k): v for k, v in game.rules["values"]["primera"].items()}
    best = []
    for suit in (s["id"] for s in game.rules["deck"]["suits"]):
        mine = [table[game.rank[c]] for c in game.piles[seat] if game.suit[c] == suit]
        if not mine:
            return None  # a side missing a suit cannot score primera
        best.append(max(mine))
    return sum(best)


MEASURES = {
    "escobas": lambda game, seat: game.escobas[seat],
    "count(cards)": lambda game, seat: len(game.piles[seat]),
    "count(suit(cards, oros))": lambda game, seat: sum(game.suit[c] == "oros" for c in game.piles[seat]),
    "count(rank(cards, 7))": lambda game, seat: sum(game.rank[c] == "7" for c in game.piles[seat]),
    "best(suit(cards, oros), primera) + best(suit(cards, copas), primera) + best(suit(cards, espadas), primera)"
    " + best(suit(cards, bastos), primera)": _primera,
}


# ------------------------------------------------------------------ the protocol loop
class Engine:
    def __init__(self):
        self.game = None

    def handle(self, request):
        cmd = request.get("cmd")
        if cmd == "hello":
            return {"protocol": 1, "engine": {"name": "minimal-engine", "version": "1.0"}, "features": FEATURES}
        if cmd == "start":
            if request.get("target") is not None:
                raise Refused("unsupported", "this engine plays single hands, not matches")
            self.game = Game(request["ruleset"], request["players"], request["dealer"], request["decks"][0])
            return {"events": self.game.events}
        if cmd == "quit":
            return {}
        if cmd not in ("legal", "play", "state", "score"):
            raise Refused("unknown_command", f"unknown command {cmd!r}")
        game = self.game
        if game is None:
            raise Refused("bad_state", "send start first")
        if cmd == "legal":
            return {"seat": game.to_play, "moves": [{"card": c, "take": list(t)} for c, t in game.legal()]}
        if cmd == "play":
            move = request.get("move")
            if not isinstance(move, dict) or set(move) != {"card", "take"} or not isinstance(move["take"], list):
                raise Refused("illegal_move", "a move is {card, take}", "malformed")
            cards = [move["card"], *move["take"]]
            if any(c not in game.index for c in cards) or len(set(cards)) != len(cards):
                raise Refused("illegal_move", "unknown or repeated card", "malformed")
            return {"events": game.play(move["card"], move["take"])}
        if cmd == "state":
            return {"state": {"to_play": game.to_play, "hands": game.hands, "table": game.table, "piles": game.piles}}
        done = game.to_play is None
        return {"hand": {"points": game.points if done else None,
                         "categories": [e for e in game.events if e["event"] == "score"]}, "match": None}  # fmt: skip


def main():
    engine = Engine()
    for line in sys.stdin:
        request = {}
        try:
            request = json.loads(line)
            reply = {"id": request.get("id"), "ok": True, **engine.handle(request)}
        except Refused as refused:
            error = {"kind": refused.kind, "message": refused.message}
            if refused.reason:
                error["reason"] = refused.reason
            reply = {"id": request.get("id"), "ok": False, "error": error}
        except (ValueError, AttributeError) as problem:  # not JSON, or not an object
            reply = {"id": None, "ok": False, "error": {"kind": "bad_json", "message": str(problem)}}
        except (KeyError, TypeError) as problem:
            reply = {"id": request.get("id"), "ok": False, "error": {"kind": "bad_request", "message": repr(problem)}}
        print(json.dumps(reply), flush=True)
        if isinstance(request, dict) and request.get("cmd") == "quit":
            break


if __name__ == "__main__":
    main()
