#!/usr/bin/env python3
# pampa -- escoba de 15 como se juega en el club (Argentine club rules), JSON-lines adapter.
#
# Reads one request per line on stdin, writes one reply per line on stdout (docs/protocol.md).
# Plays the club rules in README.md whatever ruleset `start` sends. Spanish deck only.
#
#   python tests/engines/outside/pampa/engine.py

import json
import sys

NAME = "pampa"
VERSION = "0.9"

# ---------------------------------------------------------------------------------------------
# DECLARED RULES -- issue 35: the runner will take the ruleset an engine plays from `hello`.
# Fill in the path of our rules file when it does (and it is sent in the hello reply).
DECLARED_RULESET = None  # "tests/engines/outside/pampa/rules.yaml"
# ---------------------------------------------------------------------------------------------

FEATURES = [
    "players:2", "players:3", "players:4", "match",
    "partnerships", "compulsory:hand", "opening:dealer_takes",
    "opening_table.trigger:total", "opening_table.escobas:per_group",
    "award:most", "award:holder", "award:per_unit",
]

SUITS = "dhsc"          # oros, copas, espadas, bastos
RANKS = "1234567SCR"    # as .. 7, sota, caballo, rey
VALUE = {}
ORDER = {}
for _s, _suit in enumerate(SUITS):
    for _r, _rank in enumerate(RANKS):
        VALUE[_rank + _suit] = _r + 1
        ORDER[_rank + _suit] = _s * 10 + _r
ALL_CARDS = set(VALUE)

HAND = 3
TABLE = 4
QUINCE = 15


class Refused(Exception):
    def __init__(self, kind, message, reason=None):
        Exception.__init__(self, message)
        self.kind = kind
        self.message = message
        self.reason = reason


def deck_sorted(cards):
    return sorted(cards, key=lambda c: ORDER[c])


def side_of(g, seat):
    # de a cuatro se juega en parejas: los de enfrente son compañeros
    if g["players"] == 4:
        return seat % 2
    return seat


def n_sides(g):
    return 2 if g["players"] == 4 else g["players"]


# --------------------------------------------------------------------------------- the hand

def new_hand(players, dealer, deck):
    g = {
        "players": players, "dealer": dealer, "leader": (dealer + 1) % players,
        "hands": [[] for _ in range(players)], "table": [], "stock": [],
        "piles": [], "escobas": [], "last": None, "turn": None, "plays": 0,
        "over": False, "scores": [], "points": None,
    }
    g["piles"] = [[] for _ in range(n_sides(g))]
    g["escobas"] = [0] * n_sides(g)
    events = [{"event": "hand_start", "dealer": dealer, "leader": g["leader"], "players": players}]
    pos = 0
    for k in range(players):
        seat = (g["leader"] + k) % players
        g["hands"][seat] = deck[pos:pos + HAND]
        pos += HAND
    g["table"] = deck[pos:pos + TABLE]
    pos += TABLE
    g["stock"] = deck[pos:]
    events.append({"event": "deal", "hands": [list(h) for h in g["hands"]]})
    events.append({"event": "table", "cards": list(g["table"])})
    # mesa de 15 (o de 30): se la lleva el que da, una escoba por cada 15
    total = sum(VALUE[c] for c in g["table"])
    if total in (QUINCE, 2 * QUINCE):
        groups = total // QUINCE
        side = side_of(g, dealer)
        events.append({"event": "opening", "action": "dealer_takes", "seat": dealer, "side": side,
                       "cards": list(g["table"]), "groups": groups, "escobas": groups})
        g["piles"][side] += g["table"]
        g["escobas"][side] += groups
        g["table"] = []
        g["last"] = dealer
    g["turn"] = g["leader"]
    return g, events


def refill(g):
    players = g["players"]
    for k in range(players):
        seat = (g["leader"] + k) % players
        g["hands"][seat] = g["stock"][k * HAND:(k + 1) * HAND]
    del g["stock"][:HAND * 2]
    return {"event": "deal", "hands": [list(h) for h in g["hands"]]}


def next_turn(g, seat):
    # the next player round the table who still holds a card
    players = g["players"]
    for step in range(1, players + 1):
        other = (seat + step) % players
        if g["hands"][other]:
            return other
    return None


def captures_for(card, table):
    need = QUINCE - VALUE[card]
    out = []
    cards = deck_sorted(set(table))

    def walk(i, left, taken):
        if left == 0:
            out.append(list(taken))
            return
        while i < len(cards):
            v = VALUE[cards[i]]
            if v <= left:
                taken.append(cards[i])
                walk(i + 1, left - v, taken)
                taken.pop()
            i += 1

    walk(0, need, [])
    return out


def legal_moves(g):
    if g["over"]:
        return []
    hand = deck_sorted(g["hands"][g["turn"]])
    caps = []
    for card in hand:
        for take in captures_for(card, g["table"]):
            caps.append({"card": card, "take": take})
    if caps:
        # si se puede levantar, hay que levantar
        moves = caps
    else:
        moves = [{"card": c, "take": []} for c in hand]
    moves.sort(key=lambda m: (ORDER[m["card"]], [ORDER[c] for c in m["take"]]))
    return moves


def check_move(g, move):
    if not isinstance(move, dict) or not isinstance(move.get("card"), str) or not isinstance(move.get("take"), list):
        raise Refused("illegal_move", "move must be {card, take}", "malformed")
    card, take = move["card"], move["take"]
    if card not in ALL_CARDS or any(not isinstance(c, str) or c not in ALL_CARDS for c in take):
        raise Refused("illegal_move", "unknown card", "malformed")
    if len(set(take)) != len(take):
        raise Refused("illegal_move", "a card taken twice", "malformed")
    if g["over"]:
        raise Refused("illegal_move", "the hand is over", "hand_over")
    if card not in g["hands"][g["turn"]]:
        raise Refused("illegal_move", card + " is not in the hand of seat " + str(g["turn"]), "not_in_hand")
    for c in take:
        if c not in g["table"]:
            raise Refused("illegal_move", c + " is not on the table", "not_on_table")
    # the client only ever offers the moves `legal` lists, so the cards being where they
    # should be is all there is to check here
    return card, deck_sorted(take)


def do_play(g, card, take):
    seat = g["turn"]
    side = side_of(g, seat)
    g["hands"][seat].remove(card)
    g["plays"] += 1
    events = [{"event": "play", "seat": seat, "card": card, "take": list(take)}]
    if take:
        for c in take:
            g["table"].remove(c)
        g["piles"][side] += [card] + take
        g["last"] = seat
        own_last_card = not g["hands"][seat] and not g["stock"]
        # barrer con la última carta de uno no es escoba: te llevás las cartas y nada más
        if not g["table"] and not own_last_card:
            g["escobas"][side] += 1
            events.append({"event": "escoba", "seat": seat, "side": side, "scores": True})
    else:
        g["table"].append(card)
    nxt = next_turn(g, seat)
    if nxt is None and g["stock"]:
        events.append(refill(g))
        nxt = g["leader"] if g["hands"][g["leader"]] else next_turn(g, g["leader"])
    if nxt is None:
        events += end_of_hand(g)
    else:
        g["turn"] = nxt
    return events


def most(measures, points):
    top = max(measures)
    leaders = [i for i, m in enumerate(measures) if m == top]
    return [points if (i in leaders and len(leaders) == 1) else 0 for i in range(len(measures))]


def end_of_hand(g):
    events = []
    g["turn"] = None
    g["over"] = True
    if g["table"]:
        if g["last"] is None:
            events.append({"event": "leftovers", "seat": None, "side": None, "cards": list(g["table"])})
        else:
            side = side_of(g, g["last"])
            g["piles"][side] += g["table"]
            events.append({"event": "leftovers", "seat": g["last"], "side": side, "cards": list(g["table"])})
        g["table"] = []
    piles = g["piles"]
    scores = []
    scores.append({"event": "score", "category": "escobas", "measures": list(g["escobas"]),
                   "points": list(g["escobas"])})
    cards = [len(p) for p in piles]
    scores.append({"event": "score", "category": "cards", "measures": cards, "points": most(cards, 1)})
    oros = [len([c for c in p if c[-1] == "d"]) for p in piles]
    scores.append({"event": "score", "category": "coins", "measures": oros, "points": most(oros, 1)})
    velo = [1 if "7d" in p else 0 for p in piles]
    scores.append({"event": "score", "category": "velo", "measures": velo, "points": velo})
    sevens = [len([c for c in p if c[0] == "7"]) for p in piles]
    scores.append({"event": "score", "category": "sevens", "measures": sevens, "points": most(sevens, 1)})
    points = [0] * len(piles)
    for s in scores:
        points = [a + b for a, b in zip(points, s["points"])]
    g["scores"] = scores
    g["points"] = points
    events += scores
    events.append({"event": "hand_end", "points": points, "cards": cards})
    return events


# --------------------------------------------------------------------------------- the match

def match_after_hand(m, points):
    m["hands"] += 1
    m["totals"] = [a + b for a, b in zip(m["totals"], points)]
    events = [{"event": "totals", "hand": m["hands"], "totals": list(m["totals"])}]
    best = max(m["totals"])
    if best >= m["target"]:
        top = [i for i, t in enumerate(m["totals"]) if t == best]
        if len(top) > 1:
            events.append({"event": "tie", "sides": top, "totals": list(m["totals"])})
        else:
            m["winners"] = top
            events.append({"event": "match_end", "winners": top, "totals": list(m["totals"]),
                           "reason": "first past " + str(m["target"])})
    return events


# --------------------------------------------------------------------------------- requests

def read_deck(decks):
    if not isinstance(decks, list) or not decks or not isinstance(decks[0], list):
        raise Refused("bad_request", "decks must be a list of deck orders")
    deck = decks[0]
    if any(not isinstance(c, str) for c in deck):
        raise Refused("bad_request", "card codes are strings")
    if any(c not in ALL_CARDS for c in deck):
        raise Refused("unsupported", "pampa plays the Spanish 40-card deck (1-7, S, C, R of d h s c) only")
    if len(deck) != 40 or len(set(deck)) != 40:
        raise Refused("bad_request", "a deck order has the 40 cards once each")
    return list(deck)


def cmd_start(req, state):
    players = req.get("players")
    dealer = req.get("dealer")
    target = req.get("target")
    if not isinstance(req.get("ruleset"), dict):
        raise Refused("bad_request", "start needs the ruleset")
    if type(players) is not int or players not in (2, 3, 4):
        raise Refused("unsupported", "2, 3 or 4 players")
    if type(dealer) is not int or not 0 <= dealer < players:
        raise Refused("bad_request", "bad dealer")
    if target is not None and (type(target) is not int or target <= 0):
        raise Refused("bad_request", "bad target")
    deck = read_deck(req.get("decks"))
    g, events = new_hand(players, dealer, deck)
    state["game"] = g
    state["match"] = None
    if target is not None:
        state["match"] = {"target": target, "totals": [0] * n_sides(g), "hands": 0, "winners": None}
    return {"events": events}


def cmd_play(req, state):
    g = state["game"]
    if "move" not in req:
        raise Refused("bad_request", "play needs a move")
    card, take = check_move(g, req["move"])
    events = do_play(g, card, take)
    if g["over"] and state["match"] is not None:
        events += match_after_hand(state["match"], g["points"])
    return {"events": events}


def cmd_next_hand(req, state):
    g, m = state["game"], state["match"]
    if m is None or not g["over"] or m["winners"] is not None:
        raise Refused("bad_state", "no hand to deal now")
    deck = read_deck(req.get("decks"))
    g2, events = new_hand(g["players"], (g["dealer"] + 1) % g["players"], deck)
    state["game"] = g2
    return {"events": events}


def cmd_state(g):
    return {"state": {
        "ruleset": "pampa", "players": g["players"], "dealer": g["dealer"], "to_play": g["turn"],
        "stock": list(g["stock"]), "hands": [list(h) for h in g["hands"]], "table": list(g["table"]),
        "piles": [list(p) for p in g["piles"]], "escobas": list(g["escobas"]), "set_aside": [],
        "last_capturer": g["last"], "plays": g["plays"], "points": g["points"],
    }}


def cmd_score(state):
    g, m = state["game"], state["match"]
    hand = {"points": g["points"], "categories": g["scores"]}
    match = None
    if m is not None:
        match = {"totals": list(m["totals"]), "over": m["winners"] is not None, "winners": m["winners"]}
    return {"hand": hand, "match": match}


def answer(req, state):
    cmd = req.get("cmd")
    if cmd == "hello":
        if req.get("protocol") != 1:
            raise Refused("bad_request", "protocol 1 only")
        reply = {"protocol": 1, "engine": {"name": NAME, "version": VERSION}, "features": FEATURES}
        if DECLARED_RULESET:
            reply["ruleset"] = DECLARED_RULESET
        return reply
    if cmd == "quit":
        return {}
    if cmd == "start":
        return cmd_start(req, state)
    if cmd not in ("legal", "play", "state", "score", "next_hand"):
        raise Refused("unknown_command", "unknown command: " + str(cmd))
    if state["game"] is None:
        raise Refused("bad_state", "start a game first")
    if cmd == "legal":
        g = state["game"]
        return {"seat": g["turn"], "moves": legal_moves(g)}
    if cmd == "play":
        return cmd_play(req, state)
    if cmd == "next_hand":
        return cmd_next_hand(req, state)
    if cmd == "state":
        return cmd_state(state["game"])
    return cmd_score(state)


def main():
    state = {"game": None, "match": None}
    sys.stdin.reconfigure(encoding="utf-8", errors="replace")
    for line in iter(sys.stdin.readline, ""):
        if not line.strip():
            continue
        try:
            req = json.loads(line)
        except ValueError:
            req = None
        if not isinstance(req, dict):
            out = {"id": None, "ok": False, "error": {"kind": "bad_json", "message": "bad line"}}
        else:
            try:
                out = {"id": req.get("id"), "ok": True}
                out.update(answer(req, state))
            except Refused as r:
                err = {"kind": r.kind, "message": r.message}
                if r.reason:
                    err["reason"] = r.reason
                out = {"id": req.get("id"), "ok": False, "error": err}
            except Exception as e:
                out = {"id": req.get("id"), "ok": False, "error": {"kind": "internal", "message": str(e)}}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
        if isinstance(req, dict) and req.get("cmd") == "quit":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
